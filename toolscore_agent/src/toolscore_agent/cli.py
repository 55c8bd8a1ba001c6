"""``toolscore agent``: run agent studies from a spec file.

Exit codes of ``toolscore agent run``: 0 every run passed (or is unknown: its task declares
no expected or forbidden calls, so there is nothing to fail); 1 a run failed or errored
(an errored run is a study that did not measure what it meant to, which a CI job must not
read as success); 2 a bad spec, option or input file, or a server that failed its
preflight; 3 the budget stopped the study; 130 interrupted (the rows written so far stay,
and the same command resumes).

The SDKs, MCP clients and rich load only when a command runs.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from toolscore_core import run_command

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group("agent", context_settings=CONTEXT)
def agent() -> None:
    """Run the agent loop against an MCP server: tasks x arms x repetitions, into runs.jsonl.

    One run is one task, one arm (provider, model, system prompt) and one repetition. Every
    tool call passes a guard first, every model call is checked against the budget first,
    and each run appends one row to the output as it ends, so an interrupted study resumes
    where it stopped.

    \b
    Examples:
      toolscore agent run study.yaml --dry-run       cells, prices, worst case; calls nothing
      toolscore agent run study.yaml -o runs.jsonl   run it (again: resumes, skips done runs)
      toolscore agent run study.yaml --only-task create-twice --only-arm haiku
      toolscore agent run study.yaml --workers 4     four runs at a time, one shared budget
      toolscore agent run study.yaml --ray-address auto   cells as tasks on a Ray cluster

    \b
    The offline example needs no key and costs nothing:
      toolscore agent run examples/agent_harness/offline.yaml -o runs.jsonl
    """


@agent.command("run", context_settings=CONTEXT)
@click.argument("spec", metavar="SPEC")
@click.option("-o", "--output", default="runs.jsonl", show_default=True, metavar="FILE",
              help="The JSONL file rows are appended to; cells it already holds as done are skipped.")
@click.option("--dry-run", is_flag=True,
              help="List the cells, prices and the worst-case cost; start no server, call no model.")
@click.option("--allow-unknown-price", is_flag=True,
              help="Run models with no known price (their cost is null and the cap cannot hold for them).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs at a time (threads); they share one budget.")
@click.option("--only-task", "only_tasks", multiple=True, metavar="ID", help="Run only this task (repeatable).")
@click.option("--only-arm", "only_arms", multiple=True, metavar="ID", help="Run only this arm (repeatable).")
@click.option("--executor", metavar="NAME",
              help="Where runs execute: thread (the default: runs wait on the model and the server, and "
                   "threads share the one budget in this process), local (worker processes sharing one "
                   "budget ledger), ray (Ray tasks sharing one budget actor; the toolscore-ray plugin) or "
                   "another plugin's executor that can share a budget across its workers.")
@click.option("--ray-address", metavar="ADDR",
              help="On Ray: the cluster to attach to (auto, ray://HOST:PORT or HOST:PORT); implies "
                   "--executor ray. Without it, --executor ray starts a private local Ray instance.")
@run_command
def run(spec: str, output: str, dry_run: bool, allow_unknown_price: bool, workers: int,
        only_tasks: tuple[str, ...], only_arms: tuple[str, ...], executor: str | None = None,
        ray_address: str | None = None) -> None:
    """Run a study spec (YAML or JSON): every cell, one row per run.

    \b
    Prints the plan (cells, each arm's price, the worst case), one line per run as it
    ends, and a table of outcomes per arm. Exit codes: 0 all passed (or unknown),
    1 a run failed or errored, 2 bad spec or input, 3 stopped by the budget.
    """
    from rich.console import Console

    from toolscore_agent import report
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import plan_study, run_study
    from toolscore_core.cli.params import executor_with_address

    executor = executor_with_address(executor, ray_address)
    settings = {"address": ray_address} if ray_address is not None else {}
    study = load_agent_spec(spec)
    if executor is not None:  # an unknown or refused name is exit 2 before anything is planned
        from toolscore_agent.study import study_executor

        study_executor(executor, workers, **settings).close()
    plan = plan_study(study, output, only_tasks=only_tasks, only_arms=only_arms,
                      allow_unknown_price=allow_unknown_price)
    for line in report.header_lines(plan):
        click.echo(line)
    if dry_run:
        for line in report.dry_run_lines(plan):
            click.echo(line)
        return
    console = Console(file=sys.stdout)
    bar = report.ProgressBar(console, len(plan.pending), study.budget.max_usd) if console.is_terminal else None

    def on_run(row: Any, progress: Any) -> None:
        line = report.run_line(row)
        if bar is not None:
            bar.advance(line, progress.spent_usd)
        else:
            click.echo(line)

    try:
        if bar is not None:
            with bar:
                result = run_study(study, output, workers=workers, on_run=on_run, plan=plan, executor=executor,
                                   executor_options=settings)
        else:
            result = run_study(study, output, workers=workers, on_run=on_run, plan=plan, executor=executor,
                                   executor_options=settings)
    except KeyboardInterrupt:
        click.echo(f"toolscore: interrupted; the rows written so far are in {output}: "
                   "run the same command again to resume", err=True)
        raise SystemExit(130) from None
    if result.repair is not None:
        click.echo(f"toolscore: {report.repair_line(result.repair)}", err=True)
    console.print(report.outcomes_table(result))
    for line in report.footer_lines(result):
        click.echo(line)
    raise SystemExit(result.exit_code)


__all__ = ["agent", "run"]
