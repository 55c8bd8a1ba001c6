"""The scorecard against the real npm reference servers (pinned, installed by `make servers`)
and the official Python SDK server: a grade is computed, nothing crashes, time is bounded.

server-everything's gzip tool downloads a URL; GZIP_ALLOWED_DOMAINS=127.0.0.1 keeps every
test offline (it then refuses the generated https://example.com/ URL, as it should).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_mcp.client import MCPHttpClient, MCPStdioClient
from toolscore_mcp.scorecard.api import grade_client
from toolscore_mcp.scorecard.model import Scorecard
from toolscore_mcp.scorecard.runner import RunOptions

OFFLINE = {"GZIP_ALLOWED_DOMAINS": "127.0.0.1"}
HERE = Path(__file__).resolve().parent


def check_sane(card: Scorecard, *, min_tools: int) -> None:
    assert card.grade in "ABCDF"
    assert 0.0 <= card.score <= 1.0 and card.lint is not None
    assert len(card.tools) >= min_tools
    assert card.results, "scenarios ran"
    assert not [f for f in card.findings if f.code in ("server-crash", "server-unrecoverable", "protocol-violation")]
    assert card.definition_tokens > 0


@pytest.mark.e2e
@pytest.mark.slow
def test_server_everything_over_stdio(everything_command: list[str]) -> None:
    started = time.monotonic()
    options = RunOptions(timeout=2.0, deadline=60.0, max_timeouts=1)
    with MCPStdioClient(everything_command, env=OFFLINE, timeout=30) as client:
        card = grade_client(client, options)
    elapsed = time.monotonic() - started
    check_sane(card, min_tools=10)
    assert card.server_name == "mcp-servers/everything"
    assert card.instructions_tokens > 100  # its 2 KB instructions are counted
    # trigger-long-running-operation sleeps ~10 s: one 2 s timeout, then it is skipped
    slow = next(t for t in card.tools if t.name == "trigger-long-running-operation")
    assert slow.skipped == "skipped after 1 timeouts"
    # its instructions script the model's reply: a poisoning warning caps the grade at B
    assert any(f.code.startswith("poison-") for f in card.findings) and card.grade != "A"
    assert elapsed < 45, elapsed


@pytest.mark.e2e
def test_server_memory_over_stdio(memory_command: tuple[list[str], dict[str, str]]) -> None:
    argv, env = memory_command
    started = time.monotonic()
    with MCPStdioClient(argv, env=env, timeout=30) as client:
        card = grade_client(client, RunOptions(timeout=5.0, deadline=60.0, concurrency=4))
    check_sane(card, min_tools=9)
    assert card.server_name == "memory-server"
    # delete_entities / delete_observations / delete_relations are not called without --allow-destructive
    skipped = {t.name for t in card.tools if t.skipped}
    assert {"delete_entities", "delete_observations", "delete_relations"} <= skipped
    assert time.monotonic() - started < 30


def _conftest() -> Any:
    """This folder's conftest module (its server-locating helpers), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_scorecard_mcp_conftest", HERE / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def everything_http_offline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """server-everything over Streamable HTTP on 127.0.0.1, started with the offline gzip setting."""
    helpers = _conftest()
    free_port, npm_server_entry = helpers.free_port, helpers.npm_server_entry
    entry = npm_server_entry("everything")
    port = free_port()
    log = tmp_path_factory.mktemp("everything-http") / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            ["node", "--require", str(HERE / "servers" / "bind_localhost.cjs"), str(entry), "streamableHttp"],
            env={**os.environ, **OFFLINE, "PORT": str(port)}, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
    try:
        import socket

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"server-everything did not listen: {log.read_text(errors='replace')[-300:]}")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.e2e
@pytest.mark.slow
def test_server_everything_over_streamable_http(everything_http_offline: str) -> None:
    started = time.monotonic()
    with MCPHttpClient(everything_http_offline, timeout=30) as client:
        card = grade_client(client, RunOptions(timeout=2.0, deadline=60.0, concurrency=4, max_timeouts=1))
    check_sane(card, min_tools=10)
    assert time.monotonic() - started < 45


@pytest.mark.e2e
@pytest.mark.slow
def test_python_sdk_server_in_the_2026_era(py_modern_command: list[str]) -> None:
    with MCPStdioClient(py_modern_command, timeout=30) as client:
        assert client.era == "modern"
        card: Any = grade_client(client, RunOptions(timeout=5.0, deadline=60.0))
    check_sane(card, min_tools=1)
    assert card.protocol_version == "2026-07-28"



@pytest.mark.e2e
@pytest.mark.slow
def test_cli_grades_a_streamable_http_url(everything_http_offline: str, tmp_path: Path) -> None:
    import json
    import sys

    summary = tmp_path / "summary.md"
    proc = subprocess.run(
        [sys.executable, "-m", "toolscore_core.cli", "mcp", "test", everything_http_offline, "--concurrency", "4",
         "--timeout", "2", "--max-timeouts", "1", "--report", "json", "--ci"],
        capture_output=True, text=True, timeout=120, encoding="utf-8",
        env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)})
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert data["server_name"] == "mcp-servers/everything" and data["grade"] in "ABCDF"
    # its long-running tool times out (an error): --ci fails the job and says so in the summary
    assert proc.returncode == 1 and "blocking issue" in proc.stderr
    assert summary.read_text(encoding="utf-8").startswith("## ❌ MCP server check failed")
