"""``toolscore compare``: which arm of a study is better, and whether that could be noise.

Exit codes: 0 the comparison was made (whatever it says: a difference is a finding, not a
failure); 2 a bad option or runs file. The work is :func:`toolscore_agent.compare.compare_runs`;
this module only picks the renderer and where it goes. Nothing heavy is imported at module top.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolscore_core import run_command

if TYPE_CHECKING:
    from toolscore_core.kernel.jsonl import TornLine

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command("compare", context_settings=CONTEXT)
@click.option("--runs", "runs", multiple=True, metavar="FILE",
              help="A runs.jsonl written by `toolscore agent run` (repeatable; more files may follow it).")
@click.argument("more", nargs=-1, metavar="[FILE...]")
@click.option("--report", "report", type=click.Choice(["console", "md", "json", "html"]), default="console",
              show_default=True, help="How to write the comparison.")
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE instead of standard output.")
@click.option("--arms", nargs=2, metavar="A B", help="Test only arm B against arm A (default: every pair).")
def compare(runs: tuple[str, ...], more: tuple[str, ...], report: str, output: str | None,
            arms: tuple[str, str] | None) -> None:
    """Compare the arms of a study: outcomes, pass rate with a 95 % Wilson interval, pass^k,
    cost per pass, tokens, turns, calls and stops per arm and per task x arm, and an exact
    paired test (sign test / McNemar on tasks) between arms.

    \b
    Error and unknown runs count in every pass rate; a cost per pass is unknown when any
    run's cost is. A retried cell counts once (its latest row).

    \b
    Examples:
      toolscore compare --runs runs.jsonl
      toolscore compare --runs a.jsonl b.jsonl --arms haiku sonnet
      toolscore compare --runs runs.jsonl --report html -o compare.html
    """
    _compare(runs + more, report, output, arms)


@run_command
def _compare(files: tuple[str, ...], report: str, output: str | None, arms: tuple[str, str] | None) -> None:
    from toolscore_agent.compare import compare_runs
    from toolscore_agent.compare_report import RENDERERS

    def torn(line: TornLine) -> None:
        click.echo(f"warning: {line.describe()}", err=True)

    if not files:
        from toolscore_core.kernel.errors import InputError

        raise InputError("no runs file given", hint="e.g. toolscore compare --runs runs.jsonl")
    comparison = compare_runs(files, arms=arms, on_torn=torn)
    text = RENDERERS[report](comparison)
    if output is None:
        click.echo(text, nl=False)
        return
    from toolscore_core.kernel.errors import InputError

    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the report ({exc.strerror})", file=output,
                         hint="Choose a writable path for -o") from None
    click.echo(f"wrote {output}", err=True)


__all__ = ["compare"]
