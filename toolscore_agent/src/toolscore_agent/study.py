"""A study: every cell (task x arm x repetition) of a spec, run once, one row per run.

``run_study(load_agent_spec("study.yaml"), output="runs.jsonl")`` plans the cells, checks
everything that can be checked before money is spent, and then runs the cells, appending
one :class:`~toolscore_core.RunRow` per run as it ends. The decisions, and why:

- **The order is shuffled with the spec's seed** (``random.Random(seed)`` over the cells in
  task, arm, repetition order), so time effects (a provider slowing down, a rate limit in
  the afternoon) spread over every arm instead of landing on the last one, and the same
  seed always gives the same order. ``order`` is a cell's place in that order over the
  whole study, whatever ``--only-task`` or resume leaves out, so the numbers stay stable.
- **Nothing paid starts before the checks pass**: every arm has a price (or unknown prices
  were allowed), every provider name is installed, the server starts once and passes the
  spec's build verification. A problem there is an InputError (exit 2), not a row.
- **Each run gets a fresh server process and a fresh temporary ``run_dir``** (its path
  replaces ``{run_dir}`` in the server's env values), removed afterwards, so nothing a run
  writes can leak into the next. Starting the bundled sample server costs about 50 ms; a
  Streamable HTTP server is one long-lived service, so its state is the user's to reset.
- **One budget for the whole study, shared by every worker.** Its reservations are taken
  before each model call, so N workers together can never pass ``max_usd``. A run the
  budget stopped is written (status ``budget_stopped``), and no new run starts.
- **Rows are written from the worker that ran them, under one lock, through one writer**
  (fsync per row). A run that ends after Ctrl-C is still written: paid work is never lost.
- **Resume**: cells whose latest row is done (completed or limit_reached) are skipped;
  errored and budget-stopped cells run again (they say nothing about the model). Opening
  the writer repairs a torn last line left by a crash. A file holding another study's
  rows is refused, so two studies never mix in one file by accident.
- **Workers are threads**: a run waits on the model and on the server, so threads overlap
  the waiting without pickling a provider or a client into another process.
"""

from __future__ import annotations

import math
import os
import random
import shlex
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import attrs

from toolscore_agent.model import AgentSpec, Arm, ServerSpec, Task
from toolscore_core import (
    Budget,
    BudgetStopped,
    Executor,
    InputError,
    Price,
    RunRow,
    RunWriter,
    ServerRecord,
    TornLine,
    collect,
    estimate_request_tokens,
    make_cell_id,
    price_for,
    read_runs,
    worst_case_usd,
)

#: What ``provider_factory(arm, task)`` returns: a provider (anything with ``complete``).
ProviderFactory = Callable[[Arm, Task], Any]

_ERROR_LIMIT = 2000  # characters of an error message kept in a row


# --- the plan ---------------------------------------------------------------------------------


@attrs.frozen
class Cell:
    """One run to make: a task, an arm, a repetition (from 1) and its place in the order."""

    task: Task
    arm: Arm
    repetition: int
    order: int

    @property
    def cell_id(self) -> str:
        return make_cell_id(self.task.id, self.arm.id, self.repetition)


def plan_cells(spec: AgentSpec) -> tuple[Cell, ...]:
    """Every cell of ``spec`` in its shuffled order (``order`` 1 = first)."""
    cells = [(task, arm, rep) for task in spec.tasks for arm in spec.arms
             for rep in range(1, spec.repetitions + 1)]
    random.Random(spec.seed).shuffle(cells)
    return tuple(Cell(task, arm, rep, order) for order, (task, arm, rep) in enumerate(cells, start=1))


