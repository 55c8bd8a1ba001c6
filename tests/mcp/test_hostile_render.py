"""A server whose every string attacks the terminal: ``mcp list / lint / test`` print it all
made visible, and the Markdown reports and the ``--ci`` job summary keep it out of headings.

The server (``servers/escape_server.py``) is real and runs as a subprocess, as do the
commands: what is checked is the bytes a user's terminal or a CI log would receive.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
ESCAPE = shlex.join([sys.executable, str(SERVERS / "escape_server.py")])
FAIL_LIST = ESCAPE + " --fail-list"
HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
OUR_HEADINGS = {"MCP Scorecard", "Tools", "Top issues to fix", "MCP lint",
                "❌ MCP server check failed", "✅ MCP server check passed"}


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    full_env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True,
                          timeout=120, env=full_env, check=False)
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")  # strict: a lone surrogate fails
    assert "Traceback" not in out + err, err
    return proc.returncode, out, err


def raw_controls(text: str) -> set[str]:
    """Every character a terminal would act on or hide (newlines between lines excepted)."""
    return {c for c in text if c != "\n" and unicodedata.category(c) in HIDDEN_CATEGORIES}


@pytest.mark.parametrize("command", [("list",), ("lint",), ("test", "--scenarios", "2")])
def test_console_output_shows_every_hostile_string_made_visible(command: tuple[str, ...]) -> None:
    code, out, err = run("mcp", *command, ESCAPE)
    assert code in (0, 1), err
    assert raw_controls(out) == set() and raw_controls(err) == set()
    # the escaped forms are there: the user sees what the server tried
    assert "\\x1b[2J" in out and "\\u202e" in out and "\\x1b]52;c;SE9TVElMRQ==\\x07" in out
    # rich markup in a name is printed as written, never applied
    assert "[bold]name" in out


def test_list_json_escapes_what_json_itself_leaves_raw() -> None:
    import json

    code, out, err = run("mcp", "list", ESCAPE, "--json")
    assert code == 0, err
    assert raw_controls(out) == set()  # JSON leaves DEL, C1 (\x9b) and U+202E raw unless told
    data = json.loads(out)
    assert data["server"]["name"].startswith("escape\x1b[2J")  # the same data, losslessly
    assert "\x9b31m" in data["tools"][0]["description"]


def test_an_error_message_quoting_the_server_is_made_visible() -> None:
    code, out, err = run("mcp", "list", FAIL_LIST)
    assert code == 2
    assert err.startswith("toolscore: error: ")
    assert raw_controls(err) == set() and raw_controls(out) == set()
    assert "\\x1b[2J" in err and "\\u202e" in err


def _headings_and_html(markdown: str) -> tuple[list[str], list[str], int]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").enable("strikethrough").parse(markdown)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    inline = [c for t in tokens for c in (t.children or [])]
    html = [t.content for t in [*tokens, *inline] if t.type in ("html_block", "html_inline")]
    links = sum(1 for t in inline if t.type in ("link_open", "image"))
    return headings, html, links


def test_ci_job_summary_headings_are_only_ours(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    code, out, err = run("mcp", "test", ESCAPE, "--scenarios", "2", "--ci",
                         env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert code == 1, err  # blocking lint errors: the verdict is "failed"
    text = summary.read_text(encoding="utf-8")
    headings, html, links = _headings_and_html(text)
    assert set(headings) <= OUR_HEADINGS and headings[0] == "❌ MCP server check failed"
    assert "✅ MCP server check passed" not in headings
    assert html == [] and links == 0
    # the forged verdict is on the server line, inside a code span, never a line of its own
    assert not any(line.lstrip("#> -").startswith("✅") for line in text.splitlines())
    assert raw_controls(text.replace("\n", "")) == set()
    assert raw_controls(out) == set() and raw_controls(err) == set()


@pytest.mark.parametrize("command", [("test", "--scenarios", "2"), ("lint",)])
def test_markdown_reports_keep_outside_text_out_of_headings(tmp_path: Path, command: tuple[str, ...]) -> None:
    target = tmp_path / "report.md"
    code, _, err = run("mcp", *command, ESCAPE, "--report", "md", "--output", str(target))
    assert code in (0, 1), err
    text = target.read_text(encoding="utf-8")
    headings, html, links = _headings_and_html(text)
    assert headings and set(headings) <= OUR_HEADINGS
    assert html == [] and links == 0
    assert "Server: `" in text or "Server: ``" in text
    assert raw_controls(text.replace("\n", "")) == set()


def test_styled_lint_console_prints_markup_in_names_literally() -> None:
    """On a terminal the table is coloured by us; a name's ``[bold red]`` is not markup."""
    from toolscore_core.kernel.model import ServerDefinition, ToolDefinition
    from toolscore_mcp.lint.reports import LintConsole
    from toolscore_mcp.lint.rules import builtin_rules
    from toolscore_mcp.lint.runner import lint_server

    server = ServerDefinition(name="srv[bold red]x[/]\x1b]52;c;QQ==\x07", version="1", tools=(ToolDefinition(
        name="t[blink]ool\x1b[2J", description="Does a thing [red]loudly[/red].",
        input_schema={"type": "object", "properties": {}}),))
    stream = io.StringIO()
    LintConsole().export(lint_server(server, rules=builtin_rules()), stream, color=True)
    text = stream.getvalue()
    assert "[bold red]x[/]" in text and "t[blink]ool" in text
    # the only escape sequences are our own colours (SGR), none from the server
    assert re.sub(r"\x1b\[[0-9;]*m", "", text).count("\x1b") == 0
    assert "\\x1b]52;c;QQ==\\x07" in text and "\\x1b[2J" in text


@pytest.mark.parametrize("command", [("mcp", "lint", "--report", "json"), ("mcp", "lint", "--report", "sarif"),
                                     ("mcp", "test", "--report", "json")], ids=["lint-json", "lint-sarif", "test-json"])
def test_json_reports_on_stdout_cannot_drive_a_terminal(command: tuple[str, ...]) -> None:
    """With no -o these print to the terminal: C1, DEL and bidi characters are JSON escapes."""
    import json

    code, out, err = run(*command[:2], ESCAPE, *command[2:])
    assert code in (0, 1), err
    assert raw_controls(out) == set() and raw_controls(err) == set()
    assert "\\u009b" in out or "\\u202e" in out  # the hostile text is there, escaped
    json.loads(out)  # and the document is still JSON
