"""`toolscore export --format otel`: verdicts as `gen_ai.evaluation.result` events, in a file
and sent to a real OTLP/HTTP receiver on 127.0.0.1 that decodes them with the official
protobuf definitions (opentelemetry-proto)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from toolscore_core import InputError
from toolscore_export import export_runs

ROOT = Path(__file__).resolve().parents[2]
MCP_SPANS = ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"
TRACE_ID = "b8a1abcd1a6916c74da4f9fc3c6da5d7"
EVAL_KEYS = {"gen_ai.evaluation.name", "gen_ai.evaluation.score.value", "gen_ai.evaluation.score.label",
             "gen_ai.evaluation.explanation"}


class Receiver:
    """A tiny OTLP/HTTP logs receiver: decodes each POST with the official classes, or fails it."""

    def __init__(self, status: int = 200, first: tuple[int, ...] = (), rejected: int = 0) -> None:
        self.requests: list[tuple[str, str, ExportLogsServiceRequest]] = []
        self.status = status
        self.first = list(first)  # statuses of the first requests, before ``status``
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                kind = self.headers.get("Content-Type", "")
                message = ExportLogsServiceRequest()
                if kind == "application/x-protobuf":
                    message.ParseFromString(body)
                else:
                    json_format.Parse(_base64_ids(body), message)
                owner.requests.append((self.path, kind, message))
                answer = ExportLogsServiceResponse()
                if rejected:
                    answer.partial_success.rejected_log_records = rejected
                reply = answer.SerializeToString()
                self.send_response(owner.first.pop(0) if owner.first else owner.status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def events(self) -> list:
        return [log for _, _, req in self.requests for res in req.resource_logs for scope in res.scope_logs
                for log in scope.log_records]


def _base64_ids(body: bytes) -> str:
    """OTLP/JSON writes ids in hex; protobuf's JSON parser reads bytes as base64."""
    import base64

    data = json.loads(body)
    for res in data["resourceLogs"]:
        for scope in res["scopeLogs"]:
            for log in scope["logRecords"]:
                for key in ("traceId", "spanId"):
                    if key in log:
                        log[key] = base64.b64encode(bytes.fromhex(log[key])).decode()
    return json.dumps(data)


def attrs_of(log) -> dict:
    out = {}
    for kv in log.attributes:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        out[kv.key] = [v.string_value for v in value.values] if kind == "array_value" else value
    return out


def gold_for_mcp_spans(tmp_path: Path) -> Path:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"expected": [{"tool": "read_text_file", "args": {"path": "notes/todo.md"}}]}))
    return gold


@pytest.fixture
def study_rows(tmp_path, rows_file, make_row) -> Path:
    failing = make_row(task="clean-up", arm="sloppy", outcome="fail",
                       evaluation={"score": 0.4, "grade": "D", "verdict": "FAIL", "min_score": 0.9,
                                   "passed_min_score": False, "required_call_recall": 0.5,
                                   "outcome_reasons": ["score 40% is below the bar"], "findings": []})
    return rows_file(tmp_path / "runs.jsonl", [make_row(), failing])


def test_the_file_holds_one_evaluation_event_per_verdict_with_the_conventions_names(tmp_path, study_rows):
    out = tmp_path / "events.jsonl"
    result = export_runs([study_rows], out, fmt="otel")
    assert result.records == 2 and result.manifest["format"] == "otel"
    [line] = out.read_text(encoding="utf-8").splitlines()
    request = json_format.Parse(_base64_ids(line.encode()), ExportLogsServiceRequest())
    logs = list(request.resource_logs[0].scope_logs[0].log_records)
    assert [log.event_name for log in logs] == ["gen_ai.evaluation.result"] * 2
    by_label = {attrs_of(log)["gen_ai.evaluation.score.label"]: (log, attrs_of(log)) for log in logs}
    passed, failed = by_label["pass"][1], by_label["fail"][1]
    assert set(passed) >= EVAL_KEYS and set(failed) >= EVAL_KEYS
    assert passed["gen_ai.evaluation.score.value"] == pytest.approx(0.95)
    assert failed["gen_ai.evaluation.score.value"] == pytest.approx(0.4)
    assert failed["gen_ai.evaluation.explanation"] == "score 40% is below the bar"
    assert failed["toolscore.run_id"] == "clean-up::sloppy::1" and failed["toolscore.variant.id"] == "sloppy"
    assert by_label["fail"][0].severity_text == "WARN" and by_label["pass"][0].severity_text == "INFO"
    # the row's finished_at (2026-12-02T10:15:01.25Z) is the event's time
    assert by_label["pass"][0].time_unix_nano == 1796206501_250000000
    assert by_label["pass"][0].trace_id == b""  # a harness row has no trace: nothing is invented


def test_events_are_sent_as_protobuf_and_linked_to_the_trace(tmp_path):
    gold = gold_for_mcp_spans(tmp_path)
    with Receiver() as receiver:
        export_runs([MCP_SPANS], tmp_path / "events.jsonl", fmt="otel", gold=gold, endpoint=receiver.url)
    [(path, kind, _)] = receiver.requests
    assert path == "/v1/logs" and kind == "application/x-protobuf"
    [log] = receiver.events()
    assert log.event_name == "gen_ai.evaluation.result"
    assert log.trace_id.hex() == TRACE_ID
    found = attrs_of(log)
    assert found["gen_ai.evaluation.name"] == "toolscore.tool_calling"
    assert found["gen_ai.evaluation.score.label"] in ("pass", "fail")
    assert 0.0 <= found["gen_ai.evaluation.score.value"] <= 1.0
    assert found["toolscore.call_span_ids"] == ["0512bd1311072231", "4a14876aeaff1a09", "fd724452ccea71ff"]
    record_hash = found["toolscore.record_sha256"]
    assert len(record_hash) == 64