@attrs.frozen
class StudyPlan:
    """What a study will do, known before anything runs (what ``--dry-run`` prints).

    ``cells``: the cells selected (``--only-task`` / ``--only-arm``), in order;
    ``pending``: those still to run; ``skipped``: how many selected cells the output file
    already holds as done. ``prices`` maps an arm id to its price (None: unknown, allowed).
    ``worst_case_usd`` bounds the pending runs (None: unknown; ``inf``: no ``max_turns``).
    ``torn``: a torn last line seen in the output (repaired when the study opens it).
    ``spent_before_usd``: what the rows already in the output cost; a resumed study counts
    it against ``max_usd``, so resuming never lets a study spend its cap twice.
    """

    spec: AgentSpec
    cells: tuple[Cell, ...]
    pending: tuple[Cell, ...]
    skipped: int
    prices: dict[str, Price | None]
    worst_case_usd: float | None
    output: Path | None = None
    allow_unknown_price: bool = False
    torn: TornLine | None = None
    spent_before_usd: float = 0.0

    @property
    def total(self) -> int:
        return self.spec.run_count


def _select(spec: AgentSpec, only_tasks: Iterable[str] | None, only_arms: Iterable[str] | None) -> tuple[
        set[str] | None, set[str] | None]:
    chosen: list[set[str] | None] = []
    for label, wanted, known in (("task", only_tasks, [t.id for t in spec.tasks]),
                                 ("arm", only_arms, [a.id for a in spec.arms])):
        if not wanted:
            chosen.append(None)
            continue
        ids = set(wanted)
        unknown = sorted(ids - set(known))
        if unknown:
            raise InputError(f"--only-{label} {unknown[0]!r} is not a {label} of the study", file=spec.source,
                             location=f"$.{label}s", expected=f"one of: {', '.join(known)}")
        chosen.append(ids)
    return chosen[0], chosen[1]


def arm_price(spec: AgentSpec, arm: Arm, index: int, *, allow_unknown_price: bool) -> Price | None:
    """The arm's price: the spec's pricing, else the price table; unknown refused unless allowed."""
    price = arm.price or price_for(arm.model, provider=arm.provider)
    if price is None and not (allow_unknown_price or spec.budget.allow_unknown_price):
        raise InputError(
            f"arm {arm.id!r}: model {arm.model!r} has no known price, so its cost and the budget "
            "cannot be checked", file=spec.source, location=f"$.arms[{index}].model",
            expected="a model in Toolscore's price table, or pricing for it in the spec",
            hint=f"Add pricing: {{{arm.model}: {{input_per_million: N, output_per_million: N}}}} to the spec, "
            "or allow it with budget.allow_unknown_price: true (--allow-unknown-price); its cost is then null")
    return price


def run_worst_case_usd(spec: AgentSpec, arm: Arm, task: Task, price: Price | None) -> float | None:
    """What one run can cost at most, from what the spec says (``inf`` without ``max_turns``).

    Each of ``max_turns`` calls is priced as its request (system prompt, the task, every
    earlier answer at ``max_output_tokens``) plus a full answer. Tool definitions and
    results are not known before the server runs, so this plans the study; the budget checks
    the real worst case before every call. A free price bounds everything at 0.
    """
    if price is None:
        return None
    if price.input_per_million == 0 and price.output_per_million == 0:
        return 0.0
    if spec.limits.max_turns is None:
        return math.inf
    output = arm.max_output_tokens
    if output is None:
        return None
    total = 0.0
    for turn in range(1, spec.limits.max_turns + 1):
        request = estimate_request_tokens({"system": arm.system, "prompt": task.prompt},
                                          message_count=2 * turn - 1) + (turn - 1) * output
        total += worst_case_usd(request, output, price) or 0.0
    return total


