"""The run-record formats, registered through ``toolscore_register_exporters`` like a third party's.

An exporter of subject ``run-record`` gets the records one by one (an iterator: it must
write as it goes, never collect them) and a text stream. ``aef`` is the neutral JSON Lines
format, one record per line; a third party adds an importer for its own platform as one
module with one class like these and one entry point in the ``toolscore.exporters`` group.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any, ClassVar

from toolscore_core import Exporter
from toolscore_export.canonical import line_text

SUBJECT = "run-record"


class RunRecordLines(Exporter):
    """``--format aef``: one ``toolscore.run-record`` v1 per line (JSON Lines)."""

    name: ClassVar[str] = f"{SUBJECT}-aef"
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "aef"
    description: ClassVar[str] = "neutral run records (toolscore.run-record v1), one per line, hashed"
    extension: ClassVar[str] = ".jsonl"

    def export(self, subject: Iterable[dict[str, Any]], stream: IO[str], **options: Any) -> None:
        write = stream.write
        for record in subject:
            write(line_text(record))
            write("\n")


__all__ = ["SUBJECT", "RunRecordLines"]
