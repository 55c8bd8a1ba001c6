"""Hostile options and saved tool lists: exit 2 with one line, never a traceback, never a hang.

Issue 8, items 14 (``--timeout nan`` / ``inf`` / negative / zero, and the agent spec's
``server.timeout`` and ``budget.max_usd``), 15 (``mcp lint --from-json`` on extreme but
valid JSON, every report format parses) and 20 (the lint baseline is written atomically).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

SERVER = f"{sys.executable} -m toolscore_mcp.sample_server"
BAD_SECONDS = ["nan", "NaN", "inf", "-inf", "1e400", "-1", "0", "abc", ""]


@pytest.fixture
def run_cli(installed_plugin_manager: Any) -> Any:
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, list(args), obj=App(pm=installed_plugin_manager), catch_exceptions=True)

    return run


def _usage_error(result: Any, option: str) -> None:
    problem = result.exception if not isinstance(result.exception, SystemExit) else None
    assert problem is None, repr(problem)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert f"Invalid value for '{option}'" in result.stderr, result.stderr


@pytest.mark.parametrize("value", BAD_SECONDS)
@pytest.mark.parametrize("argv", [
    ["mcp", "list", SERVER, "--timeout"],
    ["mcp", "lint", SERVER, "--timeout"],
    ["mcp", "test", SERVER, "--timeout"],
    ["mcp", "test", SERVER, "--deadline"],
], ids=["list-timeout", "lint-timeout", "test-timeout", "test-deadline"])
def test_seconds_that_are_not_a_finite_positive_number_are_refused(argv: list[str], value: str,
                                                                     run_cli: Any) -> None:
    started = time.monotonic()
    result = run_cli(*argv, value)
    assert time.monotonic() - started < 10  # refused before any server is started
    _usage_error(result, argv[-1])


def test_ordinary_seconds_are_still_accepted() -> None:
    from toolscore_core.cli.params import Seconds

    assert Seconds().convert("2.5", None, None) == 2.5
    assert Seconds().convert(3, None, None) == 3.0
    assert Seconds(0.05, inclusive=True).convert("0.05", None, None) == 0.05
    assert Seconds(maximum=10).convert("10", None, None) == 10.0


@pytest.mark.parametrize("field, value", [
    (("server", "timeout"), float("nan")), (("server", "timeout"), float("inf")),
    (("budget", "max_usd"), float("nan")), (("budget", "max_usd"), float("inf")),
])
def test_the_agent_spec_refuses_nan_and_infinite_numbers(field: tuple[str, str], value: float) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_core.kernel.errors import InputError

    data: dict[str, Any] = {
        "spec_version": 1, "name": "s", "server": {"command": "python -m toolscore_mcp.sample_server"},
        "provider": "scripted", "arms": [{"id": "a"}],
        "tasks": [{"id": "t", "prompt": "p", "expected": [{"tool": "create_note"}], "script": [{"text": "ok"}]}],
    }
    data.setdefault(field[0], {})[field[1]] = value
    with pytest.raises(InputError, match=rf"\$\.{field[0]}\.{field[1]}.*finite"):
        load_agent_spec(data)


# --- mcp lint --from-json on extreme input --------------------------------------------------------------------


def _nest(levels: int) -> str:
    return "[" * levels + "]" * levels


def _tools(extra: str = "", name: str = '"search"', description: str = '"Search the notes for a phrase."') -> str:
    schema = '{"type": "object", "properties": {"q": {"type": "string", "description": "the phrase"}}' + extra + "}"
    return '{"tools": [{"name": ' + name + ', "description": ' + description + ', "inputSchema": ' + schema + "}]}"


LISTS = {
    "nesting-700": _tools(', "x": ' + _nest(700)),
    "nesting-990": _tools(', "x": ' + _nest(990)),
    "int-5000-digits": _tools(', "maxLength": ' + "9" * 5000),
    "int-400-digits": _tools(', "maxLength": ' + "9" * 400),
    "nan": _tools(', "maximum": NaN'),
    "lone-surrogate": _tools(name='"search\\ud800"', description='"Search \\udfff the notes for a phrase."'),
    "xml-illegal": _tools(name='"search\\uffff"', description='"Search \\u0001 the \\uffff notes for a phrase."'),
}
FORMATS = {"console": ".txt", "json": ".json", "md": ".md", "sarif": ".sarif"}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("kind", list(LISTS))
def test_lint_from_json_on_extreme_input(kind: str, fmt: str, tmp_path: Path, run_cli: Any) -> None:
    saved = tmp_path / "tools.json"
    saved.write_text(LISTS[kind], encoding="utf-8")
    out = tmp_path / f"report{FORMATS[fmt]}"
    result = run_cli("mcp", "lint", "--from-json", str(saved), "--report", fmt, "-o", str(out))
    problem = result.exception if not isinstance(result.exception, SystemExit) else None
    assert problem is None, f"{type(problem).__name__}: {problem}"
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert result.stderr.startswith("toolscore: error:") and "tools.json" in result.stderr, result.stderr
        assert not out.exists()
        return
    text = out.read_bytes().decode("utf-8")  # strict: nothing unencodable was written
    if fmt in ("json", "sarif"):
        def refuse(constant: str) -> Any:
            raise ValueError(constant)

        json.loads(text, parse_constant=refuse)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_lint_baseline_is_replaced_whole(tmp_path: Path) -> None:
    from toolscore_core.kernel.model import Finding
    from toolscore_mcp.lint.baseline import load_baseline, write_baseline

    path = tmp_path / "lint-baseline.json"
    findings = [Finding(severity="warning", code="description-too-short", message=f"m{i}", tool=f"t{i}")
                for i in range(3)]
    assert write_baseline(path, findings) == 3
    assert write_baseline(path, findings[:1]) == 1
    assert len(load_baseline(path)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lint-baseline.json"]