def _sum_worst(values: Iterable[float | None]) -> float | None:
    total = 0.0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def plan_study(spec: AgentSpec, output: str | os.PathLike[str] | None = None, *,
               only_tasks: Iterable[str] | None = None, only_arms: Iterable[str] | None = None,
               allow_unknown_price: bool = False) -> StudyPlan:
    """The cells, prices and worst case of a study; reads ``output`` (never changes it)."""
    tasks, arms = _select(spec, only_tasks, only_arms)
    prices = {arm.id: arm_price(spec, arm, i, allow_unknown_price=allow_unknown_price)
              for i, arm in enumerate(spec.arms)}
    cells = tuple(c for c in plan_cells(spec)
                  if (tasks is None or c.task.id in tasks) and (arms is None or c.arm.id in arms))
    path = Path(output) if output is not None else None
    found = _read_output(spec, path)
    pending = tuple(c for c in cells if c.cell_id not in found.done)
    worst = _sum_worst(run_worst_case_usd(spec, c.arm, c.task, prices[c.arm.id]) for c in pending)
    return StudyPlan(spec=spec, cells=cells, pending=pending, skipped=len(cells) - len(pending), prices=prices,
                     worst_case_usd=worst, output=path, torn=found.torn, spent_before_usd=found.spent_usd,
                     allow_unknown_price=allow_unknown_price or spec.budget.allow_unknown_price)


@attrs.frozen
class _Output:
    done: frozenset[str] = frozenset()
    torn: TornLine | None = None
    spent_usd: float = 0.0


def _read_output(spec: AgentSpec, path: Path | None) -> _Output:
    """What ``path`` already holds: the cells whose latest row is done, a torn last line,
    and the dollars its rows cost (every row: an errored run was paid too). A row of
    another study is refused."""
    if path is None or not path.exists() or path.is_dir():
        return _Output()
    torn: list[TornLine] = []
    status: dict[str, bool] = {}
    spent = 0.0
    for row in read_runs(path, on_torn=torn.append):
        if row.study is not None and row.study != spec.name:
            raise InputError(f"holds rows of study {row.study!r}, not of {spec.name!r} (cell {row.cell_id})",
                             file=path, hint="Write this study to another file with -o")
        status[row.cell_id] = row.done
        spent += row.cost_usd or 0.0
    return _Output(frozenset(cell for cell, finished in status.items() if finished), torn[0] if torn else None,
                   spent)


# --- the result -------------------------------------------------------------------------------


@attrs.frozen
class StudyProgress:
    """Where a study is, passed to ``on_run`` after each row: runs done of ``total`` (this
    invocation), dollars spent (unknown costs at their worst case) and the cap."""

    done: int
    total: int
    spent_usd: float
    max_usd: float | None


@attrs.frozen
class StudyResult:
    """What one invocation did: its ``rows`` (in the order they were written), the number of
    cells ``skipped`` because the output already held them, outcome counts per arm, the
    dollars spent, and whether the budget stopped the study (exit code 3)."""

    plan: StudyPlan
    rows: tuple[RunRow, ...]
    skipped: int
    spent_usd: float
    budget_stopped: bool = False
    has_unknown_costs: bool = False
    repair: TornLine | None = None
    dry_run: bool = False

    @property
    def outcomes(self) -> dict[str, dict[str, int]]:
        """``{arm_id: {"pass": n, "fail": n, "error": n, "unknown": n}}``, every arm listed."""
        counts = {arm.id: dict.fromkeys(("pass", "fail", "error", "unknown"), 0) for arm in self.plan.spec.arms}
        for row in self.rows:
            counts.setdefault(row.arm_id, dict.fromkeys(("pass", "fail", "error", "unknown"), 0))[row.outcome] += 1
        return counts

    @property
    def exit_code(self) -> int:
        """3 budget stopped; 1 a run failed or errored; 0 every run passed or is unknown."""
        if self.budget_stopped:
            return 3
        return 1 if any(row.outcome in ("fail", "error") for row in self.rows) else 0


# --- servers ----------------------------------------------------------------------------------


