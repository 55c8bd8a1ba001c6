"""The CLI root: version, composed help, core names protected, lazy commands, input errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click

from toolscore_core import __version__, hookimpl

TOOLSCORE = [sys.executable, "-m", "toolscore_core.cli"]


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*TOOLSCORE, *args], capture_output=True, text=True, env=full_env, cwd=cwd, timeout=60)


def test_version(invoke):
    result = invoke("--version")
    assert result.output.strip() == f"toolscore {__version__}"


def test_help_lists_core_commands_with_short_help(invoke):
    out = invoke("--help").output
    for name in ("eval", "regression", "plugins", "validate"):
        assert f"  {name} " in out
    assert "Exit codes" in out


def test_plugin_cannot_replace_a_core_command(register_plugin, invoke):
    @click.command("plugins")
    def evil() -> None:
        click.echo("hijacked")

    class Plugin:
        @hookimpl
        def toolscore_register_commands(self):
            return [evil]

    register_plugin(Plugin())
    result = invoke("plugins", "--help")
    assert "hijacked" not in result.output
    assert "List every distribution" in result.output
    assert "registers command 'plugins', which is a core command; ignored" in result.output


def test_unknown_command_is_a_usage_error(invoke):
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    result = CliRunner().invoke(cli, ["nope"], obj=App())
    assert result.exit_code == 2
    assert "No such command 'nope'" in result.output


def test_help_imports_no_sdk_http_yaml_rich_or_mcp_code():
    probe = textwrap.dedent(
        """
        import sys, io, contextlib
        from toolscore_core.cli import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                main(["--help"])
            except SystemExit:
                pass
        heavy = ("openai", "anthropic", "httpx", "ruamel", "mcp", "rich", "google", "langchain",
                 "pydantic_ai", "agents", "opentelemetry", "scipy", "toolscore_mcp.client", "attrs", "cattrs")
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy)
        print("LOADED=" + ",".join(loaded))
        print("HELP_OK=" + str("Commands:" in buf.getvalue()))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TOOLSCORE_STRICT_PLUGINS": "1"})
    assert "HELP_OK=True" in out.stdout, out.stderr
    loaded = out.stdout.split("LOADED=")[1].splitlines()[0]
    assert loaded == "", f"toolscore --help imported: {loaded}"


BROKEN_DIST = {
    "toolscore_broken_demo-1.2.3.dist-info/entry_points.txt": "[toolscore.adapters]\ntoolscore-broken-demo = toolscore_broken_demo\n",
    "toolscore_broken_demo-1.2.3.dist-info/METADATA": "Metadata-Version: 2.1\nName: toolscore-broken-demo\nVersion: 1.2.3\n",
    "toolscore_broken_demo.py": "raise RuntimeError('this plugin is broken on purpose')\n",
}


def install_broken_plugin(tmp_path: Path) -> dict[str, str]:
    for rel, text in BROKEN_DIST.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return {"PYTHONPATH": str(tmp_path), "TOOLSCORE_STRICT_PLUGINS": ""}


def test_installed_broken_plugin_does_not_break_help_or_plugins(tmp_path):
    env = install_broken_plugin(tmp_path)
    help_run = run_cli("--help", env=env)
    assert help_run.returncode == 0 and "Commands:" in help_run.stdout
    listing = run_cli("plugins", env=env)
    assert listing.returncode == 0, listing.stderr
    assert "toolscore-broken-demo 1.2.3" in listing.stdout
    assert "FAILED: RuntimeError: this plugin is broken on purpose" in listing.stdout
    assert "TOOLSCORE_DISABLE_PLUGINS=toolscore-broken-demo" in listing.stdout
    assert "Traceback" not in listing.stderr
    assert run_cli("plugins", "--check", env=env).returncode == 1
    data = json.loads(run_cli("plugins", "--json", env=env).stdout)
    broken = next(d for d in data["distributions"] if d["name"] == "toolscore-broken-demo")
    assert "broken on purpose" in broken["groups"]["toolscore.adapters"]["error"]


READ_TRACE = (
    "from toolscore_core.cli import App; from toolscore_core.kernel.traces import load_trace; app = App(); "
    "app.registry('adapters'); app.registry('adapters'); "
    "print(load_trace([{'tool': 'a', 'args': {}}], pm=app.pm).calls[0].tool)"
)


def test_broken_plugin_is_skipped_with_one_warning_when_its_kind_is_used(tmp_path):
    env = install_broken_plugin(tmp_path)
    run = subprocess.run([sys.executable, "-c", READ_TRACE], capture_output=True, text=True, timeout=60,
                         env={**os.environ, **env})
    assert run.stdout.strip() == "a"  # the command that needs adapters still works
    assert run.stderr.count("toolscore: warning: plugin toolscore-broken-demo") == 1, run.stderr
    disabled = run_cli("plugins", env={**env, "TOOLSCORE_DISABLE_PLUGINS": "toolscore-broken-demo"})
    assert "disabled by TOOLSCORE_DISABLE_PLUGINS" in disabled.stdout


def test_strict_mode_fails_naming_the_distribution(tmp_path):
    env = install_broken_plugin(tmp_path)
    run = subprocess.run([sys.executable, "-c", READ_TRACE], capture_output=True, text=True, timeout=60,
                         env={**os.environ, **env, "TOOLSCORE_STRICT_PLUGINS": "1"})
    assert run.returncode != 0
    assert "toolscore-broken-demo" in run.stderr
