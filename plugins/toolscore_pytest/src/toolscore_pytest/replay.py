"""What ``toolscore_snapshot(output)`` does: record, re-record, or replay against the baseline.

The state machine (one snapshot, one call):

- ``--toolscore-update``: record the calls as the new approved baseline (refused in CI:
  a baseline is approved by a person, never by a CI job).
- no snapshot yet: record it as pending and warn; the test passes.
- pending snapshot: re-record it (the agent may have changed since) and warn; passes.
- approved snapshot: evaluate the calls against it with ``toolscore.assert_tools``; drift
  fails the test with the aligned expected-vs-actual table.
- in CI (``CI`` set) a missing or pending snapshot fails the test and nothing is written,
  unless ``--toolscore-allow-pending`` turns that into a warning (still nothing written),
  or ``TOOLSCORE_RECORD=1`` (set by ``toolscore record --``) says recording is wanted.

Scoring is imported here, and this module is imported only when the fixture is first
used, so a pytest run that never uses the fixture pays nothing for it.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from toolscore_core import visible
from toolscore_pytest.store import Snapshot, SnapshotStore

FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


class SnapshotWarning(UserWarning):
    """A snapshot was recorded or is waiting for approval (shown in pytest's warnings summary)."""


def env_flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """True when environment variable ``name`` is set to something other than 0/false/no/off/empty."""
    value = (os.environ if environ is None else environ).get(name)
    return value is not None and value.strip().lower() not in FALSE_WORDS


@attrs.frozen
class Settings:
    """The session's snapshot switches, read once from the command line and environment."""

    root: Path
    update: bool = False
    allow_pending: bool = False
    ci: bool = False
    record_wanted: bool = False


@attrs.define
class Tally:
    """How many snapshots ended each way, for the terminal summary line."""

    counts: Counter[str] = attrs.field(factory=Counter)

    def summary(self) -> str | None:
        """``toolscore: 1 snapshot created (pending approval), 3 passed`` (None when unused)."""
        if not self.counts:
            return None
        parts = []
        created = self.counts["created"]
        if created:
            parts.append(f"{created} snapshot{'s' if created != 1 else ''} created (pending approval)")
        for key in ("updated", "pending", "missing", "passed", "failed"):
            if self.counts[key]:
                parts.append(f"{self.counts[key]} {key}")
        return "toolscore: " + ", ".join(parts)


def recorded_calls(output: Any, *, format: str | None = None) -> list[dict[str, Any]]:
    """The agent's calls as the snapshot stores them: ``{"tool": ..., "args": {...}}``.

    ``output`` is anything ``toolscore.evaluate()`` reads (a call list, a trace file, an SDK
    object); reading goes through the public ``load_trace``, never our own parsing. Results
    and timings are left out: they change between runs and are not what a snapshot pins.
    """
    import toolscore

    trace = toolscore.load_trace(output, format=format)
    calls: list[dict[str, Any]] = []
    for call in trace.calls:
        entry: dict[str, Any] = {"tool": call.tool}
        if call.args is not None:
            entry["args"] = dict(call.args)
        calls.append(entry)
    return calls


def _strip(args: Mapping[str, Any] | None, ignored: frozenset[str]) -> dict[str, Any] | None:
    if args is None:
        return None
    return {k: v for k, v in args.items() if k not in ignored}


@attrs.frozen
class MatchOptions:
    """How strictly a replay compares: the fixture's keyword options, checked once."""

    ignore_all: bool = False
    ignored: frozenset[str] = frozenset()
    matchers: Mapping[str, Any] = attrs.field(factory=dict)
    mode: str | None = None
    min_score: float = 1.0
    weights: Mapping[str, float] | None = None
    strict: bool = False

    @classmethod
    def of(cls, ignore_args: bool | Iterable[str] = (), args: Mapping[str, Any] | None = None,
           mode: str | None = None, min_score: float | None = 1.0, *,
           weights: Mapping[str, float] | None = None, strict: bool = False) -> MatchOptions:
        from toolscore_core import InputError

        if isinstance(ignore_args, str):
            ignore_args = [ignore_args]
        ignored: frozenset[str] = frozenset()
        if ignore_args is True:
            ignore_all = True
        elif ignore_args is False or ignore_args is None:
            ignore_all = False
        else:
            ignored = frozenset(ignore_args)
            if not all(isinstance(name, str) for name in ignored):
                raise InputError("ignore_args must name arguments", expected='True or a list such as ["timestamp"]')
            ignore_all = False
        if args is not None and not isinstance(args, Mapping):
            raise InputError("args= must map argument names to matchers", expected='e.g. args={"query": ANY}')
        if min_score is None:
            min_score = 1.0
        if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0 <= min_score <= 1:
            raise InputError(f"min_score={min_score!r} is not a number from 0 to 1")
        if mode is not None:  # a misspelt mode must fail on the first run, not only on replay
            import toolscore

            toolscore.evaluate([], [], mode=mode)
        return cls(ignore_all=ignore_all, ignored=ignored, matchers=dict(args or {}), mode=mode,
                   min_score=float(min_score), weights=dict(weights) if weights else None, strict=bool(strict))

    def recorded(self) -> dict[str, Any]:
        """The options kept in the snapshot file (for the reviewer; the test stays the source)."""
        out: dict[str, Any] = {}
        if self.ignore_all:
            out["ignore_args"] = True
        elif self.ignored:
            out["ignore_args"] = sorted(self.ignored)
        if self.matchers:
            out["matchers"] = sorted(self.matchers)
        if self.mode is not None:
            out["mode"] = self.mode
        if self.min_score != 1.0:
            out["min_score"] = self.min_score
        if self.strict:
            out["strict"] = True
        return out

    def expected(self, calls: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The baseline as evaluate() should read it: ignored arguments gone, matchers in."""
        out = []
        for call in calls:
            entry = {"tool": call["tool"]}
            if not self.ignore_all and "args" in call:
                args = _strip(call["args"], self.ignored) or {}
                for name, matcher in self.matchers.items():
                    if name in args:
                        args[name] = matcher
                entry["args"] = args
            out.append(entry)
        return out

    def actual(self, output: Any, format: str | None) -> Any:
        """The agent's trace with the ignored arguments removed (the trace as is otherwise)."""
        import toolscore

        trace = toolscore.load_trace(output, format=format)
        if not self.ignore_all and not self.ignored:
            return trace
        calls = tuple(attrs.evolve(c, args=None if self.ignore_all else _strip(c.args, self.ignored))
                      for c in trace.calls)
        return attrs.evolve(trace, calls=calls)


_NO_JUDGE = object()


class SnapshotRunner:
    """The session's snapshot state: the store, the switches, the tally and the judge."""

    def __init__(self, settings: Settings, judge_hook: Any = None) -> None:
        self.settings = settings
        self.store = SnapshotStore(settings.root)
        self.tally = Tally()
        self._judge_hook = judge_hook
        self._judge: Any = _NO_JUDGE

    def judge(self) -> Any:
        """The judge a plugin offers through ``pytest_toolscore_judge`` (asked once), or None."""
        if self._judge is _NO_JUDGE:
            self._judge = self._judge_hook() if self._judge_hook is not None else None
        return self._judge

    def _warn(self, message: str) -> None:
        warnings.warn(SnapshotWarning(message), stacklevel=4)

    def _fail(self, message: str) -> None:
        self.tally.counts["failed"] += 1
        pytest.fail(message, pytrace=False)

    def check(self, name: str, output: Any, options: MatchOptions, *, format: str | None = None) -> Any:
        """Run the state machine for snapshot ``name``; the Evaluation on a replay, else None."""
        s = self.settings
        shown = repr(visible(name))
        calls = recorded_calls(output, format=format)
        existing = self.store.load(name)
        fresh = Snapshot(name=name, calls=tuple(calls), approved=False, source="pytest", options=options.recorded())
        if s.update:
            if s.ci:
                self._fail(f"toolscore: --toolscore-update is refused in CI (CI is set): snapshot "
                           f"{shown} was not changed. Re-record locally, review, and commit the snapshots.")
            self._write(attrs.evolve(fresh, approved=True), existing)
            self.tally.counts["updated"] += 1
            self._warn(f"toolscore: snapshot {shown} re-recorded and approved (--toolscore-update)")
            return None
        gated = s.ci and not s.record_wanted
        if existing is None:
            if gated:
                text = (f"toolscore: snapshot {shown} does not exist, and snapshots are never created in CI "
                        f"(CI is set). Run the test locally, review the snapshot, approve it with "
                        f"`toolscore approve`, and commit {self.store.path_for(name)}.")
                if not s.allow_pending:
                    self._fail(text)
                self.tally.counts["missing"] += 1
                self._warn(text + " (--toolscore-allow-pending: not failing)")
                return None
            path = self._write(fresh, None)
            self.tally.counts["created"] += 1
            self._warn(f"toolscore: snapshot {shown} created (pending approval) in {path}: review it with "
                       f"`toolscore snapshots show`, then `toolscore approve` it")
            return None
        if not existing.approved:
            if gated:
                text = (f"toolscore: snapshot {shown} is pending approval, and an unapproved snapshot is never "
                        f"a baseline in CI (CI is set). Approve it locally with `toolscore approve` and commit it.")
                if not s.allow_pending:
                    self._fail(text)
                self.tally.counts["pending"] += 1
                self._warn(text + " (--toolscore-allow-pending: not failing)")
                return None
            self._write(fresh, existing)
            self.tally.counts["pending"] += 1
            self._warn(f"toolscore: snapshot {shown} is pending approval (re-recorded): "
                       f"`toolscore approve` it to replay against it")
            return None
        return self._replay(existing, output, options, format, shown)

    def _write(self, snapshot: Snapshot, existing: Snapshot | None) -> Path:
        """Save unless the file would not change (an unchanged snapshot keeps its bytes and mtime)."""
        path = self.store.path_for(snapshot.name)
        if existing is not None and existing == snapshot and path.is_file() \
                and path.read_text(encoding="utf-8") == snapshot.to_json():
            return path
        return self.store.save(snapshot)

    def _replay(self, baseline: Snapshot, output: Any, options: MatchOptions, format: str | None,
                shown: str) -> Any:
        import toolscore

        kwargs: dict[str, Any] = {}
        if options.mode is not None:
            kwargs["mode"] = options.mode
        if options.weights:
            kwargs["weights"] = options.weights
        if options.strict:
            kwargs["strict"] = True
        judge = self.judge()
        if judge is not None:
            kwargs["judge"] = judge
        actual = options.actual(output, format)
        try:
            evaluation = toolscore.assert_tools(options.expected(baseline.calls), actual,
                                                min_score=options.min_score, **kwargs)
        except AssertionError as exc:
            # ToolscoreAssertionError is an AssertionError; catching the base class also holds
            # when a test runner re-imports the scoring modules between runs (pytester does),
            # which leaves the facade's cached class a different object from the raised one.
            failure = str(exc)  # failed outside the except: no "during handling" chain in the report
        else:
            self.tally.counts["passed"] += 1
            return evaluation
        self._fail(f"toolscore: snapshot {shown} drifted from its approved baseline "
                   f"({self.store.path_for(baseline.name)})\n{failure}\n"
                   + _order_line(baseline.calls, actual.calls)
                   + "If the new calls are right, re-record with `pytest --toolscore-update` and review the diff.")
        return None


def _order_line(expected: Iterable[Mapping[str, Any]], actual: Iterable[Any]) -> str:
    """The two tool sequences, when they differ: the table aligns calls by tool, so a swap
    of two calls would otherwise show as two matching rows."""
    want = [str(call["tool"]) for call in expected]
    got = [str(call.tool) for call in actual]
    if want == got or sorted(want) != sorted(got):
        return ""
    return (f"tool order: expected {', '.join(visible(t, 60) for t in want)}\n"
            f"            actual   {', '.join(visible(t, 60) for t in got)}\n")