def _client(server: ServerSpec, run_dir: str, base_dir: Path | None, launcher: Any = None) -> Any:
    """A client (not started) for the spec's server, ``{run_dir}`` filled in its env.

    ``launcher`` (a ``toolscore_mcp.warm_start.WarmLauncher``) forks ``python -m`` servers
    instead of starting a new interpreter for each run; other commands ignore it.
    """
    from toolscore_mcp.client import open_client

    options: dict[str, Any] = {"timeout": server.timeout, "era": server.protocol}
    if server.url is not None:
        return open_client(server.url, header_env=dict(server.header_env), **options)
    if server.config is not None:
        config = Path(server.config)
        if base_dir is not None and not config.is_absolute():
            config = base_dir / config
        return open_client(None, config=config, server=server.name, **options)
    env = {name: value.replace("{run_dir}", run_dir) for name, value in server.env.items()}
    if launcher is not None:
        options["launcher"] = launcher
    return open_client(server_argv(server.command), env=env or None, cwd=server.cwd, **options)


def _warm_launcher(server: ServerSpec) -> Any:
    """A warm-start launcher when the server qualifies (see ``toolscore_mcp.warm_start``).

    Why: a fresh Python interpreter per run costs more CPU than a scripted run itself (about
    30 ms against 8 ms); with it, the sample server's whole run costs about 11 ms of CPU
    instead of 45 (bench/RESULTS.md).
    Only worth its own start-up (one interpreter, once) when the study starts several
    servers, and only for ``python -m`` commands with no ``PYTHON*`` change in ``env``.
    """
    if not server.warm_start or server.command is None or server.url is not None:
        return None
    from toolscore_mcp.warm_start import WarmLauncher, warm_module

    env = {name: value for name, value in server.env.items() if "{run_dir}" not in value}
    if warm_module(server_argv(server.command), {**os.environ, **env}) is None:
        return None
    try:
        return WarmLauncher()
    except OSError:  # cannot start the zygote: every run starts its server the ordinary way
        return None


def server_argv(command: str | tuple[str, ...] | None) -> list[str]:
    """The server's command line, with a bare ``python``/``python3`` meaning this Python.

    A spec written as ``python -m my_server`` means "the Python Toolscore runs in" (where the
    user installed their server's dependencies); on many machines a bare ``python`` is not on
    PATH at all, or is another interpreter. Any other program is left as written.
    """
    argv = shlex.split(command) if isinstance(command, str) else list(command or ())
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def _server_record(server: ServerSpec, client: Any, build_check: dict[str, Any] | None) -> ServerRecord:
    info = getattr(client, "server_info", None) or {}
    argv = getattr(client, "argv", None)
    if argv is None and isinstance(server.command, str) and server.url is None:
        argv = shlex.split(server.command)
    return ServerRecord(
        transport=getattr(client, "transport", None), command=tuple(argv) if argv is not None else None,
        url=getattr(client, "url", None), env_names=tuple(server.env),
        name=_str(info.get("name")), version=_str(info.get("version")),
        protocol_version=getattr(client, "protocol_version", None), era=getattr(client, "era", None),
        build_check=build_check)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _preflight_server(spec: AgentSpec, base_dir: Path | None) -> dict[str, Any] | None:
    """Start the server once and run the spec's build verification; return the build check.

    A server that does not start, or a build that is not the one the spec names, ends the
    study here with an InputError, before any model call.
    """
    from toolscore_agent import verify

    with tempfile.TemporaryDirectory(prefix="toolscore-preflight-") as run_dir:
        client = _client(spec.server, run_dir, base_dir)
        with client:
            client.list_tools()
            return verify.verify_server(spec.verify, client, cwd=str(base_dir) if base_dir is not None else None)


# --- one run ----------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _short(text: Any) -> str:
    value = str(text)
    return value if len(value) <= _ERROR_LIMIT else value[: _ERROR_LIMIT - 3] + "..."


