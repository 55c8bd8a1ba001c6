"""The console report drawn without rich must be the report rich draws, character for character.

Why: off a terminal, ``toolscore eval`` draws its report without importing rich (issue 12:
~40 ms of a 10k-call run). Nothing may change in what it prints, so every piece is checked
against rich on random input (text, widths, tables, whole evaluations), and whatever the
plain drawing cannot do exactly must make it step aside (``Unfit``), never differ.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from rich import box as rich_box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from toolscore_core.kernel.plugins import PluginManager
from toolscore_core.reports import console_plain as plain
from toolscore_core.reports.console import build_blocks, make_console, render_console
from toolscore_core.reports.summary import summarize
from toolscore_core.scoring.evaluation import evaluate

SYMBOLS = sorted(plain.PLAIN_CHARACTERS - set(map(chr, range(0x20, 0x7F))))


def draw(renderable: Any, width: int) -> str:
    """What rich prints for ``renderable``, as the report prints it (trailing blanks cut)."""
    buffer = io.StringIO()
    make_console(buffer, color=False, width=width).print(renderable)
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def ours(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in [*lines, ""])


def random_text(rng: random.Random, *, lines: int = 1) -> str:
    """Words of every length (some longer than any column), spaces, a few report symbols."""
    def word() -> str:
        length = rng.choice([1, 2, 3, 5, 8, 13, 21, 40])
        return "".join(rng.choice("abcdefghij(),'=_:.-" + "".join(SYMBOLS)) for _ in range(length))

    return "\n".join(
        (" " * rng.choice([0, 0, 0, 1, 2])) + (" " * rng.choice([1, 1, 1, 2])).join(
            word() for _ in range(rng.randint(0, 9))) + (" " * rng.choice([0, 0, 1]))
        for _ in range(lines))


def test_the_report_symbols_are_one_cell_wide_for_rich() -> None:
    from rich.cells import cell_len

    assert all(cell_len(symbol) == 1 for symbol in SYMBOLS)


@pytest.mark.parametrize("seed", range(4))
def test_wrapped_text_is_what_rich_wraps(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        text = random_text(rng, lines=rng.randint(1, 3))
        width = rng.randint(1, 70)
        justify = rng.choice(["default", "left", "right", "center"])
        overflow = rng.choice(["fold", "ellipsis", "crop"])
        expected = [str(t) for t in Text(text).wrap(Console(width=200), width, justify=justify, overflow=overflow)]
        assert plain.wrap(text, width, justify=justify, overflow=overflow) == expected, (text, width, justify,
                                                                                        overflow)


@pytest.mark.parametrize("seed", range(4))
def test_tables_and_grids_are_what_rich_draws(seed: int) -> None:
    rng = random.Random(100 + seed)
    drawn = 0
    for _ in range(150):
        count, width = rng.randint(1, 4), rng.randint(10, 140)
        specs = [(rng.choice(["left", "right"]), rng.random() < 0.3, rng.choice(["fold", "ellipsis"]))
                 for _ in range(count)]
        rows = [[random_text(rng, lines=rng.choice([1, 1, 2])) for _ in range(count)] for _ in range(rng.randint(0, 5))]
        columns = [plain.Column(f"H{i}", justify=j, no_wrap=n, overflow=o) for i, (j, n, o) in enumerate(specs)]
        if rng.random() < 0.5:
            gap = rng.choice([1, 2])
            table = plain.Table.grid(columns, rows, gap=gap)
            theirs = RichTable.grid(padding=(0, gap))
        else:
            title = rng.choice([None, "Expected vs Actual Tool Calls"])
            caption = rng.choice([None, "… 3 more row(s) not shown"])
            table = plain.Table(columns, rows, box=plain.HEAVY_HEAD, show_header=True, show_lines=True,
                                title=title, caption=caption)
            theirs = RichTable(title=title, caption=caption, box=rich_box.HEAVY_HEAD, show_lines=True)
        for (j, n, o), column in zip(specs, columns, strict=True):
            theirs.add_column(column.header, justify=j, no_wrap=n, overflow=o)  # type: ignore[arg-type]
        for row in rows:
            theirs.add_row(*row)
        try:
            mine = table.render(width)
        except plain.Unfit:
            continue
        if any(len(line) > width for line in mine):
            continue  # report_lines steps aside for these
        drawn += 1
        assert ours(mine) == draw(theirs, width), (specs, rows, width)
    assert drawn > 60  # most random tables are drawn, so this compares something


def random_case(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A gold list and a trace with matches, wrong tools, wrong and long arguments, failures."""
    gold: list[dict[str, Any]] = []
    trace: list[dict[str, Any]] = []
    for _ in range(rng.randint(1, 40)):
        tool = rng.choice(["search", "get_weather", "book_flight", "a_rather_long_tool_name_for_wrapping_tests"])
        args = {"query": random_text(rng) or "x", "page": rng.randint(0, 3)}
        gold.append({"tool": tool, "args": args})
        call: dict[str, Any] = {"tool": tool, "args": dict(args)}
        roll = rng.random()
        if roll < 0.2:
            call["args"]["query"] = random_text(rng) + " (edited)"
        elif roll < 0.3:
            call["tool"] = "other_tool"
        elif roll < 0.35:
            continue
        if rng.random() < 0.1:
            call.update(is_error=True, error=random_text(rng) or "failed")
        trace.append(call)
    return gold, trace


@pytest.mark.parametrize("seed", range(3))
def test_whole_reports_are_what_rich_draws(seed: int) -> None:
    rng = random.Random(1000 + seed)
    pm = PluginManager(autoload=False)
    drawn = 0
    for _ in range(25):
        gold, trace = random_case(rng)
        data = summarize(evaluate(gold, trace, min_score=rng.choice([None, 0.5, 0.99]), plugin_manager=pm))
        for width in (rng.randint(40, 79), 100, rng.randint(101, 200)):
            try:
                mine = ours(plain.report_lines(data, width))
            except plain.Unfit:
                continue
            drawn += 1
            expected = "".join(draw(block, width) for block in build_blocks(data))
            assert mine == "\n".join(line.rstrip() for line in expected.split("\n")), (gold, trace, width)
    assert drawn > 30


def test_text_it_cannot_draw_exactly_goes_to_rich() -> None:
    gold = [{"tool": "search", "args": {"query": "東京"}}]  # two-cell characters
    trace = [{"tool": "search", "args": {"query": "大阪"}}]
    data = summarize(evaluate(gold, trace, plugin_manager=PluginManager(autoload=False)))
    with pytest.raises(plain.Unfit):
        plain.report_lines(data, 100)
    out = io.StringIO()
    render_console(evaluate(gold, trace, plugin_manager=PluginManager(autoload=False)), out, color=False)
    assert "東京" in out.getvalue() and "┏" in out.getvalue()  # drawn by rich, as before


@pytest.mark.parametrize("where", ["windows", "notebook"])
def test_where_rich_draws_differently_it_draws(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A legacy Windows console gets other box characters, a notebook its own display: rich knows."""
    import sys

    from toolscore_core.reports import console

    data = summarize(evaluate([{"tool": "a"}], [{"tool": "b"}], plugin_manager=PluginManager(autoload=False)))
    assert console._plain_report(data, 100) is not None
    if where == "windows":
        monkeypatch.setattr(sys, "platform", "win32")
    else:
        monkeypatch.setitem(sys.modules, "IPython", sys)
    assert console._plain_report(data, 100) is None
