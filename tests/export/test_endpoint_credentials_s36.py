"""``--endpoint https://user:token@host``: the credentials go as HTTP Basic auth, as curl and
requests send them, and are never printed.

They were left in the URL: urllib made them part of the host name, so the export failed with
"Name or service not known" and the password in the error; and the command's last line, "their
evaluation events were sent to URL", printed the URL as given, password and query token included.
A collector of ours on 127.0.0.1 records the headers it is sent.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs
from toolscore_export.otlp_http import OtlpSender, basic_credentials, logs_url

PASSWORD = "s3cret pass/word"  # a space and a slash: sent decoded, never shown
QUOTED = "s3cret%20pass%2Fword"
TOKEN = "sk-" + "abcdefghijklmnopqrstuvwx"


@contextmanager
def collector() -> Iterator[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """An OTLP/HTTP (JSON) logs receiver: its base URL and each request's path and headers."""
    seen: list[tuple[str, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.path, dict(self.headers)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def verdict_rows(tmp_path, rows_file, make_row) -> Path:
    return rows_file(tmp_path / "runs.jsonl", [make_row(), make_row(task="other")])


def test_credentials_in_the_url_are_sent_as_basic_auth_and_taken_out_of_it(tmp_path, verdict_rows):
    with collector() as (host, seen):
        result = export_runs([verdict_rows], tmp_path / "e.jsonl", fmt="otel", otlp_protocol="http/json",
                             endpoint=f"http://alice:{QUOTED}@{host}/v1/logs?tenant=acme")
    assert result.records == 2 and len(seen) == 1
    path, headers = seen[0]
    assert path == "/v1/logs?tenant=acme"
    assert headers["Authorization"] == "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()


@pytest.mark.parametrize(("endpoint", "header"), [
    ("http://alice:pw@h:4318", "Basic " + base64.b64encode(b"alice:pw").decode()),
    ("http://token@h:4318", "Basic " + base64.b64encode(b"token:").decode()),
    ("http://:pw@h:4318", "Basic " + base64.b64encode(b":pw").decode()),
    ("http://h:4318", None),
])
def test_the_basic_credentials_of_an_endpoint(endpoint, header):
    assert basic_credentials(endpoint) == header
    assert logs_url(endpoint) == "http://h:4318/v1/logs"


def test_credentials_twice_are_refused_before_anything_is_sent():
    with pytest.raises(InputError, match="give the credentials once") as caught:
        OtlpSender("http://alice:pw@127.0.0.1:4318", protocol="http/json", headers={"authorization": "Bearer x"})
    assert "pw" not in str(caught.value)


@pytest.mark.parametrize("endpoint", ["http://alice:pw@:4318", "http://alice:pw@h:port", "ftp://alice:pw@h"])
def test_a_bad_endpoint_is_refused_without_its_password(endpoint):
    with pytest.raises(InputError, match="is not an http") as caught:
        logs_url(endpoint)
    assert ":pw@" not in str(caught.value) and "alice" not in str(caught.value)


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLSCORE_DEBUG"}
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=120)


def test_the_command_never_prints_the_password_or_a_query_token(tmp_path, verdict_rows):
    with collector() as (host, seen):
        done = cli("export", "--format", "otel", verdict_rows, "-o", tmp_path / "e.jsonl", "--otlp-protocol",
                   "http/json", "--endpoint", f"http://alice:{QUOTED}@{host}/v1/logs?token={TOKEN}")
    assert done.returncode == 0, done.stderr
    assert len(seen) == 1 and seen[0][1]["Authorization"].startswith("Basic ")
    assert f"sent to http://{host}/v1/logs?token=" in done.stdout
    for secret in (QUOTED, PASSWORD, TOKEN, "alice"):
        assert secret not in done.stdout + done.stderr


def test_a_failed_send_names_the_collector_without_its_password(tmp_path, verdict_rows):
    with collector() as (host, _):
        port = host.rpartition(":")[2]
    done = cli("export", "--format", "otel", verdict_rows, "-o", tmp_path / "e.jsonl", "--otlp-protocol",
               "http/json", "--timeout", "2", "--endpoint", f"http://alice:{QUOTED}@127.0.0.1:{port}")
    assert done.returncode == 2
    assert f"127.0.0.1:{port}/v1/logs did not take the events: cannot reach it" in done.stderr
    assert QUOTED not in done.stderr and "alice" not in done.stderr and "Traceback" not in done.stderr


def test_an_otel_export_with_no_verdict_says_no_event_was_written(tmp_path):
    trace = Path(__file__).resolve().parents[1] / "adapters" / "fixtures" / "otel" / "mcp_spans.json"
    done = cli("export", "--format", "otel", trace, "-o", tmp_path / "e.jsonl")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 run(s) read, none with a verdict, so no evaluation event was written to ")
    assert "--gold" in done.stdout and (tmp_path / "e.jsonl").read_bytes() == b""