@attrs.define
class _Runner:
    """Everything a run needs that is the same for every run of the study."""

    spec: AgentSpec
    plan: StudyPlan
    budget: Any  # a Budget, or a shared one (BudgetLike)
    guard: Any
    provider_factory: ProviderFactory
    build_check: dict[str, Any] | None
    base_dir: Path | None
    launcher: Any = None

    def run(self, cell: Cell) -> RunRow:
        """Run one cell against a fresh server in a fresh run_dir; always a row, unless the
        spec itself is wrong (an InputError that is not the server's: it stops the study)."""
        from toolscore_agent.loop import run_agent
        from toolscore_agent.outcome import grade_run, run_calls, run_denials
        from toolscore_mcp.client import MCPError

        arm, task = cell.arm, cell.task
        price = self.plan.prices[arm.id]
        started = _now()
        base: dict[str, Any] = {"task_id": task.id, "arm_id": arm.id, "repetition": cell.repetition, "order": cell.order,
                "seed": self.spec.seed, "study": self.spec.name, "provider": arm.provider, "model": arm.model,
                "price": price, "started_at": started, "toolscore_version": _version()}
        run_dir = tempfile.mkdtemp(prefix="toolscore-run-")
        client = None
        try:
            provider = self.provider_factory(arm, task)
            client = _client(self.spec.server, run_dir, self.base_dir, self.launcher)
            try:
                client.start()
                client.initialize()
            except (MCPError, OSError) as exc:
                return RunRow(**base, status="error", outcome="error", finished_at=_now(),
                              server=_server_record(self.spec.server, client, self.build_check),
                              error=_short(f"the server did not start: {exc}"), turns=0)
            try:
                run = run_agent(client, provider, task.prompt, system=arm.system, guard=self.guard,
                                budget=self.budget, price=price, limits=self.spec.limits,
                                max_output_tokens=arm.max_output_tokens, extra=dict(arm.extra) or None,
                                task=task, cell_id=cell.cell_id)
            except BudgetStopped as exc:
                return RunRow(**base, status="budget_stopped", outcome="error", finished_at=_now(),
                              server=_server_record(self.spec.server, client, self.build_check),
                              error=_short(exc))
            grade = grade_run(run, task)
            return RunRow(
                **base, status=run.status, outcome=grade.outcome, finished_at=_now(), turns=run.turns,
                usage=run.usage, cost_usd=run.cost_usd,
                server=_server_record(self.spec.server, client, self.build_check),
                final_answer=run.final_answer, calls=run_calls(run), guard_denials=run_denials(run),
                evaluation=grade.evaluation,
                error=_short(run.error) if run.error else None,
                extra={"retries": run.retries} if getattr(run, "retries", None) else {})
        finally:
            if client is not None:
                client.close()
            shutil.rmtree(run_dir, ignore_errors=True)


def _version() -> str:
    from toolscore_agent import __version__

    return __version__


def default_provider_factory(spec: AgentSpec, pm: Any = None) -> ProviderFactory:
    """Providers from the ``providers`` registry, made with the arm's settings; a scripted
    arm gets the task's script for it. Unknown provider names fail here, before any run."""
    from toolscore_core import get_plugin_manager

    registry = collect(pm if pm is not None else get_plugin_manager(), "providers")
    for index, arm in enumerate(spec.arms):
        if arm.provider not in registry:
            try:
                registry.get(arm.provider)
            except InputError as exc:
                raise InputError(f"arm {arm.id!r}: {exc.message}", file=spec.source,
                                 location=f"$.arms[{index}].provider", expected=exc.expected,
                                 hint="Install the provider's distribution (pip install toolscore-providers)"
                                 ) from None

    for index, task in enumerate(spec.tasks):  # a missing script would only show mid-study
        for arm in spec.arms:
            if arm.provider == "scripted" and task.script_for(arm.id) is None:
                raise InputError(f"task {task.id!r} has no script for the scripted arm {arm.id!r}",
                                 file=spec.source, location=f"$.tasks[{index}].script",
                                 hint=f"Add script: [...] to the task, or script: {{{arm.id}: [...]}}")

    def factory(arm: Arm, task: Task) -> Any:
        settings: dict[str, Any] = {"model": arm.model, "base_url": arm.base_url, "api_key_env": arm.api_key_env}
        if arm.provider == "scripted":
            settings["script"] = task.script_for(arm.id)
        return registry.create(arm.provider, **settings)

    return factory


