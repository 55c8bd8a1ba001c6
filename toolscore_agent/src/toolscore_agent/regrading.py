"""Regrade: score the recorded runs of a study again with a new spec's expectations.

A study costs money; its expectations are a guess that improves. When a team tightens
``min_score``, adds a forbidden call or finds a wrong expected argument, the recorded calls
already say what each model did, so the new verdicts need no model and no server: this
module reads each row's calls, guard denials, final answer and status and grades them with
:func:`toolscore_agent.outcome.grade_run`, the function the harness used when the run
ended. Regrading with the spec that wrote the rows therefore changes nothing.

Decisions a user can rely on:

- **Every row is kept, in order.** A row whose task the new spec does not have is written
  unchanged and counted by task id, never dropped: a dropped row would silently shrink a
  population ``compare`` reports on. A run stopped before it could be graded (the server
  did not start, the budget stopped it) has no evaluation and stays ``error``.
- **Unknown stays unknown.** A call whose result was not recorded (timed out, lost) is
  evidence ``unknown``, never success, so a required call that was never confirmed cannot
  pass under any spec that requires it; the row's ``evaluation.checks`` keeps each check
  ``true``, ``false`` or ``null``.
- **Credentials found when the run ran are kept.** Rows hold redacted arguments, so a
  regrade cannot see a leaked key again; the row's recorded ``credentials`` block stays.
- **The input is never touched.** Rows go to a new file written next to the output and
  renamed over it only when complete (a crash leaves the old output or none, never half).
  The output may not be the input, and an existing output must be a runs file.
- **Rows stream**: one row in memory at a time, plus the list of changed outcomes.
- **A pass no recorded result confirms is listed.** Under ``require_completed: false`` a
  required call that timed out counts as asked, so the row can pass while its ``honest``
  check stays unknown (null); such cells are reported as unconfirmed passes, not hidden.

Each regraded row records ``extra.regrade``: the new spec's name and the outcome before.

The module is ``regrading``, not ``regrade``: a submodule named like the package's
``regrade`` function would replace that name on the package once imported.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from toolscore_agent.model import AgentSpec, Task
from toolscore_core import InputError, RunRow


@attrs.frozen
class OutcomeChange:
    """One row whose outcome the new spec changed, and why (the new grade's reasons)."""

    cell_id: str
    old: str
    new: str
    reasons: tuple[str, ...] = ()

    def describe(self) -> str:
        """``cell: old -> new (why)`` for the per-run line."""
        why = "; ".join(self.reasons) if self.reasons else "every check now holds"
        return f"{self.cell_id}: {self.old} -> {self.new} ({why})"

    def to_dict(self) -> dict[str, Any]:
        return {"cell_id": self.cell_id, "old": self.old, "new": self.new, "reasons": list(self.reasons)}


@attrs.frozen
class RegradeResult:
    """What a regrade did: rows read, regraded and changed, tasks the spec lacks, the
    outcome counts before and after, and where the rows went (None: nothing written)."""

    spec_name: str
    rows: int
    regraded: int
    not_graded: int
    changes: tuple[OutcomeChange, ...]
    missing_tasks: dict[str, int]
    before: dict[str, int]
    after: dict[str, int]
    output: Path | None = None
    torn: str | None = None
    unconfirmed: tuple[str, ...] = ()  # cells that pass now although a call's result is unknown

    @property
    def missing_rows(self) -> int:
        return sum(self.missing_tasks.values())

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec_name, "rows": self.rows, "regraded": self.regraded,
                "not_graded": self.not_graded, "changed": len(self.changes),
                "changes": [c.to_dict() for c in self.changes],
                "missing_tasks": dict(self.missing_tasks), "missing_rows": self.missing_rows,
                "outcomes_before": dict(self.before), "outcomes_after": dict(self.after),
                "output": str(self.output) if self.output is not None else None, "torn": self.torn,
                "unconfirmed_passes": list(self.unconfirmed)}


def _spec(spec: AgentSpec | str | os.PathLike[str] | Mapping[str, Any]) -> AgentSpec:
    if isinstance(spec, AgentSpec):
        return spec
    from toolscore_agent.spec import load_agent_spec

    return load_agent_spec(spec)


def regrade_row(row: RunRow, task: Task, spec_name: str) -> RunRow:
    """``row`` graded against ``task``: new outcome and evaluation, everything else as recorded."""
    if row.evaluation is None and row.status in ("error", "budget_stopped"):
        return row
    from toolscore_agent.outcome import grade_run

    grade = grade_run(row, task)
    evaluation = dict(grade.evaluation)
    recorded = (row.evaluation or {}).get("credentials")
    if isinstance(recorded, dict):
        evaluation["credentials"] = recorded
    extra = {**row.extra, "regrade": {"spec": spec_name, "previous_outcome": row.outcome}}
    return attrs.evolve(row, outcome=grade.outcome, passed=grade.passed, evaluation=evaluation, extra=extra)


