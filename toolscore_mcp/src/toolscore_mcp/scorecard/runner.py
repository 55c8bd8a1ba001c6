"""Runs the generated scenarios against a live server and checks its annotations.

Why it is careful: the point of grading a server is to survive its worst behaviour. A tool
that never answers costs at most the per-call timeout (the request is cancelled), and after
``max_timeouts`` of them the tool's other scenarios are skipped with a finding; an overall
deadline bounds the whole run; a crash restarts the server and the run goes on.

Wedged servers: a single-threaded server whose tool blocks stops answering everything, so
every later call would time out and be blamed. After a timeout the server is pinged with a
short deadline; a server that answers was only slow on that tool, one that does not is
wedged: the tool that did it gets a ``server-wedged`` finding, its other scenarios are
skipped, and the server is restarted like after a crash, so its neighbours are graded on
a server that works.

Blame: with one call in flight a crash or a timeout belongs to that call. With several in
flight (``concurrency`` > 1) every call that was in flight is a suspect, and suspects are
re-run alone after the concurrent phase, so the finding lands on the call that really
crashes or hangs the server, not on its neighbours.

Tools annotated ``destructiveHint`` (or named delete/drop/remove/...), and tools that write
(create/write/move/set/...; ``fairness``), are only called with ``allow_destructive``. Annotations are checked against behaviour afterwards, one call at
a time: an ``idempotentHint`` tool called twice with the same arguments must answer the
same, and calling a ``readOnlyHint`` tool must not change what the read tools return.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

import attrs

from toolscore_core.kernel.model import Finding, ToolDefinition
from toolscore_core.scoring.secrets import redact
from toolscore_mcp.scorecard.discovery import discover_values
from toolscore_mcp.scorecard.fairness import (
    DESTRUCTIVE_WORDS,
    INVENTED_REFUSED,
    side_effect,
    skip_reason,
)
from toolscore_mcp.scorecard.generator import GeneratedScenarios, generate_for_tool
from toolscore_mcp.scorecard.judge import answer_text, judge
from toolscore_mcp.scorecard.model import Scenario, ScenarioResult

MAX_RESTARTS = 10
MAX_READ_PROBES = 4
MAX_READERS_CHECKED = 10

Progress = Callable[[int, int], None]
#: Told what the run is waiting for now ("calling tool X (scenario 3/12)"), for a progress
#: bar or a CI log: a run that seems stuck must say on what.
Activity = Callable[[str], None]
WEDGED = "server-wedged"


@attrs.frozen
class RunOptions:
    """How hard and how long to exercise the server (the ``mcp test`` options)."""

    scenarios_per_tool: int | None = 6  # None: every generated scenario
    concurrency: int = 1
    timeout: float = 10.0  # seconds per call
    deadline: float = 300.0  # seconds for the whole run
    allow_destructive: bool = False
    max_timeouts: int = 2  # timeouts of one tool before its other scenarios are skipped
    max_result_bytes: int = 1_000_000
    slow_seconds: float = 5.0
    check_annotations: bool = True
    ping_timeout: float = 3.0  # seconds a server gets to answer ping after a timeout
    started_at: float | None = None  # time.monotonic() the deadline counts from (None: the run's start)
    edge_cases: bool = True  # False (--no-edge-cases): the whole budget goes to happy-path calls


@attrs.frozen
class RunOutcome:
    """Everything the runner observed, before grading."""

    results: tuple[ScenarioResult, ...]
    generated: dict[str, GeneratedScenarios]
    planned: dict[str, int]  # scenarios chosen per tool
    findings: tuple[Finding, ...]
    skipped: dict[str, str]  # tool -> why (some of) its scenarios were not run
    not_run: int
    duration: float
    restarts: int


def is_destructive(tool: ToolDefinition) -> bool:
    """Annotated destructive, or named like it (unless annotated read-only / non-destructive)."""
    hints = tool.annotations or {}
    if hints.get("destructiveHint") is True:
        return True
    if hints.get("readOnlyHint") is True or hints.get("destructiveHint") is False:
        return False
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", tool.name).lower()
    return any(word in DESTRUCTIVE_WORDS for word in re.split(r"[^a-z0-9]+", words))


def restart_client(client: Any) -> None:
    """A fresh server process and session (the client's own ``restart`` when it has one)."""
    if hasattr(client, "restart"):
        client.restart()
        return
    client.close()
    client.start()
    client.initialize()


class ScenarioRunner:
    """One run against one open client (``toolscore_mcp.client``: ``call_tool`` -> CallOutcome)."""

    def __init__(self, client: Any, tools: Sequence[ToolDefinition], options: RunOptions | None = None,
                 *, progress: Progress | None = None, activity: Activity | None = None) -> None:
        self.client = client
        self.tools = list(tools)
        self.options = options or RunOptions()
        self.progress = progress
        self.activity = activity
        self.findings: list[Finding] = []
        self.skipped: dict[str, str] = {}
        self.results: dict[int, ScenarioResult] = {}
        self.timeouts: Counter[str] = Counter()
        self.generation = 0
        self.restarts = 0
        self.dead = False
        self._started = 0.0
        self._done = 0
        self._total = 0

    # -- time ----------------------------------------------------------------------------
    def _remaining(self) -> float:
        return self.options.deadline - (time.monotonic() - self._started)

    def _call_timeout(self) -> float:
        return max(0.05, min(self.options.timeout, self._remaining()))

    # -- the run -------------------------------------------------------------------------
    def run(self) -> RunOutcome:
        self._started = time.monotonic() if self.options.started_at is None else self.options.started_at
        generated: dict[str, GeneratedScenarios] = {}
        plan: list[Scenario] = []
        planned: dict[str, int] = {}
        values = discover_values(self.client, self.tools, timeout=self.options.timeout, remaining=self._remaining)
        for tool in self.tools:
            scenarios = generate_for_tool(tool, values)
            if not self.options.edge_cases:
                scenarios = attrs.evolve(scenarios, edge=())
            generated[tool.name] = scenarios
            self.findings.extend(scenarios.findings)
            chosen = scenarios.select(self.options.scenarios_per_tool)
            planned[tool.name] = len(chosen)
            effect = side_effect(tool)  # destructive or writing tools: see fairness.py
            if effect is not None and not self.options.allow_destructive:
                self.skipped[tool.name] = skip_reason(effect)
                self.findings.append(Finding(
                    severity="info", code=f"{effect}-not-called", tool=tool.name,
                    message=f"not called: annotated or named as {'destructive' if effect == 'destructive' else 'writing'}",
                    fix="Run with --allow-destructive against a disposable instance to test it."))
                continue
            plan.extend(chosen)
        self._total = len(plan)
        indexed = list(enumerate(plan))
        suspects = self._concurrent_phase(indexed) if self.options.concurrency > 1 else indexed
        self._sequential_phase(suspects)
        not_run = len(plan) - len(self.results)
        if not_run and self._remaining() <= 0:
            self.findings.append(Finding(
                severity="warning", code="deadline-reached",
                message=f"the {self.options.deadline:g} s deadline ended the run; {not_run} scenario(s) not run",
                fix="Raise --deadline or lower --timeout; the grade covers only the scenarios that ran."))
        if self.options.check_annotations and not self.dead and self._remaining() > 0:
            self._check_annotations(plan)
        ordered = tuple(self.results[i] for i in sorted(self.results))
        self.findings[:0] = aggregate_findings(ordered, self.options)
        return RunOutcome(results=ordered, generated=generated, planned=planned, findings=tuple(self.findings),
                          skipped=dict(self.skipped), not_run=not_run, duration=time.monotonic() - self._started,
                          restarts=self.restarts)

    def _record(self, index: int, result: ScenarioResult) -> None:
        self.results[index] = result
        self._done += 1
        if self.progress is not None:
            self.progress(self._done, self._total)

    def _say(self, text: str) -> None:
        if self.activity is not None:
            self.activity(text)

    def _call(self, scenario: Scenario, position: int | None = None) -> tuple[Any, int]:
        generation = self.generation
        where = f"scenario {position + 1}/{self._total}" if position is not None else "checking its annotations"
        self._say(f"calling tool {scenario.tool} ({where})")
        started = time.monotonic()
        try:
            outcome = self.client.call_tool(scenario.tool, scenario.args, timeout=self._call_timeout())
        except Exception as exc:  # the client broke mid-call: treat it as the server going away
            from toolscore_mcp.session import CallOutcome

            outcome = CallOutcome(error=f"the client failed: {type(exc).__name__}: {exc}",
                                  duration=time.monotonic() - started, crashed=True)
        return outcome, generation

    def _restart(self, seen_generation: int) -> None:
        """Restart once per crash, however many calls noticed it."""
        if seen_generation != self.generation or self.dead:
            return
        if self.restarts >= MAX_RESTARTS:
            self._give_up(f"the server crashed {self.restarts + 1} times; stopped restarting it")
            return
        self._say("restarting the server")
        try:
            restart_client(self.client)
        except Exception as exc:  # a server that no longer starts ends the run, not the program
            self._give_up(f"the server could not be restarted after a crash: {exc}")
            return
        self.restarts += 1
        self.generation += 1

    def _give_up(self, message: str) -> None:
        self.dead = True
        self.findings.append(Finding(severity="error", code="server-unrecoverable", message=message,
                                     fix="Make the server survive bad input: catch errors per call."))

    def _skip_after_timeouts(self, tool: str) -> None:
        if tool not in self.skipped:
            self.skipped[tool] = f"skipped after {self.timeouts[tool]} timeouts"

    def _answers_ping(self) -> bool:
        """Does the server still answer at all? Any answer counts (an error too: ping is
        optional); silence or a dead server within ``ping_timeout`` means it is wedged."""
        from toolscore_mcp.errors import MCPError, MCPServerGone, MCPTimeoutError

        limit = max(0.05, min(self.options.ping_timeout, self.options.timeout, self._remaining()))
        self._say("checking that the server still answers (ping)")
        try:
            self.client.request("ping", {}, timeout=limit)
        except (MCPTimeoutError, MCPServerGone):
            return False
        except MCPError:
            return True
        except Exception:  # the client itself broke: as good as wedged
            return False
        return True

    def _wedged_by(self, tool: str, generation: int) -> bool:
        """After a call of ``tool`` (the only one in flight) timed out: True (finding
        recorded, tool skipped, server restarted) when the server no longer answers ping."""
        if self.dead or generation != self.generation or self._answers_ping():
            return False
        if not any(f.code == WEDGED and f.tool == tool for f in self.findings):
            self.findings.append(Finding(
                severity="error", code=WEDGED, tool=tool,
                message=f"wedged the server: after this call timed out the server answered nothing, not even "
                        f"ping within {self.options.ping_timeout:g} s, until it was restarted",
                fix="Never block the server's only thread: run slow work in a task or thread, bound it with a "
                    "timeout, and keep answering other requests meanwhile."))
        self.skipped[tool] = "skipped: it wedged the server (no answer even to ping)"
        self._restart(generation)
        return True

    def _concurrent_phase(self, plan: list[tuple[int, Scenario]]) -> list[tuple[int, Scenario]]:
        """Run with N calls in flight; return the suspects to re-run alone.

        Timeouts of a single tool are unambiguous (every other call answered) and count at
        once; when calls of several tools timed out, a slow server may have held up its
        neighbours, so those calls are re-run alone to find the culprit.
        """
        queue = deque(plan)
        suspects: list[tuple[int, Scenario]] = []
        timed_out: list[tuple[int, Scenario, Any]] = []
        hung: Counter[str] = Counter()
        in_flight: dict[Future[tuple[Any, int]], tuple[int, Scenario]] = {}
        with ThreadPoolExecutor(max_workers=self.options.concurrency, thread_name_prefix="mcp-test") as pool:
            # After a crash no new call starts, and the restart waits until every call still in
            # flight has come back: a client must never be restarted under a running call.
            crashed_generation: int | None = None
            while queue or in_flight:
                while (crashed_generation is None and len(in_flight) < self.options.concurrency
                       and not self.dead and self._remaining() > 0):
                    picked = self._next_launchable(queue, in_flight, hung, suspects)
                    if picked is None:
                        break
                    in_flight[pool.submit(self._call, picked[1], picked[0])] = picked
                if not in_flight:
                    if crashed_generation is None:
                        break
                    self._restart(crashed_generation)
                    crashed_generation = None
                    continue
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                for future in done:
                    index, scenario = in_flight.pop(future)
                    outcome, generation = future.result()
                    if outcome.crashed:
                        if crashed_generation is None:
                            crashed_generation = generation
                        suspects.append((index, scenario))
                    elif outcome.timed_out and (
                            generation == crashed_generation or (crashed_generation is None and not self._answers_ping())):
                        # Wedged: restart once the calls in flight are back; which call did it is
                        # decided when the suspects are re-run alone.
                        crashed_generation = generation
                        suspects.append((index, scenario))
                    elif outcome.timed_out:
                        hung[scenario.tool] += 1
                        timed_out.append((index, scenario, outcome))
                    else:
                        self._record(index, judge(scenario, outcome, max_result_bytes=self.options.max_result_bytes))
        if len({scenario.tool for _, scenario, _ in timed_out}) == 1:
            for index, scenario, outcome in timed_out:
                self._record(index, judge(scenario, outcome, max_result_bytes=self.options.max_result_bytes))
                self.timeouts[scenario.tool] += 1
                if self.timeouts[scenario.tool] >= self.options.max_timeouts:
                    self._skip_after_timeouts(scenario.tool)
        else:
            suspects.extend((index, scenario) for index, scenario, _ in timed_out)
        suspects.extend(queue)
        return sorted(suspects, key=lambda pair: pair[0])

    def _next_launchable(self, queue: deque[tuple[int, Scenario]], in_flight: dict[Any, tuple[int, Scenario]],
                         hung: Counter[str], suspects: list[tuple[int, Scenario]]) -> tuple[int, Scenario] | None:
        """The next scenario to start: at most ``max_timeouts`` calls of one tool in flight (a
        hanging tool must not fill every slot), and none of a tool that already hung that often
        (those go to the suspects, decided one at a time)."""
        busy = Counter(scenario.tool for _, scenario in in_flight.values())
        position = 0
        while position < len(queue):
            index, scenario = queue[position]
            if hung[scenario.tool] and hung[scenario.tool] + busy[scenario.tool] >= self.options.max_timeouts:
                del queue[position]
                suspects.append((index, scenario))
                continue
            if busy[scenario.tool] < self.options.max_timeouts:
                del queue[position]
                return index, scenario
            position += 1
        return None

    def _sequential_phase(self, plan: list[tuple[int, Scenario]]) -> None:
        for index, scenario in plan:
            if self.dead or self._remaining() <= 0:
                return
            if scenario.tool in self.skipped:
                continue
            outcome, generation = self._call(scenario, index)
            result = judge(scenario, outcome, max_result_bytes=self.options.max_result_bytes)
            self._record(index, result)
            if outcome.crashed:
                self._restart(generation)
            elif outcome.timed_out and self._wedged_by(scenario.tool, generation):
                self.timeouts[scenario.tool] += 1
            elif outcome.timed_out:
                self.timeouts[scenario.tool] += 1
                if self.timeouts[scenario.tool] >= self.options.max_timeouts:
                    self._skip_after_timeouts(scenario.tool)

    # -- annotations ---------------------------------------------------------------------
    def _fingerprint(self, tool: str, args: dict[str, Any]) -> str | None:
        """What a call answered, comparable across calls (None: no usable answer)."""
        if self._remaining() <= 0 or self.dead:
            return None
        outcome, generation = self._call(Scenario(tool, "annotation_check", "happy", "answer", args, ""))
        if outcome.crashed:
            self._restart(generation)
            return None
        if outcome.timed_out:
            self._wedged_by(tool, generation)
            return None
        if outcome.protocol_error:
            return None
        structured = outcome.result.get("structuredContent") if isinstance(outcome.result, dict) else None
        return json.dumps([outcome.is_error, outcome.error, answer_text(outcome.result), structured],
                          sort_keys=True, default=str, ensure_ascii=False)

    def _check_annotations(self, plan: list[Scenario]) -> None:
        first_args: dict[str, dict[str, Any]] = {}
        passing_args: dict[str, dict[str, Any]] = {}
        for index, scenario in enumerate(plan):
            if scenario.category != "happy":
                continue
            first_args.setdefault(scenario.tool, scenario.args)
            result = self.results.get(index)
            if result is not None and result.passed:
                passing_args.setdefault(scenario.tool, scenario.args)
        callable_tools = [t for t in self.tools if t.name in first_args and t.name not in self.skipped]
        for tool in callable_tools:
            if tool.annotations.get("idempotentHint") is True and tool.name in passing_args:
                args = passing_args[tool.name]
                first, second = self._fingerprint(tool.name, args), self._fingerprint(tool.name, args)
                if first is not None and second is not None and first != second:
                    self.findings.append(Finding(
                        severity="warning", code="annotation-idempotent-mismatch", tool=tool.name,
                        message="is annotated idempotentHint, but two identical calls answered differently",
                        evidence=f"arguments {json.dumps(redact(args), default=str)[:120]}",
                        fix="Make repeated identical calls return the same result, or drop idempotentHint."))
        readers = [t for t in callable_tools if t.annotations.get("readOnlyHint") is True][:MAX_READERS_CHECKED]
        probes = [(t.name, passing_args[t.name]) for t in readers if t.name in passing_args]
        for tool in readers:
            if self._remaining() <= 0 or self.dead:
                return
            others = [probe for probe in probes if probe[0] != tool.name][:MAX_READ_PROBES]
            changed = self._changes_made_by(tool, first_args[tool.name], others)
            if changed:
                self.findings.append(Finding(
                    severity="warning", code="annotation-readonly-mutates", tool=tool.name,
                    message=f"is annotated readOnlyHint, but calling it changed what {', '.join(changed)} returns",
                    fix="Remove the side effect, or drop readOnlyHint so clients ask before calling it."))

    def _changes_made_by(self, tool: ToolDefinition, args: dict[str, Any],
                         probes: list[tuple[str, dict[str, Any]]]) -> list[str]:
        """Read tools whose (otherwise stable) answer changed after one call of ``tool``."""
        if not probes:
            return []
        first = [self._fingerprint(*probe) for probe in probes]
        second = [self._fingerprint(*probe) for probe in probes]
        stable = [i for i in range(len(probes)) if first[i] is not None and first[i] == second[i]]
        if not stable:
            return []
        self._fingerprint(tool.name, args)
        after = {i: self._fingerprint(*probes[i]) for i in stable}
        return [probes[i][0] for i in stable if after[i] is not None and after[i] != second[i]]


# -- findings from scenario results ------------------------------------------------------
_HEADLINES: dict[str, tuple[str, str, str]] = {
    # code: (severity, headline, fix)
    "server-crash": ("error", "crashed the server",
                     "Catch exceptions in the handler and answer with isError; one bad call must never take the server down."),
    "tool-timeout": ("error", "did not answer in time",
                     "Bound slow work with a timeout and answer with isError; a tool that never answers stalls the agent."),
    "protocol-violation": ("error", "answered with a protocol violation",
                           "Return a CallToolResult: a 'content' list of typed blocks and a boolean 'isError'."),
    "fails-on-valid-input": ("error", "fails on valid input",
                             "The tool errors on well-formed arguments — check the handler and that the input schema "
                             "matches what the tool actually accepts."),
    "error-reported-as-success": ("warning", "reports an error as success",
                                  "Set isError: true on failed calls so the model knows the call did not work."),
    "accepts-invalid-input": ("warning", "accepts invalid input silently",
                              "Validate arguments against the input schema and refuse bad ones with isError "
                              "(or JSON-RPC -32602) and a short reason the model can act on."),
    "unclean-rejection": ("warning", "rejects invalid input with the wrong error",
                          "Refuse invalid arguments with isError or the JSON-RPC invalid-params error (-32602)."),
    "internal-error": ("warning", "fails with a JSON-RPC error on unusual but valid input",
                       "Handle every schema-valid value (empty, long and non-ASCII strings) and answer cleanly."),
    "oversized-answer": ("warning", "answers with an oversized result",
                         "Paginate or truncate large results; the model pays for every token."),
    INVENTED_REFUSED: ("info", "refused a value toolscore made up, so those calls prove nothing",
                       "Give the parameter an enum, a default or examples (or a read-only tool that lists valid "
                       "values) so clients, models and this test can send a real one."),
}


def aggregate_findings(results: Sequence[ScenarioResult], options: RunOptions) -> list[Finding]:
    """One finding per tool and problem, with the first failure as its evidence."""
    grouped: dict[tuple[str, str], list[ScenarioResult]] = defaultdict(list)
    for result in results:
        if result.problem is not None:
            grouped[(result.scenario.tool, result.problem)].append(result)
    findings: list[Finding] = []
    for (tool, code), failures in grouped.items():
        severity, headline, fix = _HEADLINES.get(code, ("warning", code.replace("-", " "), ""))
        first = failures[0]
        detail = _detail(code, first, options)
        findings.append(Finding(
            severity=severity,  # type: ignore[arg-type]
            code=code, tool=tool, message=f"{headline} ({detail})" if detail else headline,
            # redacted before the cut: a key cut in two would no longer be recognised
            evidence=f"{first.scenario.kind}: {json.dumps(redact(first.scenario.args), default=str, ensure_ascii=False)[:160]}",
            fix=fix, details={"count": len(failures), "scenarios": [f.scenario.kind for f in failures]}))
    for result in results:
        if result.passed and result.duration is not None and result.duration > options.slow_seconds:
            findings.append(Finding(
                severity="info", code="slow-answer", tool=result.scenario.tool,
                message=f"took {result.duration:.1f} s to answer (over {options.slow_seconds:g} s)",
                fix="Make the tool faster or report progress."))
    return findings


def _detail(code: str, result: ScenarioResult, options: RunOptions) -> str:
    if code in ("fails-on-valid-input", INVENTED_REFUSED):
        return _clip(result.error or result.excerpt or result.reason)
    if code == "error-reported-as-success":
        return _clip(result.excerpt or "")
    if code == "tool-timeout":
        return f"no answer within {options.timeout:g} s"
    if code == "oversized-answer":
        return f"{(result.result_bytes or 0):,} bytes"
    if code == "protocol-violation":
        return _clip(result.protocol_error or "")
    return result.scenario.description


def _clip(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
