"""``toolscore eval`` and ``toolscore regression``: score a trace in CI, and catch drift.

Exit codes follow the whole CLI: 0 the check passed, 1 it failed (score under the bar,
violations with ``--fail-on-violations``, a regression), 2 the input could not be used
(one paragraph naming the file and the place in it, never a traceback).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import IO, Any

import click

from toolscore_core.cli import run_command
from toolscore_core.cli._app import App
from toolscore_core.cli.judge_options import JudgeOptionsCommand, judge_from_context
from toolscore_core.kernel.errors import InputError

REPORT_SUBJECT = "evaluation"


def parse_weights(values: tuple[str, ...]) -> dict[str, float] | None:
    """``("required_call_recall=0.3",)`` -> ``{"required_call_recall": 0.3}``."""
    if not values:
        return None
    weights: dict[str, float] = {}
    for raw in values:
        name, sep, number = raw.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--weight {raw!r} is not NAME=VALUE", expected="e.g. --weight required_call_recall=0.3")
        try:
            value = float(number)
        except ValueError:
            raise InputError(f"--weight {raw!r}: {number!r} is not a number",
                             expected="e.g. --weight sequence_accuracy=0.5") from None
        if not value >= 0 or value == float("inf"):
            raise InputError(f"--weight {raw!r}: a weight must be a finite number >= 0")
        weights[name] = value
    return weights


def check_unit(name: str, value: float | None) -> float | None:
    if value is not None and not 0 <= value <= 1:
        raise InputError(f"{name} {value:g} is outside 0..1", hint=f"Write a fraction, e.g. {name} 0.9 for 90%")
    return value


def find_exporter(app: App, report: str) -> Any:
    from toolscore_core.kernel.exporters import find_exporter as lookup

    return lookup(REPORT_SUBJECT, report, registry=app.registry("exporters"))


def parse_metric_options(values: tuple[str, ...]) -> dict[str, dict[str, Any]] | None:
    """``("judge.threshold=0.8", "judge.model=small")`` -> ``{"judge": {"threshold": 0.8, "model": "small"}}``.

    A value is read as JSON when it is JSON (numbers, true/false/null, lists, objects,
    quoted strings) and kept as the plain string otherwise, so ``model=small`` needs no
    quotes and ``threshold=0.8`` arrives as a number. NaN and Infinity stay strings: they
    are not JSON, and no metric should receive one by accident. The last value given for
    the same NAME.KEY wins, as with ``--weight``.
    """
    if not values:
        return None
    example = "e.g. --metric-option my_metric.threshold=0.8"
    options: dict[str, dict[str, Any]] = {}
    for raw in values:
        target, sep, text = raw.partition("=")
        name, dot, key = target.partition(".")
        name, key = name.strip(), key.strip()
        if not sep or not dot or not name or not key:
            raise InputError(f"--metric-option {raw!r} is not NAME.KEY=VALUE", expected=example,
                             hint="NAME is the metric's name (`toolscore plugins` lists them), KEY one of its options")
        options.setdefault(name, {})[key] = _option_value(text)
    return options


def _option_value(text: str) -> Any:
    import json

    def not_json(constant: str) -> Any:
        raise ValueError(constant)

    try:
        return json.loads(text, parse_constant=not_json)
    except ValueError:  # json.JSONDecodeError is a ValueError too
        return text


def check_mode_option(mode: str | None) -> str | None:
    """``--mode`` validated here, so its error names the flag rather than the gold file."""
    if mode is not None:
        from toolscore_core.scoring.modes import check_mode

        try:
            check_mode(mode)
        except InputError as exc:
            raise InputError(f"--mode: {exc.message}", expected=exc.expected, hint=exc.hint) from None
    return mode


def evaluate_files(app: App, gold: str, trace: str, *, trace_format: str | None, forbidden_file: str | None,
                   weights: dict[str, float] | None, min_score: float | None,
                   mode: str | None,
                   metric_options: dict[str, dict[str, Any]] | None = None,
                   judge: Any = None) -> tuple[Any, list[Any]]:
    """Score TRACE against GOLD through the kernel's front door, ``evaluate_trace``.

    The gold file is read there, once, so every problem in it (a misspelt weight, an
    unknown mode) names the file and the key path exactly as the Python API does; the
    command adds only its own options, which win over what the gold file says. Returns the
    evaluation and the forbidden rules it was checked against (gold file's first), which
    reports list one by one.
    """
    from toolscore_core.cli.eval_output import deprecation_notes
    from toolscore_core.scoring.contracts import load_forbidden
    from toolscore_core.scoring.evaluation import evaluate_trace

    extra_rules = list(load_forbidden(Path(forbidden_file))) if forbidden_file is not None else []
    with deprecation_notes():  # e.g. the old weight name redundant_rate, as one stderr line
        evaluation = evaluate_trace(
            Path(gold), Path(trace),
            forbidden=extra_rules or None,
            weights=weights,
            format=trace_format,
            mode=mode,
            min_score=min_score,
            plugin_manager=app.pm,
            metric_options=metric_options,
            judge=judge,
        )
    from toolscore_core.cli.notices import warn_about_reading

    warn_about_reading(evaluation.actual)  # e.g. a cut-off last line that was skipped
    return evaluation, list(evaluation.forbidden)


def write_report(exporter: Any, evaluation: Any, output: str | None, *, forbidden: list[Any]) -> None:
    options = {"forbidden": forbidden}
    if output is None:
        exporter.export(evaluation, _stdout(), **options)
        return
    from toolscore_core.kernel.files import write_atomic

    # atomic: a CI step reading the report, or a second run writing it, never sees half of one
    write_atomic(Path(output), lambda stream: exporter.export(evaluation, stream, **options), what="the report")


def violation_count(evaluation: Any) -> int:
    from toolscore_core.reports.baseline import counts

    found = counts(evaluation)
    return found["policy_violations"] + found["credentials"]


def _bulk_or_refuse(app: App, gold: str, trace: str | None, patterns: tuple[str, ...], given: dict[str, Any]) -> None:
    """``--traces``: the bulk run (:mod:`toolscore_core.cli.eval_bulk`); no TRACE and no ``--traces``: exit 2."""
    if not patterns:
        raise InputError("no trace given", expected="toolscore eval GOLD TRACE, or GOLD --traces 'DIR/**/*.json' -o FILE")
    if trace is not None:
        raise InputError("give TRACE or --traces, not both", hint="Add TRACE as another --traces pattern")
    single_only = [flag for flag, value in (("--save-baseline", given["save_baseline"]), ("--html", given["html_file"]),
                                            ("--fail-on-violations", given["fail_on_violations"]),
                                            ("--report", given["report"] != "console"),
                                            ("a judge", judge_from_context() is not None)) if value]
    if single_only:
        raise InputError(f"{', '.join(single_only)} applies to one trace, not to --traces (yet)",
                         hint="Bulk results are rows in -o FILE.jsonl and a FILE.summary.json next to it")
    from toolscore_core.cli.eval_bulk import run_bulk

    check_unit("--min-score", given["min_score"])
    from toolscore_core.cli.params import executor_with_address

    executor = executor_with_address(given["executor"], given.get("ray_address"))
    run_bulk(app, gold, patterns, output=given["output"], workers=given["workers"], executor=executor,
             address=given.get("ray_address"), trace_format=given["trace_format"], forbidden_file=given["forbidden_file"],
             weights=parse_weights(given["weight_options"]),
             min_score=given["min_score"], mode=check_mode_option(given["mode"]),
             metric_options=parse_metric_options(given["metric_option_values"]))


def pause_collector(ctx: click.Context) -> None:
    """Keep Python's cyclic garbage collector off until ``ctx`` closes (when it was on).

    Why: one evaluation allocates objects that all stay alive until the command ends (the
    calls, the pairing, the report's rows) and makes no garbage cycles worth collecting, so
    every pass of the collector walks a growing heap and frees nothing. The scoring pauses
    it itself, but only while it scores: the modules it imports first and the report after
    it paid ~90 M instructions (5% of a 10k-call ``toolscore eval``) for passes that found
    nothing. Reference counting still frees everything as before; output is unchanged.
    """
    if gc.isenabled():
        gc.disable()
        ctx.call_on_close(gc.enable)


def _stdout() -> IO[str]:
    # Looked up at call time: click's test runner and pytest swap sys.stdout.
    return sys.stdout


@click.command("eval", cls=JudgeOptionsCommand)  # installed judges add their options
@click.argument("gold", metavar="GOLD")
@click.argument("trace", metavar="[TRACE]", required=False)
@click.option("--format", "-f", "trace_format", metavar="NAME",
              help="Trace format (default: detected). See `toolscore plugins` for the installed ones.")
@click.option("--forbidden", "forbidden_file", metavar="FILE",
              help="JSON/YAML list of calls the agent must never make: {tool, args, reason}.")
@click.option("--fail-on-violations", is_flag=True,
              help="Exit 1 when any forbidden call or credential in tool arguments is found.")
@click.option("--weight", "weight_options", multiple=True, metavar="NAME=VALUE",
              help="Re-weight a metric (repeatable); weights are renormalised to sum to 1.")
@click.option("--metric-option", "metric_option_values", multiple=True, metavar="NAME.KEY=VALUE",
              help="An option for one metric (repeatable); VALUE is read as JSON when it is JSON, "
                   "else as text.")
@click.option("--min-score", type=float, metavar="X", help="Exit 1 when the score is below X (0..1).")
@click.option("--mode", metavar="MODE",
              help="Order mode: strict, in_order, unordered, subset, superset (default: sequence accuracy).")
@click.option("--report", default="console", show_default=True, metavar="FORMAT",
              help="console, md, html, json or junit (or a plugin's format).")
@click.option("--output", "-o", metavar="FILE", help="Write the report to FILE (the console summary still prints); "
                                                   "without --report, in the format its suffix names (.json, .md, "
                                                   ".html, .xml); with --traces, the JSONL results file.")
@click.option("--html", "html_file", metavar="FILE", help="Shorthand for --report html -o FILE.")
@click.option("--save-baseline", metavar="FILE", help="Save the figures of this run for `toolscore regression`.")
@click.option("--verbose", "-v", is_flag=True, help="Say on stderr what was read, how it was scored, and when.")
@click.option("--traces", "trace_patterns", multiple=True, metavar="PATTERN",
              help="Bulk: score every file PATTERN matches (quoted glob, ** recurses; repeatable) instead of "
                   "TRACE; one row per trace to -o FILE.jsonl, rerun to resume. See docs/guide/bulk.md.")
@click.option("--workers", type=click.IntRange(min=1), metavar="N",
              help="Bulk: traces scored at once (default: one per CPU).")
@click.option("--executor", metavar="NAME",
              help="Bulk: where the work runs: local (worker processes, the default), thread, or a plugin's "
                   "(`toolscore plugins` lists them).")
@click.option("--ray-address", metavar="ADDR",
              help="Bulk, on Ray: the cluster to attach to (auto, ray://HOST:PORT or HOST:PORT); implies "
                   "--executor ray. Without it, --executor ray starts a private local Ray instance.")
@click.pass_obj
@run_command
def eval_command(app: App, gold: str, trace: str | None, trace_format: str | None, forbidden_file: str | None,
                 fail_on_violations: bool, weight_options: tuple[str, ...],
                 metric_option_values: tuple[str, ...], min_score: float | None,
                 mode: str | None, report: str, output: str | None, save_baseline: str | None,
                 html_file: str | None = None, verbose: bool = False,
                 trace_patterns: tuple[str, ...] = (), workers: int | None = None,
                 executor: str | None = None, ray_address: str | None = None) -> None:
    """Score the tool calls in TRACE against the expected calls in GOLD.

    GOLD is a JSON or YAML list of expected calls ({"tool": NAME, "args": {...}}; omit
    "args" to leave them unchecked; matchers such as {"$regex": "FL-\\d+"} loosen single
    arguments) or an object with "expected", "forbidden", "weights", "min_score", "mode".
    TRACE is any format an installed adapter reads (an MCP recording, OpenTelemetry spans,
    SDK output, a list of call dicts).

    \b
    Examples:
      toolscore eval gold.json session.json
      toolscore eval gold.json trace.json --min-score 0.9
      toolscore eval gold.json trace.json --forbidden forbidden.json --fail-on-violations
      toolscore eval gold.yaml trace.json --weight required_call_recall=0.3
      toolscore eval gold.json trace.json --metric-option my_metric.threshold=0.8
      toolscore eval gold.json trace.json --report html -o report.html
      toolscore eval gold.json trace.json --report junit -o toolscore.xml
      toolscore eval gold.json trace.json --save-baseline baseline.json
      toolscore eval gold.json --traces 'traces/**/*.json' -o results.jsonl --workers 4

    With --traces, every matched trace is scored (one JSON row each in -o, rerun to resume)
    and the aggregate is printed and written to <output stem>.summary.json; exit 1 when a
    trace is below the bar or unreadable.

    A report written to stdout (--report md with no -o) gets the stdout to itself: the
    FAIL / ERROR / saved-baseline lines then go to stderr.

    Exit codes: 0 ok, 1 score below --min-score or violations with --fail-on-violations,
    2 bad input, 130 interrupted.
    """
    from toolscore_core.cli.eval_output import (
        Lines,
        report_for_output,
        report_on_stdout,
        resolve_html,
    )

    if trace_patterns or trace is None:
        _bulk_or_refuse(app, gold, trace, trace_patterns, locals())
        return
    pause_collector(click.get_current_context())
    report, output = resolve_html(report, output, html_file)
    report = report_for_output(report, output)
    lines = Lines(verdict_to_stderr=report_on_stdout(report, output), verbose=verbose)
    weights = parse_weights(weight_options)
    metric_options = parse_metric_options(metric_option_values)
    check_unit("--min-score", min_score)
    check_mode_option(mode)
    exporter = find_exporter(app, report)
    lines.note(f"reading {gold} and {trace}")
    evaluation, forbidden = evaluate_files(app, gold, trace, trace_format=trace_format,
                                           forbidden_file=forbidden_file, weights=weights,
                                           min_score=min_score, mode=mode, metric_options=metric_options,
                                           judge=judge_from_context())
    lines.describe(evaluation)
    write_report(exporter, evaluation, output, forbidden=forbidden)
    lines.note(f"wrote the {report} report to {output or 'stdout'}")
    out = _stdout()
    if output is not None:
        find_exporter(app, "console").export(evaluation, out)
        click.echo(f"Wrote the {report} report to {output}")
    if save_baseline:
        from toolscore_core.reports.baseline import save_baseline as save

        save(evaluation, save_baseline, gold_file=gold, trace_file=trace)
        lines.verdict(f"Saved baseline to {save_baseline} (score {evaluation.score * 100:.1f}%)")

    from toolscore_core.scoring.verdict import below_bar

    failed = False
    if below_bar(evaluation.score, evaluation.min_score):
        source = "--min-score" if min_score is not None else "min_score in the gold file"
        lines.verdict(f"FAIL score {evaluation.score * 100:.1f}% is below the required "
                      f"{evaluation.min_score * 100:.1f}% ({source})")
        failed = True
    if fail_on_violations:
        found = violation_count(evaluation)
        if found:
            lines.verdict(f"ERROR {found} forbidden call(s) or credential(s) found (--fail-on-violations)")
            failed = True
    if failed:
        sys.exit(1)


__all__ = ["eval_command", "parse_metric_options", "parse_weights"]
