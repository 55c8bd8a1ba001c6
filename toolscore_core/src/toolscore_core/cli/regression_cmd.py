"""``toolscore regression``: compare a new trace with a saved baseline; exit 1 when it regressed.

Its own module because it is a command of its own: it shares only the scoring front door
(``evaluate_files``) with ``eval``. It keeps tool-scorer 1.10.0's spellings (``-g``, ``-t``/
``--threshold``, ``-f``, ``-o``, ``-v``) and reads 1.10.0's baseline files, so a migrating
CI job runs unchanged; see docs/guide/migrating.md for what differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any

import click

from toolscore_core.cli import run_command
from toolscore_core.cli._app import App
from toolscore_core.kernel.errors import InputError


def _stdout() -> IO[str]:
    # Looked up at call time: click's test runner and pytest swap sys.stdout.
    return sys.stdout


def _note(verbose: bool, text: str) -> None:
    if verbose:
        click.echo(f"toolscore: {text}", err=True)


@click.command("regression")
@click.argument("baseline", metavar="BASELINE")
@click.argument("trace", metavar="TRACE")
@click.option("--gold-file", "-g", required=True, metavar="GOLD",
              help="The gold file the baseline was scored against.")
@click.option("--tolerance", "--threshold", "-t", "tolerance", type=float, default=0.0, show_default=True,
              metavar="X",
              help="How far (0..1) the score may fall below the baseline before it counts as a regression "
                   "(--threshold is tool-scorer's name for it).")
@click.option("--format", "-f", "trace_format", metavar="NAME", help="Trace format (default: detected).")
@click.option("--forbidden", "forbidden_file", metavar="FILE", help="Forbidden-calls file, as for `eval`.")
@click.option("--strict", is_flag=True,
              help="Exit 2 when GOLD differs from the gold file the baseline was saved with (default: warn).")
@click.option("--output", "-o", metavar="FILE", help="Also write the comparison to FILE as JSON.")
@click.option("--verbose", "-v", is_flag=True, help="Say on stderr what was read and how it is compared.")
@click.pass_obj
@run_command
def regression_command(app: App, baseline: str, trace: str, gold_file: str, tolerance: float,
                       trace_format: str | None, forbidden_file: str | None, strict: bool = False,
                       output: str | None = None, verbose: bool = False) -> None:
    """Compare TRACE with a saved BASELINE; exit 1 when it regressed.

    A regression is a score that fell by more than --tolerance, or more forbidden calls
    or credentials in tool arguments than the baseline run had. The score is computed with
    the weights and order mode stored in the baseline, so the two are comparable.

    \b
    Examples:
      toolscore eval gold.json trace.json --save-baseline baseline.json   # once
      toolscore regression baseline.json new_trace.json --gold-file gold.json
      toolscore regression baseline.json new_trace.json -g gold.json -t 0.05

    The baseline keeps a digest of the gold file's content: when GOLD no longer matches it,
    the scores answer different questions, and a warning says so (with --strict that is
    bad input, exit 2). A baseline saved by tool-scorer 1.10.0 has no score: each metric
    both tools compute is compared with the tolerance instead.

    Exit codes: 0 no regression, 1 regression, 2 bad input.
    """
    from toolscore_core.cli.eval_cmd import check_unit, evaluate_files
    from toolscore_core.reports.baseline import compare, load_baseline
    from toolscore_core.reports.gold_digest import gold_change

    check_unit("--tolerance", tolerance)
    base = load_baseline(baseline)
    legacy = base.get("source")
    _note(verbose, f"baseline {baseline}" + (f" (saved by {legacy}: compared metric by metric)" if legacy else "")
          + f"; tolerance {tolerance * 100:.1f} points")
    changed, message = gold_change(base, gold_file)
    if changed and strict:
        raise InputError(f"{message} (--strict)")
    if message:
        click.echo(f"toolscore: warning: {message}", err=True)
    _note(verbose, f"scoring {trace} against {gold_file}")
    evaluation, _ = evaluate_files(app, gold_file, trace, trace_format=trace_format,
                                   forbidden_file=forbidden_file, weights=base.get("weights") or None,
                                   min_score=None, mode=base.get("mode") if base.get("mode") != "default" else None)
    comparison = compare(base, evaluation, tolerance)
    if legacy:
        skipped = [c.name for c in comparison.metrics if c.current is None]
        click.echo(f"toolscore: note: {baseline} was saved by {legacy}, which kept no overall score: each metric "
                   "is compared with the tolerance"
                   + (f" ({', '.join(skipped)} not computed by Toolscore, not compared)" if skipped else "")
                   + f"; re-save it with `toolscore eval {gold_file} TRACE --save-baseline {baseline}` "
                   "to compare scores", err=True)
    print_comparison(comparison, _stdout())
    if output:
        write_comparison(comparison, output, baseline=baseline, trace=trace)
        click.echo(f"Wrote the comparison to {output}", err=True)
    if comparison.regressed:
        for reason in comparison.reasons():
            click.echo(f"REGRESSION {reason}")
        sys.exit(1)
    if legacy:
        compared = sum(1 for c in comparison.metrics if c.current is not None)
        click.echo(f"PASS no regression ({compared} metric(s) of the {legacy} baseline compared, score "
                   f"{evaluation.score * 100:.1f}%, tolerance {tolerance * 100:.1f} points)")
        return
    click.echo(f"PASS no regression (score {evaluation.score * 100:.1f}%, baseline "
               f"{float(base['score']) * 100:.1f}%, tolerance {tolerance * 100:.1f} points)")


def comparison_record(comparison: Any, *, baseline: str, trace: str) -> dict[str, Any]:
    """The comparison as JSON: ``passed`` and ``items`` as tool-scorer 1.10.0 named them, so a
    script reading its ``-o`` file keeps working, and ``reasons`` in Toolscore's words."""
    from toolscore_core.reports.baseline_110 import LOWER_IS_BETTER

    def status(change: Any) -> str:
        if change.regressed:
            return "regression"
        delta = change.delta
        if delta is None:
            return "not compared"
        better = -delta if change.name in LOWER_IS_BETTER else delta
        return "improvement" if better > comparison.tolerance + 1e-9 else "stable"

    items = [{"metric_name": c.name, "baseline_value": c.baseline, "current_value": c.current,
              "delta": c.delta, "status": status(c)}
             for c in (comparison.score, *comparison.metrics, *comparison.counts)]
    return {"passed": not comparison.regressed, "regressed": comparison.regressed,
            "threshold": comparison.tolerance, "baseline_file": baseline, "trace_file": trace,
            "compared_by": "metric" if comparison.by_metric else "score",
            "reasons": comparison.reasons(), "items": items,
            "regression_count": sum(1 for i in items if i["status"] == "regression")}


