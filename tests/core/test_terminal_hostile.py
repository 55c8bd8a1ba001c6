"""Outside text never drives a terminal and never breaks a Markdown report.

Two kernel functions carry this: ``visible`` (control characters as escapes, one line,
redacted, bounded) for every console line, and ``md_escape`` / ``md_code`` for every
Markdown report. Both are fuzzed here, the Markdown through a real renderer
(markdown-it, which rich already brings), and the commands a user runs (``eval``,
``validate``) are run as subprocesses on a trace whose tool names, arguments, results
and final answer attack the terminal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscore_core import md_code, md_escape, visible

HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
CLEAR = "\x1b[2J"
CLIPBOARD = "\x1b]52;c;SE9TVElMRQ==\x07"
TITLE = "\x1b]0;pwned\x07"
C1_CSI = "\x9b31m"
RLO = "\u202e"
HOSTILE = CLEAR + CLIPBOARD + TITLE + C1_CSI + RLO + "[bold red]loud[/]"
# Every kind the function must make visible, one of each.
SAMPLES = [
    CLEAR, CLIPBOARD, TITLE, C1_CSI, "\x1bc", "\x1b[1A\x1b[2K", "\x1b[8mhidden\x1b[0m", "\x07", "\x08", "\x7f",
    "\x85", "\r", "\n", "\t", "\x00",
    *(chr(c) for c in range(0x202A, 0x202F)), *(chr(c) for c in range(0x2066, 0x206A)),
    "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\ufeff", "\u00ad", "\u061c",
    "\u2028", "\u2029", "\ud800", "\udfff", "\U000e0041", "\U000e007f",
]
# Text that looks like text to a person but like a control to a terminal or a renderer.
ALPHABET = st.one_of(
    st.characters(codec="utf-8"),
    st.characters(categories=["Cc", "Cf", "Cs", "Zl", "Zp"]),
    st.sampled_from([*"`\\|*_[]()<>#!-+=.&;:~$ \n", "1.", "```", "<script>", "<img src=x onerror=alert(1)>",
                     "](http://x)", "&lt;", "\\`", "# "]),
)
TEXTS = st.lists(ALPHABET, max_size=40).map("".join)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def hidden(text: str) -> set[str]:
    return {c for c in text if unicodedata.category(c) in HIDDEN_CATEGORIES}


# -- visible ------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", SAMPLES, ids=[repr(s) for s in SAMPLES])
def test_every_control_kind_is_written_as_an_escape(sample: str) -> None:
    shown = visible("a" + sample + "b")
    assert hidden(shown) == set() and shown.startswith("a") and shown.endswith("b")
    assert "\\" in shown  # an escape a person can read, not a silent deletion


def test_the_escape_forms() -> None:
    assert visible(CLEAR) == "\\x1b[2J"
    assert visible(CLIPBOARD) == "\\x1b]52;c;SE9TVElMRQ==\\x07"
    assert visible("\x9b\u202e\n\t\ud800\U000e0041") == "\\x9b\\u202e\\n\\t\\ud800\\U000e0041"
    assert visible("日本語 é ✅ [bold]") == "日本語 é ✅ [bold]"  # ordinary text untouched
    assert visible("a\nb", multiline=True) == "a\nb"


def test_it_redacts_and_bounds() -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    assert key not in visible(f"key {key}") and "AKIA…LE" in visible(f"key {key}")
    assert visible(f"key {key}", redacted=False) == f"key {key}"
    long = visible("\x1b" * 10_000, 50)
    assert len(long) <= 50 and long.endswith("…") and hidden(long) == set()
    # a cut never leaves half an escape behind
    assert not visible("abcd" + "\x1b" * 10, 12).rstrip("…").endswith(("\\x1", "\\x", "\\"))


@FUZZ
@given(TEXTS, st.integers(min_value=1, max_value=80))
def test_fuzz_visible_is_clean_bounded_and_idempotent(text: str, limit: int) -> None:
    shown = visible(text, limit)
    assert hidden(shown) == set()
    assert len(shown) <= limit
    assert visible(shown, limit) == shown
    unbounded = visible(text, None, redacted=False)
    assert hidden(unbounded) == set() and visible(unbounded, None, redacted=False) == unbounded


# -- Markdown -----------------------------------------------------------------------------


def _parse(markdown: str) -> list[Any]:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").enable("strikethrough").parse(markdown)


def _inline(tokens: list[Any]) -> list[Any]:
    return [c for t in tokens for c in (t.children or [])]


def _assert_inert(tokens: list[Any], *, strong: int = 0) -> None:
    kinds = [t.type for t in tokens] + [c.type for c in _inline(tokens)]
    assert "html_inline" not in kinds and "html_block" not in kinds, kinds
    assert "heading_open" not in kinds and "link_open" not in kinds and "image" not in kinds, kinds
    assert "em_open" not in kinds and kinds.count("strong_open") == strong and "s_open" not in kinds, kinds
    assert "fence" not in kinds and "code_block" not in kinds and "hr" not in kinds, kinds


def _one_line(text: str) -> str:
    return visible(" ".join(text.split()), None, redacted=False)


@FUZZ
@given(TEXTS)
def test_fuzz_md_escape_renders_as_the_same_words_and_nothing_else(text: str) -> None:
    escaped = md_escape(text)
    if not escaped:  # nothing in the text: only our own markup is left, which is not the test
        assert not _one_line(text).strip()
        return
    for context in ("{}", "- {}", "1. {}", "> {}", "**{}**", "x **{}** y"):
        tokens = _parse(context.format(escaped))
        _assert_inert(tokens, strong=int("**" in context))
        assert sum(t.type == "paragraph_open" for t in tokens) <= 1  # no new block
    if "`" not in text:  # without code spans the words read back exactly
        inline = _inline(_parse(md_escape(text)))
        assert "".join(t.content for t in inline if t.type == "text") == _one_line(text).strip()


@FUZZ
@given(TEXTS)
def test_fuzz_md_escape_in_a_table_cell_keeps_the_columns(text: str) -> None:
    tokens = _parse(f"| a | b |\n| --- | --- |\n| {md_escape(text, table=True)} | end |\n")
    _assert_inert(tokens)
    cells = [t for t in tokens if t.type == "td_open"]
    assert len(cells) == 2
    last = [t for t in tokens if t.type == "inline"][-1]
    assert last.content == "end"


@FUZZ
@given(TEXTS)
def test_fuzz_md_code_round_trips(text: str) -> None:
    expected = visible(text, None, redacted=False)
    span = md_code(text)
    if not expected:
        assert span == ""
        return
    for markdown in (span, f"- x {span} y", f"| h |\n| --- |\n| {md_code(text, table=True)} |\n"):
        tokens = _parse(markdown)
        _assert_inert(tokens)
        codes = [t for t in _inline(tokens) if t.type == "code_inline"]
        assert [c.content for c in codes] == [expected], markdown


def test_a_backslash_before_a_backtick_cannot_end_a_code_span() -> None:
    name = "x\\`<script>document.title='pwned'</script>`"
    _assert_inert(_parse(f"- {md_escape(name)}"))
    _assert_inert(_parse(f"- {md_code(name)}"))
    assert md_escape("x\n## forged heading").count("\n") == 0
    assert md_escape("1. not a list").startswith("1\\.")
    assert md_escape("note_id") == "note_id"  # an underscore inside a word stays readable


# -- the commands -------------------------------------------------------------------------

TOOL = "read" + CLEAR + RLO + "[bold]name"
PARAM = "q" + TITLE + RLO


def _write_trace(tmp_path: Path) -> tuple[Path, Path]:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({
        "calls": [{"tool": TOOL, "args": {PARAM: HOSTILE}, "result": HOSTILE},
                  {"tool": "fails" + CLIPBOARD, "args": {"x": 1}, "error": "boom " + HOSTILE}],
        "final_answer": "Done. " + HOSTILE,
    }), encoding="utf-8")
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": TOOL, "args": {PARAM: "other" + TITLE}},
                                {"tool": "missing" + CLEAR}]), encoding="utf-8")
    return gold, trace


def _strings(data: object) -> set[str]:
    """Every string value in a JSON document."""
    if isinstance(data, str):
        return {data}
    items = data.values() if isinstance(data, dict) else data if isinstance(data, list) else ()
    return set().union(*(_strings(item) for item in items)) if items else set()


def _run(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True,
                          timeout=120, check=False, env={**os.environ, "NO_COLOR": "1"})
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert "Traceback" not in out + err, err
    return proc.returncode, out, err


@pytest.mark.parametrize("command", [("eval",), ("eval", "--report", "md"), ("eval", "--report", "json"),
                                     ("validate",), ("validate", "--json")])
def test_eval_and_validate_print_a_hostile_trace_made_visible(tmp_path: Path, command: tuple[str, ...]) -> None:
    gold, trace = _write_trace(tmp_path)
    files = (str(gold), str(trace)) if command[0] == "eval" else (str(trace),)
    code, out, err = _run(command[0], *files, *command[1:])
    assert code in (0, 1), err
    assert hidden(out.replace("\n", "")) == set() and hidden(err.replace("\n", "")) == set()
    if command == ("validate", "--json"):
        data = json.loads(out)  # the same data, with JSON escapes
        assert data["calls"][0]["tool"] == TOOL and data["final_answer"].startswith("Done. \x1b")
    elif command == ("eval", "--report", "json"):
        assert "\\u202e" in out and TOOL in _strings(json.loads(out))  # escaped on screen, intact as data
    else:
        assert "\\x1b[2J" in out and "\\u202e" in out
    if command[0] == "validate" and len(command) == 1:
        assert "Done. \\x1b[2J" in out  # the final answer, one line, escaped
    if command == ("eval", "--report", "md"):
        tokens = _parse(out)
        kinds = {t.type for t in tokens} | {c.type for c in _inline(tokens)}
        assert not kinds & {"html_inline", "html_block", "link_open", "image"}
        headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
        assert set(headings) <= {"Toolscore evaluation", "Expected vs actual tool calls", "Top issues to fix",
                                 "Behavior and safety", "Metrics and weights"}


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (run `make browser`)")
def test_markdown_report_rendered_in_chromium_runs_no_script(tmp_path: Path) -> None:
    """The report rendered as a renderer that lets HTML through would, then opened in a real
    browser: a <script> or an onerror handler that got out would retitle the page."""
    from markdown_it import MarkdownIt

    from toolscore_core import evaluate
    from toolscore_core.reports.markdown import render_markdown

    attacks = ["x\\`<script>document.title='pwned'</script>`",
               "y`<img src=x onerror=\"document.title='pwned'\">",
               "<script>document.title='pwned'</script>"]
    evaluation = evaluate([{"tool": a, "args": {"q": a}} for a in attacks],
                          [{"tool": a, "args": {"q": a + "!"}} for a in attacks])
    import io

    stream = io.StringIO()
    render_markdown(evaluation, stream)
    body = MarkdownIt("commonmark", {"html": True}).enable("table").render(stream.getvalue())
    page = tmp_path / "report.html"
    page.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>safe</title></head>"
                    f"<body>{body}</body></html>", encoding="utf-8")
    assert CHROMIUM is not None
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000", "--dump-dom",
                           page.as_uri()], capture_output=True, text=True, timeout=60, check=False)
    assert "<title>safe</title>" in proc.stdout, proc.stderr[-2000:]
    assert "pwned</title>" not in proc.stdout
    assert "&lt;script&gt;" in proc.stdout or "<code>" in proc.stdout  # the attack is shown as text
