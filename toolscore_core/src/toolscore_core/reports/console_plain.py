"""The console report without colour, drawn without rich: the same characters, faster.

Why: importing rich and laying the report out with it cost ~40 ms of the ~350 ms of
``toolscore eval`` on a 10,000-call trace (issue 12), and off a terminal (a CI log, a pipe)
the report has no colour, so rich only places characters. This module places them the way
rich does for the few shapes the report uses: a boxed table, a panel, grids, and lines,
with rich's measuring, column-collapsing and word-wrapping rules.

It is exact only for text whose every character is one terminal cell wide and needs no
cleaning (printable ASCII and a few symbols the report itself writes). Anything else, or a
layout that would not fit the width, raises :class:`Unfit` and the caller draws the report
with rich as before. ``tests/core/test_console_plain.py`` checks the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from toolscore_core.reports.alignment import any_problem, problem_rows
from toolscore_core.reports.summary import (
    METRICS_TITLE,
    ReportData,
    finding_text,
    required_line,
    severity_label,
    weight_text,
)
from toolscore_core.reports.text import escape_controls, percent

#: Characters drawn one cell wide, unchanged, by rich's text: printable ASCII and the
#: symbols the report writes itself (``≠`` in mismatches, ``✓`` for a match, ``…``).
PLAIN_CHARACTERS = frozenset(map(chr, range(0x20, 0x7F))) | frozenset("≠✓…")

_WORD = re.compile(r"\s*\S+\s*")
_TRAILING_BLANKS = re.compile(r"\s+$")


class Unfit(Exception):
    """The report (or one block of it) needs rich's full layout: draw it with rich."""


class Column:
    """One column: how its cells are justified, wrapped and cut, and its header."""

    __slots__ = ("header", "justify", "no_wrap", "overflow")

    def __init__(self, header: str = "", *, justify: str = "left", no_wrap: bool = False,
                 overflow: str = "ellipsis") -> None:
        self.header = header
        self.justify = justify
        self.no_wrap = no_wrap
        self.overflow = overflow


class Box:
    """The characters of a table border, in rich's eight-line notation."""

    def __init__(self, spec: str) -> None:
        lines = spec.split("\n")
        self.top, self.head, self.head_row, self.mid, self.row, _foot_row, self.foot, self.bottom = lines

    @staticmethod
    def rule(chars: str, widths: Sequence[int]) -> str:
        """A horizontal rule: ``chars`` is left, horizontal, cross, right."""
        left, horizontal, cross, right = tuple(chars)
        return left + cross.join(horizontal * width for width in widths) + right


SQUARE = Box("┌─┬┐\n│ ││\n├─┼┤\n│ ││\n├─┼┤\n├─┼┤\n│ ││\n└─┴┘")
HEAVY_HEAD = Box("┏━┳┓\n┃ ┃┃\n┡━╇┩\n│ ││\n├─┼┤\n├─┼┤\n│ ││\n└─┴┘")


def check(text: str) -> str:
    """``text`` itself, when every character is one plain cell (newlines between lines)."""
    if not PLAIN_CHARACTERS.issuperset(text.replace("\n", "")):
        raise Unfit(text)
    return text


# -- text: measuring and wrapping --------------------------------------------------------

def widest_line(text: str) -> int:
    """How wide a text is drawn when nothing wraps: its longest line."""
    return max((len(line) for line in text.splitlines()), default=0)


def _break_offsets(line: str, width: int, *, fold: bool) -> list[int]:
    """Where a line breaks to fit ``width``: whole words, a longer word folded when ``fold``."""
    offsets: list[int] = []
    used = 0
    match = _WORD.match(line, 0)
    while match is not None:
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if width - used >= length:
            used += len(word)
        elif length > width:
            pieces = [word[i:i + width] for i in range(0, len(word), width)] if fold else [word]
            for number, piece in enumerate(pieces, start=1):
                if start:
                    offsets.append(start)
                if number == len(pieces):
                    used = len(piece)
                else:
                    start += len(piece)
        elif used and start:
            offsets.append(start)
            used = len(word)
        match = _WORD.match(line, match.end())
    return offsets


