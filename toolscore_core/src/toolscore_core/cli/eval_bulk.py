"""``toolscore eval GOLD --traces PATTERN -o results.jsonl``: the bulk side of ``eval``.

The command stays one (``eval``): with ``--traces`` it scores every matched trace through
:func:`toolscore_core.scoring.bulk.evaluate_many`, streams rows to ``-o``, shows progress on
stderr and prints the aggregate. Exit codes: 0 every trace scored at or above its bar;
1 a trace below the bar or unreadable (its row says why); 2 bad invocation (no trace
matched, an unreadable gold or forbidden file, an unknown executor, ``-o`` not a results
file of ours); 130 interrupted (rows written so far stay; the same command resumes).
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

import click

from toolscore_core.kernel.errors import InputError

#: Seconds between progress lines when stderr is not a terminal (CI logs).
PROGRESS_EVERY_S = 10.0


class Progress:
    """A count on stderr: one line rewritten in a terminal, a line every few seconds elsewhere."""

    def __init__(self, stream: IO[str], *, every: float = PROGRESS_EVERY_S) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.every = every
        self.started = time.monotonic()
        self.last = self.started
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.tty:
            if now - self.last >= 0.1 or done == total:
                self.stream.write(f"\r{self._text(done, total, now)}")
                self.stream.flush()
                self.last, self.shown = now, True
        elif now - self.last >= self.every:
            self.stream.write(f"toolscore: {self._text(done, total, now)}\n")
            self.stream.flush()
            self.last = now

    def _text(self, done: int, total: int, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        return f"{done}/{total} traces ({done / elapsed:.0f}/s)"

    def finish(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()


def run_bulk(app: Any, gold: str, patterns: tuple[str, ...], *, output: str | None, workers: int | None,
             executor: str | None, trace_format: str | None, forbidden_file: str | None,
             weights: dict[str, float] | None, min_score: float | None, mode: str | None,
             metric_options: dict[str, dict[str, Any]] | None, progress: bool = True,
             address: str | None = None) -> None:
    """Score every trace of ``patterns``; exit with the run's verdict (see the module docstring)."""
    from toolscore_core.scoring.bulk import evaluate_many
    from toolscore_core.scoring.bulk_report import summary_lines

    if output is None:
        raise InputError("bulk scoring writes one row per trace: name the results file with -o",
                         expected="e.g. toolscore eval gold.json --traces 'traces/**/*.json' -o results.jsonl")
    meter = Progress(sys.stderr) if progress else None

    def torn(line: Any) -> None:
        click.echo(f"toolscore: {line.describe()}", err=True)

    try:
        result = evaluate_many(gold, patterns, workers=workers, executor=executor or "local", output=output,
                               executor_settings={"address": address},
                               format=trace_format, forbidden=forbidden_file, weights=weights, mode=mode,
                               min_score=min_score, metric_options=metric_options, on_progress=meter,
                               on_torn=torn, plugin_manager=app.pm, keep_rows=False)
    except KeyboardInterrupt:
        if meter is not None:
            meter.finish()
        click.echo(f"toolscore: interrupted; the rows written so far are in {output}: "
                   "run the same command again to resume", err=True)
        raise SystemExit(130) from None
    if meter is not None:
        meter.finish()
    for line in summary_lines(result.summary, summary_file=str(result.summary_path)):
        click.echo(line)
    if result.exit_code:
        sys.exit(result.exit_code)


__all__ = ["Progress", "run_bulk"]
