"""What a long export (or ``export validate``) shows while it works: the records written (lines
checked) so far, the time and the rate, on stderr (stdout keeps the one line that says what was
done, for scripts).

Why: a gigabyte of runs or traces takes the export half a minute to a minute, and it begins
with a first pass that writes nothing yet; without a sign of life a user cannot tell working from
stuck, and a CI job with no output for minutes may be killed as hung. In a terminal one line
is rewritten a few times a second; anywhere else (a CI log, a file) a line is added every
:data:`LOG_EVERY_S` seconds, so a log holds a handful of lines, not thousands. An export done
before :data:`FIRST_AFTER_S` shows nothing, so short ones (and every test's) print as before.

Why no thread: the export's workers start by ``fork``, which it allows only in a process with
no other thread (``parallel.can_fork``). The export calls :meth:`ExportProgress.update` as it
writes records and each time a worker's result comes back, first pass included: often enough
to be seen, and each call that is not time to show costs one clock read.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

#: Seconds between lines where stderr is not a terminal (CI logs).
LOG_EVERY_S = 10.0
#: Seconds between rewrites of the line in a terminal.
TERMINAL_EVERY_S = 0.25
#: Nothing is shown before an export has run this long (in a terminal; a log waits LOG_EVERY_S).
FIRST_AFTER_S = 1.0


class ExportProgress:
    """The progress of one export on ``stream``: call :meth:`update` with the records written so far
    (as often as you like), then :meth:`finish` once, whatever the outcome."""

    def __init__(self, stream: IO[str], sources: Sequence[str | Path], *, doing: str = "exporting",
                 done: str = "records", clock: Callable[[], float] = time.monotonic) -> None:
        self.doing, self.done = doing, done  # "checking", "lines" for ``export validate``
        self.stream = stream
        self.terminal = bool(getattr(stream, "isatty", lambda: False)())
        self.clock = clock
        self.started = clock()
        self.every = TERMINAL_EVERY_S if self.terminal else LOG_EVERY_S
        self.next_at = self.started + (FIRST_AFTER_S if self.terminal else LOG_EVERY_S)
        self.sources = sources
        self.what = ""  # what is read, named once there is something to show (each source is looked at)
        self.records = 0
        self.shown = False  # a terminal line is up, to be ended by finish

    def update(self, records: int) -> None:
        """Note ``records`` written so far; show them if it is time."""
        self.records = records
        now = self.clock()
        if now < self.next_at:
            return
        self.next_at = now + self.every
        if not self.what:
            self.what = _sources_text(self.sources)
        text = self.text(now)
        if self.terminal:
            self.stream.write(f"\r{text}\x1b[K")  # the rest of a longer earlier line erased
            self.shown = True
        else:
            self.stream.write(f"toolscore: {text}\n")
        self.stream.flush()

    def text(self, now: float) -> str:
        """``exporting runs.jsonl (1.0 GiB): 84,000 records in 12 s (7,000/s)``; before the first
        record, ``... reading, 4 s``."""
        elapsed = max(now - self.started, 1e-9)
        if not self.records:
            return f"{self.doing} {self.what}: reading, {elapsed:.0f} s"
        return (f"{self.doing} {self.what}: {self.records:,} {self.done} in {elapsed:.0f} s "
                f"({self.records / elapsed:,.0f}/s)")

    def finish(self) -> None:
        """End a terminal line left up with the last count (the next output starts on a line of its own)."""
        if self.shown:
            self.stream.write(f"\r{self.text(self.clock())}\x1b[K\n")
            self.stream.flush()
            self.shown = False


def _sources_text(sources: Sequence[str | Path]) -> str:
    """``runs.jsonl (1.0 GiB)`` or ``3 sources (1.2 GiB)``: what the export reads, by name and size.

    A name is shown as :func:`toolscore_core.reports.text.visible` shows text from outside (a file
    name may hold control characters), and cut short."""
    from toolscore_core.reports.text import visible

    size = 0
    for source in sources:
        with contextlib.suppress(OSError):  # read as the export reads it: its error is the export's to give
            size += Path(source).stat().st_size
    name = visible(Path(sources[0]).name, 60) if len(sources) == 1 else f"{len(sources):,} sources"
    return f"{name} ({_size_text(size)})"


def _size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KiB", "MiB"):
        value /= 1024
        if value < 1024:
            return f"{value:.1f} {unit}"
    return f"{value / 1024:.1f} GiB"


__all__ = ["FIRST_AFTER_S", "LOG_EVERY_S", "TERMINAL_EVERY_S", "ExportProgress"]