def _cut(text: str, width: int, overflow: str) -> str:
    """``text`` cut to ``width``: with ``…`` for the ellipsis overflow, else plainly."""
    if len(text) <= width:
        return text
    return text[:width - 1] + "…" if overflow == "ellipsis" else text[:width]


def _justify(line: str, width: int, justify: str, overflow: str) -> str:
    """One line placed in ``width`` cells; "default" leaves it as it is (no padding)."""
    if justify == "left":
        return _cut(line, width, overflow).ljust(width)
    if justify in ("right", "center"):
        line = _cut(line.rstrip(), width, overflow)
        left = width - len(line) if justify == "right" else (width - len(line)) // 2
        return (" " * left + line).ljust(width) if justify == "center" else " " * left + line
    return line


def wrap(text: str, width: int, *, justify: str = "default", overflow: str = "fold",
         no_wrap: bool = False) -> list[str]:
    """The lines ``text`` is drawn as in ``width`` cells."""
    lines: list[str] = []
    for line in text.split("\n"):
        if no_wrap:
            pieces = [line]
        else:
            bounds = [0, *_break_offsets(line, width, fold=overflow == "fold"), len(line)]
            pieces = [_strip_over(line[a:b], width) for a, b in pairwise(bounds)]
        lines += [_cut(_justify(piece, width, justify, overflow), width, overflow) for piece in pieces]
    return lines


def _strip_over(piece: str, width: int) -> str:
    """Trailing blanks past ``width`` dropped (the blank a line broke at)."""
    excess = len(piece) - width
    blanks = _TRAILING_BLANKS.search(piece) if excess > 0 else None
    return piece[:len(piece) - min(len(blanks.group(0)), excess)] if blanks else piece


# -- tables ------------------------------------------------------------------------------