# --- the study --------------------------------------------------------------------------------


def run_study(spec: AgentSpec, output: str | os.PathLike[str] | None = None, *,
              provider_factory: ProviderFactory | None = None, workers: int = 1,
              only_tasks: Iterable[str] | None = None, only_arms: Iterable[str] | None = None,
              allow_unknown_price: bool = False, dry_run: bool = False,
              on_run: Callable[[RunRow, StudyProgress], None] | None = None, pm: Any = None,
              plan: StudyPlan | None = None, budget: Budget | None = None,
              executor: str | None = None, executor_options: Mapping[str, Any] | None = None) -> StudyResult:
    """Run every pending cell of ``spec`` and append a row per run to ``output``.

    ``provider_factory(arm, task)`` makes the provider of a run (default: the providers
    registry); ``on_run(row, progress)`` hears about each row as it is written (from the
    worker's thread, one at a time). ``dry_run`` plans and returns without starting
    anything. ``plan`` reuses a plan made by :func:`plan_study` with the same arguments;
    ``budget`` replaces the spec's (a budget shared with something else). ``executor``
    names an executor of the kernel's kind to run the cells (see :func:`study_executor`);
    ``None`` keeps the study's own thread pool. ``executor_options`` are more settings for its
    factory (``{"address": "auto"}`` for Ray).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be a whole number of at least 1, not {workers!r}")
    chosen = study_executor(executor, workers, pm, **(executor_options or {})) if executor is not None else None
    try:
        return _run_study(spec, output, chosen, provider_factory=provider_factory, workers=workers,
                          only_tasks=only_tasks, only_arms=only_arms, allow_unknown_price=allow_unknown_price,
                          dry_run=dry_run, on_run=on_run, pm=pm, plan=plan, budget=budget)
    finally:
        if chosen is not None:
            chosen.close()


def _run_study(spec: AgentSpec, output: str | os.PathLike[str] | None, chosen: Any, *,
               provider_factory: ProviderFactory | None, workers: int, only_tasks: Iterable[str] | None,
               only_arms: Iterable[str] | None, allow_unknown_price: bool, dry_run: bool,
               on_run: Callable[[RunRow, StudyProgress], None] | None, pm: Any, plan: StudyPlan | None,
               budget: Any) -> StudyResult:
    """:func:`run_study` once its executor is chosen (``None``: the study's own threads)."""
    remote = chosen is not None and not chosen.in_process
    if plan is None:
        plan = plan_study(spec, output, only_tasks=only_tasks, only_arms=only_arms,
                          allow_unknown_price=allow_unknown_price)
    if dry_run:
        return StudyResult(plan=plan, rows=(), skipped=plan.skipped, spent_usd=0.0, dry_run=True)
    from toolscore_agent.guards import build_guard
    from toolscore_agent.spec import spec_base_dir

    base_dir = spec_base_dir(spec)
    factory = provider_factory or default_provider_factory(spec, pm)
    guard = build_guard(spec.guard, base_dir, file=spec.source, pm=pm)
    build_check = _preflight_server(spec, base_dir)
    if remote:
        from toolscore_agent.remote_cells import check_factory_picklable

        if provider_factory is not None:
            check_factory_picklable(provider_factory, chosen.name)
        if budget is not None:
            raise InputError(f"a budget passed to run_study cannot be shared with the worker processes of "
                             f"executor {chosen.name}", hint="Leave budget unset (the executor makes a shared "
                             "one from the spec), or use an in-process executor (executor='thread')")
        budget = chosen.shared_budget(spec.budget.max_usd, allow_unknown_price=plan.allow_unknown_price,
                                      spent_usd=plan.spent_before_usd)
    elif budget is None:
        budget = Budget(max_usd=spec.budget.max_usd, allow_unknown_price=plan.allow_unknown_price)
        if plan.spent_before_usd > 0:  # what earlier invocations spent counts against the cap
            budget.settle(budget.reserve(0.0), plan.spent_before_usd)
    writer = RunWriter(plan.output) if plan.output is not None else None
    launcher = None
    try:
        pending = plan.pending
        if writer is not None and writer.repair is not None:  # the file changed under the plan
            done = _read_output(spec, plan.output).done
            pending = tuple(c for c in plan.cells if c.cell_id not in done)
        _load_metrics(pm)
        launcher = _warm_launcher(spec.server) if len(pending) > 1 and not remote else None
        runner = _Runner(spec, plan, budget, guard, factory, build_check, base_dir, launcher)
        if remote:
            from toolscore_agent.remote_cells import CellJob, run_cell_job

            token = os.urandom(8).hex()
            rows, stopped = _execute_on(
                chosen, run_cell_job, lambda cell: CellJob(token, plan, cell, budget, build_check, base_dir,
                                                           provider_factory),
                budget, pending, writer, on_run, release=True)
        elif chosen is not None:
            rows, stopped = _execute_on(chosen, _in_process(runner), lambda cell: cell, budget, pending, writer,
                                        on_run)
        else:
            rows, stopped = _execute(runner, pending, workers, writer, on_run)
        spent, unknown = budget.spent_usd, budget.has_unknown_costs  # before a shared ledger closes
    finally:
        if launcher is not None:
            launcher.close()
        if writer is not None:
            writer.close()
    return StudyResult(plan=plan, rows=tuple(rows), skipped=len(plan.cells) - len(pending),
                       spent_usd=spent, budget_stopped=stopped, has_unknown_costs=unknown,
                       repair=writer.repair if writer is not None else None)


def _load_metrics(pm: Any) -> None:
    """Load the metrics plugins once, here, before the worker threads score runs.

    The plugin manager loads a group on first use and marks it loaded before it finishes,
    so two threads scoring their first run at once could see an empty metrics registry.
    """
    from toolscore_core import get_plugin_manager

    for manager in {id(m): m for m in (get_plugin_manager(), pm) if m is not None}.values():
        collect(manager, "metrics")


class _Rows:
    """The finished rows of one study invocation, written as they come in.

    One place for what every way of running cells does with a row: append it to the output,
    keep it, stop starting new runs once the budget stopped one, and tell ``on_run``. Callers
    with several threads hold their lock around :meth:`keep`.
    """

    def __init__(self, total: int, budget: Any, writer: RunWriter | None,
                 on_run: Callable[[RunRow, StudyProgress], None] | None) -> None:
        self.rows: list[RunRow] = []
        self.stop = threading.Event()
        self._total, self._budget, self._writer, self._on_run = total, budget, writer, on_run

    def keep(self, row: RunRow) -> None:
        if self._writer is not None:
            self._writer.write(row)
        self.rows.append(row)
        if row.status == "budget_stopped":
            self.stop.set()
        if self._on_run is not None:
            budget = self._budget
            self._on_run(row, StudyProgress(len(self.rows), self._total, budget.spent_usd, budget.max_usd))

    def result(self) -> tuple[list[RunRow], bool]:
        return self.rows, any(row.status == "budget_stopped" for row in self.rows)


def _execute(runner: _Runner, cells: tuple[Cell, ...], workers: int, writer: RunWriter | None,
             on_run: Callable[[RunRow, StudyProgress], None] | None) -> tuple[list[RunRow], bool]:
    """Run ``cells`` on ``workers`` threads; stop starting runs once the budget stopped one."""
    lock = threading.Lock()
    kept = _Rows(len(cells), runner.budget, writer, on_run)
    stop = kept.stop

    def one(cell: Cell) -> None:
        if stop.is_set():
            return
        row = runner.run(cell)
        with lock:
            kept.keep(row)

    queue: Iterator[Cell] = iter(cells)
    failure: BaseException | None = None
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="toolscore-run")
    try:
        running: set[Future[None]] = set()
        while True:
            while not stop.is_set() and len(running) < workers:
                cell = next(queue, None)
                if cell is None:
                    break
                running.add(pool.submit(one, cell))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                error = future.exception()
                if error is not None and failure is None:
                    failure = error  # a bad spec or a bug: let the runs in flight finish, then raise
                    stop.set()
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
    if failure is not None:
        raise failure
    return kept.result()