def unconfirmed_pass(row: RunRow) -> bool:
    """A pass that rests on a call whose result was never recorded (``checks.honest`` unknown).

    Only a task with ``require_completed: false`` can pass such a row: it says asking for a
    call is what counts, so a required call that timed out still counts as asked. The pass
    is what the spec says, so it stands; it is listed so a user can see which passes no
    recorded result confirms (``--json``: ``unconfirmed_passes``).
    """
    checks = (row.evaluation or {}).get("checks")
    return row.outcome == "pass" and isinstance(checks, dict) and checks.get("honest", False) is None


def _check_output(rows_path: Path, output: Path) -> None:
    """Refuse to write over the input, a directory, or a file that is not a runs file."""
    if output.exists() and output.samefile(rows_path):
        raise InputError("the output is the input file; regrade never overwrites the rows it reads",
                         file=output, hint="Write the regraded rows to another file with -o")
    if output.is_dir():
        raise InputError("the output is a directory", file=output, hint="Give a file name with -o")
    if not output.parent.is_dir():
        raise InputError("the output's directory does not exist", file=output,
                         hint="Create the directory first, or choose another -o")
    if output.exists() and output.stat().st_size:
        from toolscore_core.kernel.readlimits import max_file_bytes

        limit = max_file_bytes()
        with output.open("rb") as handle:
            first = handle.readline(limit + 1)  # a first line past the cap is no runs file's: not read whole
        try:
            data = json.loads(first) if len(first) <= limit else None
        except ValueError:
            data = None
        if not (isinstance(data, dict) and "run_record_version" in data):
            raise InputError("the output exists and is not a runs file, so regrade will not replace it",
                             file=output, hint="Choose a new file name with -o")


def regrade(rows_path: str | os.PathLike[str], spec: AgentSpec | str | os.PathLike[str] | Mapping[str, Any],
            output: str | os.PathLike[str] | None = None) -> RegradeResult:
    """Grade every row of ``rows_path`` again with ``spec``'s tasks; write them to ``output``.

    ``spec`` is an AgentSpec or a spec file (only its tasks are used: no server starts, no
    model is called). ``output=None`` only reports. Raises InputError for a missing or bad
    runs file, a bad spec, or an output that is the input.
    """
    from toolscore_core import RunWriter, read_runs

    source = Path(rows_path)
    if not source.is_file():
        raise InputError("the runs file does not exist" if not source.exists() else "the runs file is not a file",
                         file=source, hint="Pass the JSONL file a study wrote (toolscore agent run -o FILE)")
    study = _spec(spec)
    tasks = {task.id: task for task in study.tasks}
    target = Path(output) if output is not None else None
    if target is not None:
        _check_output(source, target)
    torn: list[str] = []
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    changes: list[OutcomeChange] = []
    unconfirmed: list[str] = []
    rows = regraded = not_graded = 0
    temp = target.with_name(f".{target.name}.regrade-{os.getpid()}.tmp") if target is not None else None
    writer = RunWriter(temp) if temp is not None else None
    try:
        for row in read_runs(source, on_torn=lambda t: torn.append(t.describe())):
            rows += 1
            before[row.outcome] += 1
            task = tasks.get(row.task_id)
            if task is None:
                missing[row.task_id] += 1
                new = row
            else:
                new = regrade_row(row, task, study.name)
                if new is row:
                    not_graded += 1
                else:
                    regraded += 1
                if new.outcome != row.outcome:
                    reasons = tuple((new.evaluation or {}).get("outcome_reasons") or ())
                    changes.append(OutcomeChange(row.cell_id, row.outcome, new.outcome, reasons))
            after[new.outcome] += 1
            if task is not None and new is not row and unconfirmed_pass(new):
                unconfirmed.append(new.cell_id)
            if writer is not None:
                writer.write(new)
        if writer is not None:
            writer.close()
            assert temp is not None and target is not None
            os.replace(temp, target)
    finally:
        if writer is not None and not writer.closed:
            writer.close()
        if temp is not None and temp.exists():
            temp.unlink()
    return RegradeResult(spec_name=study.name, rows=rows, regraded=regraded, not_graded=not_graded,
                         changes=tuple(changes), missing_tasks=dict(missing), before=dict(before),
                         after=dict(after), output=target, torn=torn[0] if torn else None,
                         unconfirmed=tuple(unconfirmed))


__all__ = ["OutcomeChange", "RegradeResult", "regrade", "regrade_row", "unconfirmed_pass"]