class Table:
    """A table or grid laid out the way the rich report lays it out."""

    def __init__(self, columns: list[Column], rows: list[list[str]], *, box: Box | None = None,
                 show_header: bool = False, show_lines: bool = False, padding: tuple[int, int] = (1, 1),
                 title: str | None = None, caption: str | None = None) -> None:
        self.columns = columns
        self.rows = [[check(cell) for cell in row] for row in rows]
        self.box = box
        self.show_header = show_header
        self.show_lines = show_lines
        self.pads = [padding] * len(columns)
        self.title = title
        self.caption = caption

    @classmethod
    def grid(cls, columns: list[Column], rows: list[list[str]], *, gap: int) -> Table:
        """A borderless grid: ``gap`` blanks after every column but the last."""
        table = cls(columns, rows)
        table.pads = [(0, gap)] * (len(columns) - 1) + [(0, 0)]
        return table

    def _cells(self, index: int) -> list[str]:
        head = [check(self.columns[index].header)] if self.show_header else []
        return head + [row[index] for row in self.rows]

    def _measure_column(self, index: int, max_width: int) -> int:
        """The widest the column wants to be (its padding included), at most ``max_width``."""
        if max_width < 1:
            return 0
        left, right = self.pads[index]
        widest = [_padded_width(cell, left + right, max_width) for cell in self._cells(index)]
        return min(max(widest), max_width) if widest else max_width

    def _extra_width(self) -> int:
        return 2 + len(self.columns) - 1 if self.box else 0

    def widths(self, width: int) -> list[int]:
        """Each column's width (padding included, borders not) within ``width``."""
        max_width = width - self._extra_width()
        widths = [self._measure_column(i, max_width) or 1 for i in range(len(self.columns))]
        if sum(widths) > max_width:
            widths = _collapse(widths, [not c.no_wrap for c in self.columns], max_width)
            if sum(widths) > max_width:
                raise Unfit("columns that cannot wrap are wider than the report")
            widths = [self._measure_column(i, w) for i, w in enumerate(widths)]
        return widths

    def render(self, width: int) -> list[str]:
        widths = self.widths(width)
        table_width = sum(widths) + self._extra_width()
        lines = wrap(check(self.title), table_width, justify="center") if self.title else []
        if self.box:
            lines.append(Box.rule(self.box.top, widths))
        bodies = [[row[i] for i in range(len(self.columns))] for row in self.rows]
        all_rows = ([[c.header for c in self.columns]] if self.show_header else []) + bodies
        for number, row in enumerate(all_rows):
            header = self.show_header and number == 0
            lines += self._row_lines(row, widths, number, len(all_rows), header=header)
            if self.box and header:
                lines.append(Box.rule(self.box.head_row, widths))
            elif self.box and self.show_lines and number < len(all_rows) - 1:
                lines.append(Box.rule(self.box.row, widths))
        if self.box:
            lines.append(Box.rule(self.box.bottom, widths))
        if self.caption:
            lines += wrap(check(self.caption), table_width, justify="center")
        return lines

    def _row_lines(self, row: list[str], widths: list[int], number: int, count: int, *, header: bool) -> list[str]:
        cells = [self._cell_lines(text, i, widths[i]) for i, text in enumerate(row)]
        height = max(len(cell) for cell in cells)
        for i, cell in enumerate(cells):
            blank = [" " * widths[i]] * (height - len(cell))
            cells[i] = blank + cell if header else cell + blank
        if not self.box:
            return ["".join(parts) for parts in zip(*cells, strict=True)]
        chars = self.box.head if number == 0 else (self.box.foot if number == count - 1 else self.box.mid)
        left, _blank, divider, right = tuple(chars)
        return [left + divider.join(parts) + right for parts in zip(*cells, strict=True)]

    def _cell_lines(self, text: str, index: int, width: int) -> list[str]:
        column = self.columns[index]
        left, right = self.pads[index]
        inner = width - left - right
        if inner < 1:
            raise Unfit("a column narrower than its padding")
        lines = wrap(text, inner, justify=column.justify, overflow=column.overflow, no_wrap=column.no_wrap)
        return [" " * left + line[:inner].ljust(inner) + " " * right for line in lines]


def _padded_width(text: str, extra: int, max_width: int) -> int:
    """The widest a padded cell wants to be within ``max_width`` (0: it cannot be drawn)."""
    if max_width - extra < 1:
        return max_width
    widest = min(widest_line(text), max_width)
    return min(widest + extra, max_width) if widest >= 1 else min(extra, max_width)


def _collapse(widths: list[int], wrapable: list[bool], max_width: int) -> list[int]:
    """Narrow the widest wrapping columns, step by step, until the table fits."""
    widths = list(widths)
    excess = sum(widths) - max_width
    while any(wrapable) and sum(widths) > 0 and excess > 0:
        pairs = list(zip(widths, wrapable, strict=True))
        widest = max(w for w, ok in pairs if ok)
        second = max(w if ok and w != widest else 0 for w, ok in pairs)
        chosen = [ok and w == widest for w, ok in pairs]
        if not any(chosen) or widest == second:
            break
        widths = _reduce(excess, chosen, min(excess, widest - second), widths)
        excess = sum(widths) - max_width
    return widths


def _reduce(total: int, chosen: list[bool], most: int, widths: list[int]) -> list[int]:
    """Take ``total`` cells from the ``chosen`` columns, evenly (rounded), at most ``most`` each."""
    share_count = sum(chosen) if most else 0
    if not share_count:
        return list(widths)
    remaining, result = total, []
    for take, width in zip(chosen, widths, strict=True):
        if take and share_count > 0:
            cut = min(most, round(remaining / share_count))
            result.append(width - cut)
            remaining -= cut
            share_count -= 1
        else:
            result.append(width)
    return result