def write_comparison(comparison: Any, output: str, *, baseline: str, trace: str) -> None:
    from toolscore_core.kernel.files import write_atomic

    record = comparison_record(comparison, baseline=baseline, trace=trace)
    write_atomic(Path(output), json.dumps(record, indent=2) + "\n", what="the comparison")


def print_comparison(comparison: Any, stream: IO[str]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from toolscore_core.reports.console import make_console

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value * 100:.1f}%"

    def signed(delta: float | None, scale: float = 100.0, unit: str = "") -> str:
        if delta is None:
            return "n/a"
        if abs(delta) < 1e-9:
            return "="
        return f"{delta * scale:+.1f}{unit}" if scale != 1 else f"{delta:+.0f}"

    table = Table(title="Baseline vs current", box=box.SQUARE)
    table.add_column("Metric")
    table.add_column("Baseline", justify="right")
    table.add_column("Current", justify="right")
    table.add_column("Change", justify="right")
    for change in (comparison.score, *comparison.metrics):
        style = "bold red" if change.regressed else None
        table.add_row(change.name.replace("_", " "), pct(change.baseline), pct(change.current),
                      Text(signed(change.delta, unit=" pts"), style=style or ""))
    for change in comparison.counts:
        base = "n/a" if change.baseline is None else str(int(change.baseline))
        table.add_row(change.name.replace("_", " "), base, str(int(change.current or 0)),
                      Text(signed(change.delta, scale=1), style="bold red" if change.regressed else ""))
    make_console(stream).print(table)


__all__ = ["comparison_record", "print_comparison", "regression_command", "write_comparison"]
