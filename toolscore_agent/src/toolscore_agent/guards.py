"""The harness's guard kinds, and the one guard a study's ``guard:`` section builds.

A guard runs before every tool call a model asks for; a denied call never reaches the
server, and the model reads ``denied by the harness guard: <reason>`` (the loop adds the
prefix, so every reason here is written to follow it). Three kinds ship here, registered
through ``toolscore_register_guards`` like any third party's:

- ``rules``: forbidden-call rules (``tool``, ``args`` with values or ``$regex`` /
  ``$contains`` / ``$one_of``, ``reason``). Matching is the kernel's own ``rule_matches``,
  the matcher scoring uses for forbidden calls, so the guard and the report can never
  disagree about whether a call was forbidden, and a ``$regex`` runs with the same time
  budget as in ``eval``. A rule that cannot be checked (its regex too slow on a long
  argument) raises ``GuardRuleError``: the run ends as ``error`` naming the rule.
- ``allow_tools``: fnmatch glob patterns (case-sensitive, like tool names); a tool that
  matches none is denied with a reason naming the patterns.
- ``python``: ``module:function`` of the user's own, imported when the study starts with the
  spec file's folder on ``sys.path``; the function takes ``(call)`` or ``(call, context)``
  and returns None / ``allow()`` / ``deny(reason)`` / a bool (the kernel's ``as_guard``
  reads it, and the kernel's ``decide`` makes a guard that raises deny: fail closed).

:func:`build_guard` combines a study's guards in a fixed order, first deny wins: deny rules
(the most specific reasons), then allow_tools, then registered kinds named under
``guard.use``, then python guards.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from toolscore_agent.model import GuardSpec
from toolscore_core import (
    ForbiddenRule,
    Guard,
    GuardContext,
    GuardDecision,
    InputError,
    ToolCall,
    as_guard,
    combine_guards,
    deny,
    forbidden_rules,
    redact_text,
    rule_matches,
)
from toolscore_core.kernel.guards import GuardRuleError

_TOOL_SHOWN = 80  # characters of a model-chosen tool name quoted in a reason


def _shown(tool: str) -> str:
    """A tool name as a reason quotes it: chosen by the model, so cut and made printable."""
    text = tool if len(tool) <= _TOOL_SHOWN else tool[:_TOOL_SHOWN] + "..."
    return repr(text)


class RulesGuard(Guard):
    """Denies a call that matches any forbidden-call rule, with that rule's reason."""

    name = "rules"
    description = "Deny calls that match forbidden-call rules (tool, args, reason)"

    def __init__(self, deny: Iterable[ForbiddenRule | Mapping[str, Any]] = ()) -> None:
        items = list(deny)
        if all(isinstance(item, ForbiddenRule) for item in items):
            self.rules: tuple[ForbiddenRule, ...] = tuple(items)  # type: ignore[arg-type]
        else:  # dicts in the contract format, matcher forms included
            self.rules = forbidden_rules([_plain_rule(item) for item in items])

    def check(self, call: ToolCall, context: GuardContext) -> GuardDecision | None:
        for number, rule in enumerate(self.rules, 1):
            try:
                hit = rule_matches(rule, call)
            except InputError as exc:  # a $regex past its time budget: the study's rule, not the model
                raise GuardRuleError(f"guard deny rule {number} ({_rule_label(rule)}) could not be checked "
                                     f"against this call of {_shown(call.tool)}: {exc.render()}") from None
            if hit:
                return deny(rule.reason or _default_reason(rule))
        return None


def _rule_label(rule: ForbiddenRule) -> str:
    return f"tool {rule.tool}" if rule.tool is not None else "any tool"


def _plain_rule(item: Any) -> Any:
    if isinstance(item, ForbiddenRule):
        out: dict[str, Any] = {"tool": item.tool, "args": item.args}
        if item.reason is not None:
            out["reason"] = item.reason
        return out
    return dict(item) if isinstance(item, Mapping) else item


def _default_reason(rule: ForbiddenRule) -> str:
    if rule.tool is None:
        return "the call matches a deny rule of this study"
    if rule.args:
        return f"this call of {rule.tool} matches a deny rule of this study"
    return f"{rule.tool} is not allowed in this study"


class AllowToolsGuard(Guard):
    """Denies a tool whose name matches none of the glob patterns (``None``: every tool)."""

    name = "allow_tools"
    description = "Allow only tools whose names match glob patterns (fnmatch)"

    def __init__(self, patterns: Iterable[str] | None = None) -> None:
        self.patterns: tuple[str, ...] | None = None if patterns is None else tuple(patterns)

    def check(self, call: ToolCall, context: GuardContext) -> GuardDecision | None:
        if self.patterns is None or any(fnmatchcase(call.tool, p) for p in self.patterns):
            return None
        if not self.patterns:
            return deny(f"the tool {_shown(call.tool)} is not allowed: this study allows no tools")
        listed = ", ".join(self.patterns)
        return deny(f"the tool {_shown(call.tool)} is not allowed: it matches none of allow_tools ({listed})")


