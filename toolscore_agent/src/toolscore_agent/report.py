"""What ``toolscore agent run`` prints: the plan's header, one line per run, the outcomes.

Kept apart from the command so the wording is one function each, testable without running
anything, and so the exact layout of the documented offline example lives in one place.
Text that came from a server or a model (error messages) is redacted, cut, and has its
control characters written out as escapes before a terminal sees it: a hostile server
must not be able to move the cursor or hide a line.

rich is imported inside the functions that draw with it, never at module top.
"""

from __future__ import annotations

import math
from typing import Any

from toolscore_agent.study import StudyPlan, StudyResult
from toolscore_core import Price, RunRow
from toolscore_core import visible as kernel_visible

OUTCOMES = ("pass", "fail", "error", "unknown")
TABLE_TITLE = "Outcomes (this invocation)"


def visible(text: Any, limit: int = 300) -> str:
    """``text`` redacted, on one line, at most ``limit`` characters, control characters as
    ``\\xNN`` / ``\\uNNNN`` escapes (a newline as ``\\n``: one run stays one line); the
    kernel's :func:`toolscore_core.visible`, cut with ``...``."""
    return kernel_visible(text, limit, marker="...")


def _number(value: float) -> str:
    """``0.0``, ``0.1``, ``15.0``: a price as the spec wrote it, always with a decimal point."""
    return repr(float(value))


def price_text(price: Price | None) -> str:
    """``$0.1/0.5 per 1M (source)``, or what an unknown price means."""
    if price is None:
        return "price unknown (allowed: its cost is reported as null and the cap cannot hold for it)"
    text = f"price ${_number(price.input_per_million)}/{_number(price.output_per_million)} per 1M"
    if price.cached_input_per_million is not None:
        text += f", cached input ${_number(price.cached_input_per_million)}"
    return f"{text} ({price.source})" if price.source else text


def money(value: float | None) -> str:
    """``$0.0123`` (four decimals); ``unknown`` for None; ``unbounded`` for infinity."""
    if value is None:
        return "unknown"
    if math.isinf(value):
        return "unbounded"
    return f"${value:.4f}"


def header_lines(plan: StudyPlan) -> list[str]:
    """The study line, one line per arm, the selection and resume lines, the worst case."""
    spec = plan.spec
    lines = [f"{visible(spec.name)}: {len(spec.tasks)} task(s) x {len(spec.arms)} arm(s) x "
             f"{spec.repetitions} repetition(s) = {spec.run_count} run(s), seed {spec.seed}"]
    for arm in spec.arms:
        lines.append(f"  arm {visible(arm.id)}: {visible(arm.provider)} {visible(arm.model)}, "
                     f"{price_text(plan.prices.get(arm.id))}")
    if len(plan.cells) != plan.total:
        lines.append(f"  {len(plan.cells)} of {plan.total} run(s) selected")
    if plan.skipped:
        where = str(plan.output) if plan.output is not None else "the output"
        lines.append(f"  {plan.skipped} run(s) already in {visible(where)}, skipped")
    if plan.spent_before_usd > 0:
        lines.append(f"  {money(plan.spent_before_usd)} already spent by the rows in "
                     f"{visible(plan.output)}, counted against the budget")
    if plan.torn is not None:
        torn = plan.torn
        lines.append(f"  line {torn.line} of {visible(torn.file)} is torn ({torn.reason}); opening the file "
                     f"moves it to {visible(torn.file)}.torn")
    max_turns = spec.limits.max_turns
    max_usd = spec.budget.max_usd
    lines.append(f"  worst case {money(plan.worst_case_usd)} (max_turns {max_turns if max_turns is not None else 'none'}, "
                 f"budget max_usd {_number(max_usd) if max_usd is not None else 'none'})")
    return lines


def run_line(row: RunRow) -> str:
    """``    1. task::arm::2: pass (completed, 2 call(s), 1 denied, $0.0000)``."""
    denied = sum(1 for call in row.calls if call.denied)
    parts = [row.status, f"{len(row.calls)} call(s)"]
    if denied:
        parts.append(f"{denied} denied")
    parts.append(money(row.cost_usd) if row.cost_usd is not None else "cost unknown")
    number = row.order if row.order is not None else "-"
    line = f"    {number}. {visible(row.cell_id)}: {row.outcome} ({', '.join(parts)})"
    if row.error:
        line += f": {visible(row.error, 200)}"
    return line


def dry_run_lines(plan: StudyPlan) -> list[str]:
    """One line per pending cell, then what a dry run did (nothing)."""
    lines = [f"    {cell.order}. {visible(cell.cell_id)}: would run" for cell in plan.pending]
    lines.append(f"dry run: {len(plan.pending)} run(s) would run; no server was started and no model called")
    return lines


def footer_lines(result: StudyResult) -> list[str]:
    """What was spent (when anything was) and a budget stop, each on its own line."""
    lines = []
    if result.spent_usd > 0 or result.has_unknown_costs:  # a free study prints the table alone
        lines.append(f"spent {money(result.spent_usd)}"
                     + (" (a bound: some costs are unknown)" if result.has_unknown_costs else ""))
    if result.budget_stopped:
        lines.append("budget stopped the study: no new run was started (exit code 3); "
                     "run the same command again with a larger budget.max_usd to resume")
    return lines


def repair_line(result_or_torn: Any) -> str:
    """The writer's repair of a torn last line, in words."""
    torn = getattr(result_or_torn, "repair", result_or_torn)
    return (f"repaired {torn.file}: line {torn.line} was torn ({torn.reason}); its {torn.size} byte(s) "
            f"were moved to {torn.moved_to}")


def outcomes_table(result: StudyResult) -> Any:
    """The rich table of outcome counts per arm (every arm, even one with no run)."""
    from rich.table import Table

    table = Table(title=TABLE_TITLE)
    table.add_column("Arm")
    for outcome in OUTCOMES:
        table.add_column(outcome, justify="right")
    for arm_id, counts in result.outcomes.items():
        table.add_row(visible(arm_id), *(str(counts[o]) for o in OUTCOMES))
    return table


class ProgressBar:
    """A live bar on a terminal: runs done, ETA, spend against ``max_usd``; run lines print
    above it. Use as a context manager; :meth:`advance` after each row."""

    def __init__(self, console: Any, total: int, max_usd: float | None) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._max = max_usd
        self._progress = Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"),
                                  TimeRemainingColumn(), TextColumn("{task.fields[spend]}"),
                                  console=console, transient=True)
        self._task = self._progress.add_task("runs", total=total, spend=self._spend(0.0))

    def _spend(self, spent: float) -> str:
        cap = f" of ${self._max:.4f}" if self._max is not None else " (no cap)"
        return f"spent ${spent:.4f}{cap}"

    def __enter__(self) -> ProgressBar:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def advance(self, line: str, spent: float) -> None:
        self._progress.console.print(line, markup=False, highlight=False)
        self._progress.update(self._task, advance=1, spend=self._spend(spent))


__all__ = [
    "OUTCOMES",
    "TABLE_TITLE",
    "ProgressBar",
    "dry_run_lines",
    "footer_lines",
    "header_lines",
    "money",
    "outcomes_table",
    "price_text",
    "repair_line",
    "run_line",
    "visible",
]