def study_executor(name: str, workers: int, pm: Any = None, **settings: Any) -> Any:
    """The executor called ``name`` for a study's cells, or an InputError saying why not.

    Every model call of a study reserves its worst case in one budget first, so N workers
    together never pass ``max_usd``. An in-process executor (``thread``) shares the study's
    budget as it is; one whose workers are other processes (``local``, Ray) must hand out a
    budget every worker reserves in (:meth:`Executor.shared_budget`), and one that cannot is
    refused here, before anything runs (see docs/guide/bulk.md, "A budget across workers").
    """
    from toolscore_core import get_executor

    chosen = get_executor(name, pm=pm, workers=workers, **settings)
    if not chosen.in_process and type(chosen).shared_budget is Executor.shared_budget:
        chosen.close()
        raise InputError(f"executor {name} cannot share a budget across its workers, so it cannot run a "
                         "study (the max_usd cap would no longer hold)",
                         hint="Use --executor thread or --executor local with --workers N")
    return chosen


def _in_process(runner: _Runner) -> Callable[[Cell], Any]:
    """The function an in-process executor runs per cell: the runner itself, its exceptions
    returned as values so the driver re-raises the original one."""
    from toolscore_agent.remote_cells import CellFailed

    def one(cell: Cell) -> RunRow | CellFailed:
        try:
            return runner.run(cell)
        except Exception as exc:  # returned, not raised: the executor would turn it into text
            return CellFailed(exc)

    return one


