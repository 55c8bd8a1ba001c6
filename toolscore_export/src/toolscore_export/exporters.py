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
from toolscore_export.canonical import prepared_bytes
from toolscore_export.parallel import EncodedRecords

SUBJECT = "run-record"


class RunRecordLines(Exporter):
    """``--format aef``: one ``toolscore.run-record`` v1 per line (JSON Lines)."""

    name: ClassVar[str] = f"{SUBJECT}-aef"
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "aef"
    description: ClassVar[str] = "neutral run records (toolscore.run-record v1), one per line, hashed"
    extension: ClassVar[str] = ".jsonl"
    takes_encoded: ClassVar[bool] = True  # blocks of lines encoded by worker processes are written as they are
    BATCH_BYTES: ClassVar[int] = 1 << 16  # a small batch: memory stays flat, a write per ~20 records

    def export(self, subject: Iterable[Any], stream: IO[str], **options: Any) -> None:
        raw = getattr(stream, "buffer", None)  # the bytes under a text stream: a line needs no re-encoding
        if raw is None:
            self._export_text(subject, stream)
            return
        # Lines are gathered and written as bytes a batch at a time: the encoder's bytes are
        # already what the text layer would write (UTF-8, a lone surrogate escaped), and the
        # decode and re-encode through it cost more than the write itself.
        batch: list[bytes] = []
        size = 0
        for record in subject:
            if isinstance(record, EncodedRecords):  # a worker's block: written as it is, never copied
                self._write(stream, raw, batch)
                raw.write(record.data)
                batch, size = [], 0
                continue
            line = prepared_bytes(record, sort_keys=False)
            batch.append(line)
            batch.append(b"\n")
            size += len(line) + 1
            if size >= self.BATCH_BYTES:
                self._write(stream, raw, batch)
                batch, size = [], 0
        self._write(stream, raw, batch)

    @staticmethod
    def _write(stream: IO[str], raw: Any, batch: list[bytes]) -> None:
        stream.flush()  # anything written as text goes first
        raw.write(b"".join(batch))

    @staticmethod
    def _export_text(subject: Iterable[Any], stream: IO[str]) -> None:
        """The same lines for a stream without a byte layer (an ``io.StringIO``, say)."""
        write = stream.write
        for record in subject:
            if isinstance(record, EncodedRecords):
                write(record.data.decode("utf-8"))
                continue
            write(prepared_bytes(record, sort_keys=False).decode("utf-8"))
            write("\n")


class RunRecordOtel(Exporter):
    """``--format otel``: each verdict as a ``gen_ai.evaluation.result`` event (OTLP/JSON Lines).

    Each line is one OTLP ``ExportLogsServiceRequest`` of up to ``BATCH`` events (the line
    format the OpenTelemetry Collector's file exporter writes and its file receiver reads).
    With ``endpoint`` each line is also POSTed to that collector as it is written (OTLP/HTTP;
    ``otlp_protocol``, ``timeout``, ``headers``), so the file is a copy of what was sent.
    """

    name: ClassVar[str] = f"{SUBJECT}-otel"
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "otel"
    description: ClassVar[str] = "each verdict as an OpenTelemetry gen_ai.evaluation.result event (OTLP/JSON)"
    extension: ClassVar[str] = ".jsonl"
    BATCH: ClassVar[int] = 100

    def export(self, subject: Iterable[dict[str, Any]], stream: IO[str], **options: Any) -> None:
        import json
        import time

        from toolscore_export import __version__
        from toolscore_export.otel import event_batches, export_request

        sender = None
        if options.get("endpoint"):
            from toolscore_export.otlp_http import OtlpSender

            sender = OtlpSender(options["endpoint"], protocol=options.get("otlp_protocol"),
                                timeout=float(options.get("timeout") or 10.0), headers=options.get("headers"))
        observed = str(time.time_ns())
        for batch in event_batches(subject, self.BATCH, observed):
            request = export_request(batch, __version__)
            stream.write(json.dumps(request, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
            stream.write("\n")
            if sender is not None:
                sender.send(request, len(batch))


__all__ = ["SUBJECT", "RunRecordLines", "RunRecordOtel"]
