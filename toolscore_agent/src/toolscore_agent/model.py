"""What a study spec says, once it has been read and checked: the harness's own vocabulary.

A spec file (YAML or JSON) becomes an :class:`AgentSpec` in ``toolscore_agent.spec``; the
loop and the study read only these classes, never the raw mapping, so every default and
every inheritance rule (an arm inherits the top level's provider, model, system,
max_output_tokens, extra and pricing) is applied in one place and a typo in a key is an
error before anything starts.

All classes are attrs, frozen: a study's plan cannot change while it runs.
"""

from __future__ import annotations

from typing import Any

import attrs

from toolscore_core import Contract, ForbiddenRule, Price


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value)


@attrs.frozen
class ServerSpec:
    """How to reach the MCP server: a command (stdio), a URL (Streamable HTTP), or a
    client config file plus the server's name in it.

    ``env`` values may contain ``{run_dir}``, replaced per run by a fresh temporary
    directory. ``header_env`` maps an HTTP header to the NAME of an environment variable.
    """

    command: str | tuple[str, ...] | None = None
    url: str | None = None
    config: str | None = None
    name: str | None = None
    env: dict[str, str] = attrs.field(factory=dict)
    header_env: dict[str, str] = attrs.field(factory=dict)
    cwd: str | None = None
    protocol: str = "auto"  # auto | handshake | modern
    timeout: float = 30.0
    #: Fork ``python -m module`` servers from a warm interpreter (``toolscore_mcp.warm_start``).
    warm_start: bool = True


@attrs.frozen
class VerifySpec:
    """The build the study means to test; checked before any model call.

    ``server_name`` / ``server_version`` are exact, or a regex written ``/.../``;
    ``command`` is run (no shell) and its trimmed output must match ``expect`` (a regex).
    """

    server_name: str | None = None
    server_version: str | None = None
    command: str | None = None
    expect: str | None = None


@attrs.frozen
class Limits:
    """Per-run caps: model calls (``max_turns``) and tool calls (``max_calls``); None = no cap."""

    max_turns: int | None = None
    max_calls: int | None = None


@attrs.frozen
class BudgetSpec:
    """``max_usd`` for the whole study (None = no cap) and whether a model with no known
    price may run (its cost is then unknown, never 0, and the cap cannot hold for it)."""

    max_usd: float | None = None
    allow_unknown_price: bool = False


@attrs.frozen
class GuardSpec:
    """Guard rules from the spec: ``deny`` rules (forbidden-call rules with a reason),
    ``allow_tools`` glob patterns (None = every tool), ``python`` ``module:function``
    references to guards of the user's own, and ``use``: guard kinds registered by plugins,
    by name, each with its settings (``guard.use: {max-calls-per-tool: {limit: 2}}``)."""

    deny: tuple[ForbiddenRule, ...] = attrs.field(factory=tuple, converter=_tuple)
    allow_tools: tuple[str, ...] | None = None
    python: tuple[str, ...] = attrs.field(factory=tuple, converter=_tuple)
    use: tuple[tuple[str, dict[str, Any]], ...] = attrs.field(factory=tuple, converter=_tuple)


@attrs.frozen
class ScriptStep:
    """One scripted model turn: tool calls to ask for, or a final ``text`` (or both)."""

    calls: tuple[dict[str, Any], ...] = attrs.field(factory=tuple, converter=_tuple)  # {tool, args}
    text: str | None = None


@attrs.frozen
class Arm:
    """One way of running the model: provider, model, prompt and request settings, after
    inheritance from the top level. ``price`` is the spec's pricing for this model if any
    (otherwise the price table decides at run time)."""

    id: str
    provider: str
    model: str
    system: str | None = None
    max_output_tokens: int | None = None
    extra: dict[str, Any] = attrs.field(factory=dict)
    price: Price | None = None
    base_url: str | None = None
    api_key_env: str | None = None


@attrs.frozen
class Task:
    """One task: the prompt, what it needs (``contract``: expected and forbidden calls in
    the contract format, min_score), and for scripted arms the turns to replay, by arm id
    (a script given as a plain list applies to every scripted arm)."""

    id: str
    prompt: str
    contract: Contract = attrs.field(factory=Contract)
    require_completed: bool = True
    scripts: dict[str, tuple[ScriptStep, ...]] = attrs.field(factory=dict)
    default_script: tuple[ScriptStep, ...] | None = None

    @property
    def declares_expectations(self) -> bool:
        """False when the task has no expected and no forbidden calls (outcome: unknown)."""
        return bool(self.contract.expected or self.contract.forbidden)

    def script_for(self, arm_id: str) -> tuple[ScriptStep, ...] | None:
        return self.scripts.get(arm_id, self.default_script)


@attrs.frozen
class AgentSpec:
    """A whole study: tasks x arms x repetitions against one server, behind a guard,
    a budget and limits. ``source`` is the file it was read from (for messages)."""

    name: str
    server: ServerSpec
    arms: tuple[Arm, ...] = attrs.field(converter=_tuple)
    tasks: tuple[Task, ...] = attrs.field(converter=_tuple)
    spec_version: int = 1
    repetitions: int = 1
    seed: int = 0
    verify: VerifySpec | None = None
    budget: BudgetSpec = attrs.field(factory=BudgetSpec)
    limits: Limits = attrs.field(factory=Limits)
    guard: GuardSpec = attrs.field(factory=GuardSpec)
    source: str | None = None

    @property
    def run_count(self) -> int:
        return len(self.tasks) * len(self.arms) * self.repetitions


__all__ = ["AgentSpec", "Arm", "BudgetSpec", "GuardSpec", "Limits", "ScriptStep", "ServerSpec", "Task",
           "VerifySpec"]