# -- whole blocks ------------------------------------------------------------------------

def panel(text: str, width: int) -> list[str]:
    """A rounded box that fits ``text`` on one line."""
    check(text)
    if "\n" in text or len(text) + 4 > width:
        raise Unfit(text)
    bar = "─" * (len(text) + 2)
    return [f"╭{bar}╮", f"│ {text} │", f"╰{bar}╯"]


def line(text: str, width: int) -> list[str]:
    """A line of text, wrapped at words the way rich wraps it."""
    return wrap(check(text), width)



# -- the report ---------------------------------------------------------------------------

def report_lines(data: ReportData, width: int) -> list[str]:
    """The console report of ``data`` in ``width`` cells, line by line, as
    :func:`toolscore_core.reports.console.build_blocks` draws it without colour."""
    from toolscore_core.reports.console import MAX_ROWS

    metrics = Table([Column(), Column(justify="right")],
                    [[row.label, percent(row.value)] for row in data.metrics], box=SQUARE)
    lines = [*metrics.render(width), ""]
    lines += panel(f"Grade {data.grade}   {data.verdict} ({percent(data.score)})", width)
    if data.min_score is not None:
        bar = "below" if data.below_min_score else "meets"
        lines += line(f"Score {percent(data.score)} {bar} the required {percent(data.min_score)}", width)
    lines.append("")
    if data.required_total:
        lines += [*line(required_line(data), width), ""]
    rows, left_out = problem_rows(data.rows, MAX_ROWS)
    if any_problem(data.rows):
        lines += [*calls_table(rows, left_out).render(width), ""]
    if data.issues:
        issues = [[f"  {number}.", f"{issue.subject}  {issue.problem}" + (f"\nfix: {issue.fix}" if issue.fix else "")]
                  for number, issue in enumerate(data.issues, start=1)]
        grid = Table.grid([Column(justify="right", no_wrap=True), Column()], issues, gap=1)
        lines += [*line("Top issues to fix", width), *grid.render(width), ""]
    if data.findings:
        findings = [[f"  {severity_label(f):<8}", finding_text(f)] for f in data.findings]
        lines += [*line("Behavior and safety", width),
                  *Table.grid([Column(no_wrap=True), Column()], findings, gap=1).render(width)]
        if data.findings_left_out:
            lines += line(f"  … and {data.findings_left_out} more (see the JSON report)", width)
        lines.append("")
    if data.all_metrics:
        every = [[f"  {m.label}", percent(m.value), f"weight {weight_text(m.weight)}"] for m in data.all_metrics]
        columns = [Column(no_wrap=True), Column(justify="right", no_wrap=True), Column(no_wrap=True)]
        lines += [*line(METRICS_TITLE, width), *Table.grid(columns, every, gap=2).render(width), ""]
    if any(len(text) > width for text in lines):
        raise Unfit("a line wider than the report")
    return lines


def calls_table(rows: list[Any], left_out: int, *, title: str = "Expected vs Actual Tool Calls") -> Table:
    """The aligned table of :func:`toolscore_core.reports.console.calls_table`, uncoloured."""
    columns = [Column("#", justify="right", no_wrap=True), Column("Expected", overflow="fold"),
               Column("Actual", overflow="fold"), Column("Status", overflow="fold")]
    cells = [[str(row.number), row.expected or "-", row.actual or "-",
              "\n".join(escape_controls(p) for p in row.problems) if row.problems else row.status_text()]
             for row in rows]
    caption = f"… {left_out} more row(s) not shown" if left_out else None
    return Table(columns, cells, box=HEAVY_HEAD, show_header=True, show_lines=True, title=title, caption=caption)


__all__ = ["PLAIN_CHARACTERS", "Column", "Table", "Unfit", "calls_table", "line", "panel", "report_lines", "wrap"]