class PythonGuard(Guard):
    """A guard function (or Guard class or object) of the user's own, named ``module:function``.

    Imported once, when the guard is made (the study's start), so a wrong reference stops
    the study before any model call instead of denying every call at run time.
    """

    name = "python"
    description = "A guard of your own: module:function taking (call) or (call, context)"

    def __init__(self, reference: str, base_dir: str | Path | None = None, *, file: str | None = None,
                 location: str | None = None) -> None:
        self.reference = reference
        target = import_reference(reference, base_dir, file=file, location=location)
        try:
            self.inner = as_guard(target)
        except InputError as exc:
            raise InputError(f"guard {reference!r}: {exc.message}", file=file, location=location,
                             expected=exc.expected) from None

    @property
    def label(self) -> str:
        return self.reference

    def check(self, call: ToolCall, context: GuardContext) -> Any:
        return self.inner.check(call, context)


def import_reference(reference: str, base_dir: str | Path | None = None, *, file: str | None = None,
                     location: str | None = None) -> Any:
    """The object ``module:attribute`` names, imported with ``base_dir`` first on ``sys.path``.

    The folder is on the path only during the import: the user's module is then in
    ``sys.modules``, and the process's path is left as it was.
    """
    def bad(message: str, hint: str | None = None) -> InputError:
        return InputError(f"guard {reference!r}: {message}", file=file, location=location,
                          expected="module:function, the module importable from the spec's folder or "
                                   "the environment", hint=hint)

    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise bad("is not written module:function")
    folder = str(Path(base_dir).resolve()) if base_dir is not None else None
    added = folder is not None and folder not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        where = f" (looked in {Path(str(folder)).name}/ and the environment)" if folder else ""
        raise bad(f"no module named {exc.name!r}{where}",
                  hint="Put the module next to the spec file, or install it") from None
    except Exception as exc:  # the user's module failed while importing: say so, not a traceback
        detail = redact_text(str(exc))[:300]
        raise bad(f"importing {module_name} failed ({type(exc).__name__}: {detail})") from None
    finally:
        if added and folder in sys.path:
            sys.path.remove(str(folder))
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            names = sorted(n for n in dir(module) if not n.startswith("_"))
            import difflib

            close = difflib.get_close_matches(part, names, n=1, cutoff=0.6)
            raise bad(f"{module_name} has no {attribute!r}",
                      hint=f"Did you mean {module_name}:{close[0]}?" if close else None)
        target = getattr(target, part)
    if not callable(target) and not callable(getattr(target, "check", None)):
        raise bad(f"{attribute} is a {type(target).__name__}, not a function or a guard")
    return target


def rules_guard(deny: Iterable[ForbiddenRule | Mapping[str, Any]] = (),
                allow_tools: Iterable[str] | None = None) -> Guard:
    """One guard from deny rules and allow_tools patterns, for a run of your own::

        guard = rules_guard(deny=[{"tool": "delete_note", "reason": "read-only study"}],
                            allow_tools=["*_note", "list_*"])

    Deny rules are asked first, so their reason is the one the model reads.
    """
    return combine_guards(RulesGuard(deny), AllowToolsGuard(allow_tools))


def build_guard(spec: GuardSpec, base_dir: str | Path | None = None, *, file: str | None = None,
                pm: Any = None) -> Guard:
    """The study's guard from its ``guard:`` section (and top-level ``allow_tools``).

    ``base_dir`` is the spec file's folder, where ``guard.python`` modules are looked for;
    ``file`` names the spec in errors. Registered kinds named under ``guard.use`` are made by
    the guards registry of ``pm`` (default: the process's plugin manager) with their settings.
    A wrong python reference or guard name is an InputError, raised here, before any run.
    """
    guards: list[Guard] = []
    if spec.deny:
        guards.append(RulesGuard(spec.deny))
    if spec.allow_tools is not None:
        guards.append(AllowToolsGuard(spec.allow_tools))
    if spec.use:
        from toolscore_core import collect, get_plugin_manager

        registry = collect(pm if pm is not None else get_plugin_manager(), "guards")
        for name, settings in spec.use:
            try:
                made = registry.create(name, **dict(settings or {}))
            except InputError as exc:
                raise InputError(exc.message, file=file, location=f"$.guard.use.{name}",
                                 expected=exc.expected) from None
            except TypeError as exc:
                raise InputError(f"guard {name!r} cannot be made with these settings ({exc})", file=file,
                                 location=f"$.guard.use.{name}") from None
            guards.append(as_guard(made))
    for index, reference in enumerate(spec.python):
        location = "$.guard.python" if len(spec.python) == 1 else f"$.guard.python[{index}]"
        guards.append(PythonGuard(reference, base_dir, file=file, location=location))
    return combine_guards(*guards)


__all__ = ["AllowToolsGuard", "PythonGuard", "RulesGuard", "build_guard", "import_reference", "rules_guard"]