def _execute_on(executor: Any, fn: Callable[[Any], Any], item_for: Callable[[Cell], Any], budget: Any,
                cells: tuple[Cell, ...], writer: RunWriter | None,
                on_run: Callable[[RunRow, StudyProgress], None] | None, *,
                release: bool = False) -> tuple[list[RunRow], bool]:
    """Run ``cells`` through an executor of the kernel's kind; this thread writes every row.

    The same rules as :func:`_execute`: no new run starts once the budget stopped one or a
    run raised, and the first exception is raised after the runs in flight have ended.
    Results are keyed by cell id, so an executor that ran a cell twice writes one row. With
    ``release`` (a shared budget), each cell's holds still open when its result arrives (a
    worker that died mid-call) are settled at worst case: unknown is never free.
    """
    from toolscore_agent.remote_cells import CellFailed

    kept = _Rows(len(cells), budget, writer, on_run)
    stop = kept.stop
    failure: BaseException | None = None
    seen: set[Any] = set()

    def feed() -> Iterator[tuple[str, Any]]:
        for cell in cells:
            if stop.is_set():
                return
            yield cell.cell_id, item_for(cell)

    for result in executor.run(fn, feed()):
        if release:
            budget.release_owner(result.key)
        value = result.value
        if isinstance(value, CellFailed) or result.error is not None:
            if failure is None:
                error = result.error
                failure = value.error if isinstance(value, CellFailed) else RuntimeError(
                    f"cell {result.key}: {error.type if error else 'Error'}: {error.message if error else ''}")
            stop.set()
            continue
        if not isinstance(value, RunRow) or result.key in seen:
            continue
        seen.add(result.key)
        kept.keep(value)
    if failure is not None:
        raise failure
    return kept.result()


__all__ = [
    "Cell",
    "ProviderFactory",
    "StudyPlan",
    "StudyProgress",
    "StudyResult",
    "arm_price",
    "default_provider_factory",
    "plan_cells",
    "plan_study",
    "run_study",
    "run_worst_case_usd",
    "study_executor",
]
