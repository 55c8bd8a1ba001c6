"""`toolscore eval` imports only what it uses (issue 12: the 10k-call eval under 0.3 s).

With the console report off a terminal that means no rich either: the report is drawn
without it (``toolscore_core.reports.console_plain``), character for character the same.

Why a test: every module a command imports by accident costs each run a few milliseconds,
and nothing else notices when one comes back. These run the real command in a fresh
interpreter, with every installed plugin, and check both the output and what was imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from toolscore_core.kernel.exporters import find_exporter
from toolscore_core.kernel.plugins import PluginManager
from toolscore_core.kernel.registry import LazyClassType, collect

FIXTURES = Path(__file__).resolve().parents[1] / "core" / "fixtures" / "eval_example1"

#: Report modules of other plugins: `toolscore eval` with its own report must not import them.
NOT_FOR_EVAL = ("toolscore_mcp.lint.reports", "toolscore_mcp.scorecard.reports", "toolscore_export.exporters")

PROBE = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from toolscore_core.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(sys.argv[1:])
            code = 0
        except SystemExit as exc:
            code = exc.code
    json.dump({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}, sys.stderr)
    """
)


def run_cli(*args: str) -> dict[str, Any]:
    """Exit code, stdout and the modules imported by ``toolscore ARGS`` in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSCORE_")}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=120, env=env)
    result: dict[str, Any] = json.loads(done.stderr.strip().splitlines()[-1])
    return result


def test_eval_with_the_console_report_imports_no_other_plugins_reports() -> None:
    result = run_cli("eval", str(FIXTURES / "gold.json"), str(FIXTURES / "session.json"))
    assert result["code"] == 0
    assert "Overall Score" in result["out"] and "Grade " in result["out"]
    assert "toolscore_mcp.plugin" in result["modules"]  # the plugins were loaded...
    assert [m for m in NOT_FOR_EVAL if m in result["modules"]] == []  # ...not their report modules
    assert "┏" in result["out"]  # the calls table, drawn without rich off a terminal
    assert [m for m in result["modules"] if m.split(".")[0] == "rich"] == []


def test_an_unknown_format_is_listed_without_importing_the_plugins_reports() -> None:
    result = run_cli("eval", str(FIXTURES / "gold.json"), str(FIXTURES / "session.json"), "--report", "sarif")
    assert result["code"] == 2  # lint-sarif is not an evaluation format
    assert [m for m in NOT_FOR_EVAL if m in result["modules"]] == []


def test_a_plugin_format_is_the_real_exporter_when_asked_for() -> None:
    exporter = find_exporter("lint", "sarif", pm=PluginManager(strict=True))
    assert type(exporter).__name__ == "LintSARIF" and not isinstance(type(exporter), LazyClassType)


def test_the_root_help_imports_neither_rich_nor_difflib() -> None:
    result = run_cli("--help")
    assert result["code"] == 0 and "Commands:" in result["out"]
    assert [m for m in result["modules"] if m.split(".")[0] in ("rich", "difflib")] == []


def test_first_party_stand_ins_match_the_classes_they_stand_for() -> None:
    registry = collect(PluginManager(strict=True), "exporters")
    stand_ins = [entry.item for entry in registry.entries() if isinstance(entry.item, LazyClassType)]
    assert len(stand_ins) >= 10  # the MCP and run-record formats
    for stand_in in stand_ins:
        real = stand_in.resolve()
        for attr in ("name", "subject", "format"):
            assert stand_in.__dict__[attr] == getattr(real, attr), (stand_in, attr)