def test_events_can_be_sent_as_otlp_json_to_an_explicit_path(tmp_path, study_rows):
    with Receiver() as receiver:
        export_runs([study_rows], tmp_path / "events.jsonl", fmt="otel", endpoint=receiver.url + "/custom/logs",
                    otlp_protocol="http/json")
    [(path, kind, _)] = receiver.requests
    assert path == "/custom/logs" and kind == "application/json"
    assert sorted(attrs_of(log)["gen_ai.evaluation.score.label"] for log in receiver.events()) == ["fail", "pass"]


def test_many_records_go_in_bounded_batches(tmp_path, rows_file, make_row):
    rows = rows_file(tmp_path / "runs.jsonl", [make_row(repetition=n) for n in range(1, 251)])
    with Receiver() as receiver:
        export_runs([rows], tmp_path / "events.jsonl", fmt="otel", endpoint=receiver.url)
    sizes = [len(req.resource_logs[0].scope_logs[0].log_records) for _, _, req in receiver.requests]
    assert sizes == [100, 100, 50]
    assert len((tmp_path / "events.jsonl").read_text().splitlines()) == 3


def test_a_trace_without_a_verdict_yields_no_event(tmp_path):
    out = tmp_path / "events.jsonl"
    result = export_runs([MCP_SPANS], out, fmt="otel")
    assert result.records == 1 and out.read_text() == ""


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_endpoint_is_exit_2_and_leaves_no_output(tmp_path, study_rows):
    out = tmp_path / "events.jsonl"
    started = time.monotonic()
    done = _cli("export", "--format", "otel", str(study_rows), "-o", str(out),
                "--endpoint", f"http://127.0.0.1:{_free_port()}", "--timeout", "2")
    assert time.monotonic() - started < 30
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "did not take the events" in done.stderr and "cannot reach it" in done.stderr
    assert not out.exists() and not list(tmp_path.glob(".events.jsonl.partial-*"))


def test_a_collector_error_status_is_exit_2_naming_it(tmp_path, study_rows):
    with Receiver(status=400) as receiver:
        done = _cli("export", "--format", "otel", str(study_rows), "-o", str(tmp_path / "e.jsonl"),
                    "--endpoint", receiver.url, "--header", "Authorization=Bearer sekrit-value")
    assert done.returncode == 2, done.stderr
    assert "HTTP 400" in done.stderr and "sekrit-value" not in done.stderr
    assert "Traceback" not in done.stderr


def test_a_busy_collector_is_retried_a_bounded_number_of_times(tmp_path, study_rows):
    with Receiver(first=(503,)) as receiver:
        export_runs([study_rows], tmp_path / "e.jsonl", fmt="otel", endpoint=receiver.url)
    assert len(receiver.requests) == 2  # refused once, then taken
    with Receiver(status=503) as receiver, pytest.raises(InputError, match="HTTP 503"):
        export_runs([study_rows], tmp_path / "e2.jsonl", fmt="otel", endpoint=receiver.url)
    assert len(receiver.requests) == 3 and not (tmp_path / "e2.jsonl").exists()


def test_events_the_collector_rejects_fail_the_export(tmp_path, study_rows):
    with Receiver(rejected=1) as receiver, pytest.raises(InputError, match="rejected 1 of 2 event"):
        export_runs([study_rows], tmp_path / "e.jsonl", fmt="otel", endpoint=receiver.url)
    assert len(receiver.requests) == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--format", "aef", "--endpoint", "http://127.0.0.1:4318"], "--format otel --endpoint"),
    (["--format", "otel", "--endpoint", "ftp://example"], "is not an http(s) URL"),
    (["--format", "otel", "--header", "A=b"], "only apply with --endpoint"),
    (["--format", "otel", "--endpoint", "http://127.0.0.1:4318", "--header", "sekrit-token"], "NAME=VALUE"),
])
def test_bad_send_options_are_exit_2_before_anything_is_read(tmp_path, study_rows, args, message):
    done = _cli("export", str(study_rows), "-o", str(tmp_path / "e.jsonl"), *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr and "sekrit-token" not in done.stderr


def test_the_command_sends_and_says_where(tmp_path, study_rows):
    with Receiver() as receiver:
        done = _cli("export", "--format", "otel", str(study_rows), "-o", str(tmp_path / "e.jsonl"),
                    "--endpoint", receiver.url, "--header", "Authorization=Bearer sekrit-value")
    assert done.returncode == 0, done.stderr
    assert f"sent to {receiver.url}/v1/logs" in done.stdout and "sekrit-value" not in done.stdout
    assert len(receiver.events()) == 2


def test_the_event_sits_on_the_run_span_of_the_trace(tmp_path):
    """An OTLP source names its agent span: the record keeps it and the event carries it as its spanId."""
    gold = gold_for_mcp_spans(tmp_path)
    with Receiver() as receiver:
        export_runs([MCP_SPANS], tmp_path / "events.jsonl", fmt="otel", gold=gold, endpoint=receiver.url)
    [log] = receiver.events()
    assert log.trace_id.hex() == TRACE_ID
    assert log.span_id.hex() == "7a97c643656412a9"  # the invoke_agent span of mcp_spans.json
    export_runs([MCP_SPANS], tmp_path / "records.jsonl", gold=gold)
    record = json.loads((tmp_path / "records.jsonl").read_text(encoding="utf-8"))
    assert record["trace_context"] == {"trace_id": TRACE_ID, "span_id": "7a97c643656412a9"}
