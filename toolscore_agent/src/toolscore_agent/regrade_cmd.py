"""``toolscore regrade``: a study's recorded runs graded again with a new spec, nothing run.

Exit codes: 0 the rows were regraded (whether or not an outcome changed: a change is the
answer the user asked for, not a failure); 1 with ``--fail-on-change`` when any outcome
changed (for CI: "the new expectations must not move a verdict"); 2 a bad runs file, spec
or output. The work is
:func:`toolscore_agent.regrading.regrade`; this module only prints it. Every line that shows
text from a row (cell ids, reasons quoting a model's answer) goes through ``safe_text`` so
a recorded answer cannot drive the terminal.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from toolscore_core import run_command

if TYPE_CHECKING:
    from toolscore_agent.regrading import RegradeResult

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
#: Most changed runs listed one per line; the rest are counted (``--json`` lists all).
MAX_LISTED = 50


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {counts.get(name, 0)}" for name in ("pass", "fail", "error", "unknown"))


def summary_lines(result: RegradeResult) -> list[str]:
    """The human report of a :class:`~toolscore_agent.regrading.RegradeResult`."""
    from toolscore_core.reports.text import safe_text

    lines = [f"regrade with spec {safe_text(result.spec_name)}: {result.rows} row(s), {result.regraded} regraded, "
             f"{len(result.changes)} changed outcome"]
    if result.torn:
        lines.append(f"  note: {safe_text(result.torn, limit=400)}")
    for change in result.changes[:MAX_LISTED]:
        lines.append(f"  {safe_text(change.describe(), limit=400)}")
    if len(result.changes) > MAX_LISTED:
        lines.append(f"  ... and {len(result.changes) - MAX_LISTED} more (--json lists every change)")
    for task_id, count in sorted(result.missing_tasks.items()):
        lines.append(f"  task {safe_text(task_id)!r} is not in the new spec: {count} row(s) kept unchanged")
    if result.unconfirmed:
        lines.append(f"  {len(result.unconfirmed)} pass(es) rest on a call whose result was not recorded "
                     "(require_completed: false; checks.honest unknown): "
                     + safe_text(", ".join(result.unconfirmed[:5]), limit=400)
                     + (" ..." if len(result.unconfirmed) > 5 else ""))
    if result.not_graded:
        lines.append(f"  {result.not_graded} row(s) stopped before grading (no evaluation) stay error")
    lines.append(f"outcomes before: {_counts(result.before)}")
    lines.append(f"outcomes after:  {_counts(result.after)}")
    if result.output is not None:
        lines.append(f"wrote {result.rows} row(s) to {safe_text(str(result.output))}")
    else:
        lines.append("no file written (give -o FILE to keep the regraded rows)")
    return lines


@click.command("regrade", context_settings=CONTEXT)
@click.argument("runs", metavar="RUNS")
@click.option("--spec", "spec", required=True, metavar="NEW.yaml",
              help="The spec whose tasks (expected, forbidden, min_score, require_completed) grade the rows.")
@click.option("-o", "--output", metavar="FILE",
              help="Write the regraded rows here (a new file, or a runs file to replace; never RUNS).")
@click.option("--json", "as_json", is_flag=True, help="Write the result as one JSON object.")
@click.option("--fail-on-change", is_flag=True,
              help="Exit 1 when any run changed outcome (default: 0, a change is the answer).")
@run_command
def regrade(runs: str, spec: str, output: str | None, as_json: bool, fail_on_change: bool) -> None:
    """Grade the recorded runs in RUNS again with the tasks of a new spec.

    \b
    Runs no model and starts no server: each row's recorded calls, guard denials, final
    answer and status are scored with the new expectations, and its outcome and honesty
    are recomputed by the harness's own rules. Prints which runs changed outcome and why.
    A row whose task the new spec lacks is reported and kept unchanged, never dropped.
    A call whose result was not recorded stays unknown: it never becomes a pass.

    \b
    Examples:
      toolscore regrade runs.jsonl --spec study-v2.yaml
      toolscore regrade runs.jsonl --spec study-v2.yaml -o regraded.jsonl --json
      toolscore regrade runs.jsonl --spec study.yaml --fail-on-change   # CI: verdicts must hold
    """
    from toolscore_agent.regrading import regrade as run_regrade
    from toolscore_core.reports.text import json_visible

    result = run_regrade(runs, spec, output=output)
    if as_json:
        click.echo(json_visible(json.dumps(result.to_dict(), indent=2, ensure_ascii=False)))
    else:
        for line in summary_lines(result):
            click.echo(line)
    if fail_on_change and result.changes:
        raise SystemExit(1)


__all__ = ["regrade", "summary_lines"]
