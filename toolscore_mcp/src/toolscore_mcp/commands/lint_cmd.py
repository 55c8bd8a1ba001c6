"""``toolscore mcp lint``: lint a server's tool definitions, live or from a saved list.

Exit codes: 0 no errors (after the baseline), 1 at least one error, 2 the server could
not be reached or an input (file, flag, rule id) is wrong.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from toolscore_core.cli import App, run_command
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.exporters import find_exporter
from toolscore_core.kernel.model import ServerDefinition
from toolscore_mcp.commands._target import server_target_options

FORMATS = ("console", "md", "json", "sarif")


@click.command("lint", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@server_target_options
@click.option("--from-json", "from_json", type=click.Path(dir_okay=False), metavar="FILE",
              help="Lint a saved tools/list result instead of a live server.")
@click.option("--report", "report", default="console", show_default=True, metavar="FORMAT",
              help="console, md, json or sarif (or a format a plugin adds).")
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the report to FILE instead of standard output.")
@click.option("--disable", "disable", multiple=True, metavar="RULE", help="Skip a rule (repeatable).")
@click.option("--severity", "severity", multiple=True, metavar="RULE=LEVEL",
              help="Change a rule's severity: error, warning, info or off (repeatable).")
@click.option("--lint-config", "lint_config", type=click.Path(dir_okay=False), metavar="FILE",
              help="Lint settings file (default: ./toolscore-lint.yaml when present).")
@click.option("--baseline", "baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Known findings: only new ones are reported and fail the run.")
@click.option("--update-baseline", is_flag=True, help="Write the current findings to --baseline FILE and exit 0.")
@click.option("--sarif-artifact", metavar="PATH",
              help="Repository path SARIF results point at (default: the --from-json or --config file).")
@click.option("--list-rules", is_flag=True, help="List the installed lint rules and exit.")
@click.pass_context
@run_command
def lint_command(ctx: click.Context, target: tuple[str, ...], config_file: str | None, server_name: str | None,
                 from_json: str | None, timeout: float, report: str, output: str | None,
                 disable: tuple[str, ...], severity: tuple[str, ...], lint_config: str | None,
                 baseline: str | None, update_baseline: bool, sarif_artifact: str | None,
                 list_rules: bool) -> None:
    """Lint TARGET's tool definitions: schema hygiene, references to tools that do not
    exist, tool poisoning and schemas that Claude Code, OpenAI or Gemini reject.

    \b
    Examples:
      toolscore mcp lint "python server.py"
      toolscore mcp lint --config claude_desktop_config.json --server notes
      toolscore mcp lint --from-json tools.json --report sarif -o lint.sarif
      toolscore mcp lint "npx -y my-server" --baseline lint-baseline.json
    """
    from toolscore_mcp.lint import config as lint_cfg
    from toolscore_mcp.lint.baseline import load_baseline, write_baseline
    from toolscore_mcp.lint.runner import lint_server, rule_name

    app = ctx.ensure_object(App)
    rules = app.registry("lint_rules").instances()
    if list_rules:
        _print_rules(app, rules)
        return
    exporter = _exporter(app, report)

    names = [rule_name(r) for r in rules]
    settings = lint_cfg.LintConfig()
    config_path = lint_config or lint_cfg.find_config_file(Path.cwd())
    if config_path is not None:
        settings = lint_cfg.load_config(config_path)
        lint_cfg.check_rule_ids(settings, names)
    flags = lint_cfg.from_cli(disable, severity)
    lint_cfg.check_rule_ids(flags, names)
    settings = settings.merged(flags)
    baseline_path = baseline or settings.baseline
    if update_baseline and not baseline_path:
        raise InputError("--update-baseline needs --baseline FILE (or 'baseline' in the lint config)",
                         hint="Name the file to write")

    server = _server(target, config_file, server_name, from_json, timeout)
    known = load_baseline(baseline_path) if baseline_path and not update_baseline else None
    result = lint_server(server, rules=rules, config=settings, known=known)

    if update_baseline:
        assert baseline_path is not None
        count = write_baseline(baseline_path, result.findings, server=server.name)
        click.echo(f"toolscore: wrote {count} finding(s) to the baseline {baseline_path}", err=True)
        return

    artifact = sarif_artifact or from_json or config_file
    _write_report(exporter, result, output, artifact=artifact)
    ctx.exit(1 if result.failed else 0)


def _exporter(app: App, report: str) -> Any:
    return find_exporter("lint", report, registry=app.registry("exporters"))


def _write_report(exporter: Any, result: Any, output: str | None, *, artifact: str | None) -> None:
    options = {"artifact": artifact}
    if output is None:
        exporter.export(result, sys.stdout, **options)
        return
    from toolscore_core.kernel.files import write_atomic

    path = Path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the report ({exc.strerror})", file=path) from None
    write_atomic(path, lambda stream: exporter.export(result, stream, **options), what="the report")
    counts = result.counts
    click.echo(f"toolscore: lint score {result.score:.0%} ({counts['error']} errors, {counts['warning']} warnings); "
               f"report written to {path}", err=True)


def _server(target: tuple[str, ...], config_file: str | None, server_name: str | None, from_json: str | None,
            timeout: float) -> ServerDefinition:
    if from_json is not None:
        if target or config_file:
            raise InputError("give either --from-json FILE or a server, not both")
        from toolscore_mcp.lint.saved import load_saved_tools

        return load_saved_tools(from_json)
    from toolscore_mcp.commands._target import connect
    from toolscore_mcp.errors import MCPError

    with connect(target, config_file, server_name, timeout) as client:
        try:
            return client.server_definition()
        except MCPError as exc:
            raise InputError(f"could not list the server's tools: {exc}",
                             hint="Check that the command starts an MCP server (try: toolscore mcp list TARGET)") from None


def _print_rules(app: App, rules: list[Any]) -> None:
    registry = app.registry("lint_rules")
    from toolscore_mcp.lint.runner import rule_name

    for rule in sorted(rules, key=rule_name):
        name = rule_name(rule)
        source = registry.entry(name).distribution if name in registry else "?"
        click.echo(f"{name:34} {getattr(rule, 'severity', 'warning'):8} {source:26} {getattr(rule, 'description', '')}")
