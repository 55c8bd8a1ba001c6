"""``from toolscore.mcp.agent import run_agent, Budget, Price, deny ...``: the agent harness.

The names come from three places, resolved on first use:

- ``Price`` and ``Budget`` (and ``BudgetStopped``, to catch a stopped run) are the kernel's,
  in toolscore-core, so the doctor, run rows and a shared budget agree on what a call costs;
- ``allow`` and ``deny`` are the kernel's guard decisions (``toolscore_core.kernel.guards``);
- the harness itself (providers, ``Limits``, ``load_agent_spec``, ``rules_guard``,
  ``run_agent``, ``run_study``) is the toolscore-agent distribution's.

When toolscore-agent is not installed, a harness name says ``pip install toolscore-agent``;
when the installed version does not have the name yet, the error names the name and that
version. Either way it is an ``ImportError`` that reads as an instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolscore._lazy import missing_attribute, resolve

if TYPE_CHECKING:
    from toolscore_core.kernel.budget import Budget as Budget
    from toolscore_core.kernel.errors import BudgetStopped as BudgetStopped
    from toolscore_core.kernel.pricing import Price as Price

_KERNEL = "toolscore-core"
_AGENT = "toolscore-agent"

# name -> (module, distribution that provides it)
_NAMES: dict[str, tuple[str, str]] = {
    "Price": ("toolscore_core.kernel.pricing", _KERNEL),
    "Budget": ("toolscore_core.kernel.budget", _KERNEL),
    "BudgetStopped": ("toolscore_core.kernel.errors", _KERNEL),
    "allow": ("toolscore_core.kernel.guards", _KERNEL),
    "deny": ("toolscore_core.kernel.guards", _KERNEL),
    "AnthropicMessagesProvider": ("toolscore_agent", _AGENT),
    "OpenAIResponsesProvider": ("toolscore_agent", _AGENT),
    "Limits": ("toolscore_agent", _AGENT),
    "load_agent_spec": ("toolscore_agent", _AGENT),
    "rules_guard": ("toolscore_agent", _AGENT),
    "run_agent": ("toolscore_agent", _AGENT),
    "run_study": ("toolscore_agent", _AGENT),
    "regrade": ("toolscore_agent", _AGENT),
    "run_doctor": ("toolscore_agent", _AGENT),
    "compare_runs": ("toolscore_agent", _AGENT),
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    try:
        module_name, distribution = _NAMES[name]
    except KeyError:
        raise missing_attribute(__name__, name) from None
    value = resolve(f"{__name__}.{name}", module_name, distribution, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
