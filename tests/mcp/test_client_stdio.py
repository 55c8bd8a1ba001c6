"""The stdio client against the real npm reference servers and the Python SDK server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from toolscore_core.kernel.model import ServerDefinition
from toolscore_mcp.client import MCPStdioClient, open_client


def test_memory_server_lists_and_calls_tools(memory_command, tmp_path: Path, is_gone) -> None:
    argv, env = memory_command
    with MCPStdioClient(argv, env=env, timeout=15) as client:
        assert client.era == "handshake"  # TS servers refuse server/discover: clean fallback
        assert client.protocol_version == "2025-11-25"
        assert client.server_info["name"] == "memory-server"
        names = [tool["name"] for tool in client.list_tools()]
        assert {"create_entities", "read_graph", "delete_entities"} <= set(names)
        created = client.call_tool("create_entities", {"entities": [
            {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]})
        assert created.ok, created
        graph = client.call_tool("read_graph", {})
        assert graph.ok and "Ada" in graph.result["content"][0]["text"]
        pid = client.pid
    assert pid is not None and is_gone(pid)
    # env reached the server: the store is where MEMORY_FILE_PATH said
    assert "Ada" in (tmp_path / "memory.jsonl").read_text()


def test_filesystem_denies_a_path_outside_the_allowed_dir(filesystem_command, tmp_path: Path) -> None:
    allowed = tmp_path / "project"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("héllo ✓\n", encoding="utf-8")
    with MCPStdioClient(filesystem_command(allowed), timeout=15) as client:
        assert len(client.list_tools()) == 14
        read = client.call_tool("read_text_file", {"path": str(allowed / "notes.txt")})
        assert read.ok and "héllo ✓" in read.result["content"][0]["text"]
        denied = client.call_tool("read_text_file", {"path": "/etc/passwd"})
        assert denied.is_error is True and denied.result is not None
        assert "denied" in (denied.error or "").lower()
        assert client.stderr_text  # its banner went to stderr, kept apart from the protocol
        assert client.noise == []


def test_cwd_is_where_the_server_runs(filesystem_command, tmp_path: Path) -> None:
    argv = filesystem_command(Path("."))
    with MCPStdioClient(argv, cwd=tmp_path, timeout=15) as client:
        dirs = client.call_tool("list_allowed_directories", {})
        assert str(tmp_path.resolve()) in dirs.result["content"][0]["text"]


def test_everything_server_notifications_and_instructions(everything_command) -> None:
    with MCPStdioClient(everything_command, timeout=15) as client:
        tools = client.list_tools()
        assert len(tools) == 13  # no client capabilities offered
        assert client.instructions and len(client.instructions) > 500
        echo = client.call_tool("echo", {"message": "ping ✓"})
        assert echo.ok and echo.result["content"][0]["text"] == "Echo: ping ✓"
        definition = client.server_definition(tools)
        assert isinstance(definition, ServerDefinition)
        assert definition.name == "mcp-servers/everything" and len(definition.tools) == 13
        assert definition.tools[0].input_schema.get("type") == "object"


def test_roots_are_answered_and_a_server_that_ignores_eof_is_reaped(everything_command, tmp_path, is_gone) -> None:
    """server-everything asks roots/list after initialized when roots are offered, and then
    ignores stdin EOF: close() must still end it, within the grace period + SIGTERM."""
    roots = [{"uri": tmp_path.as_uri(), "name": "work"}]
    client = MCPStdioClient(everything_command, timeout=15, roots=roots)
    with client:
        tools = client.list_tools()
        assert len(tools) >= 14  # one more tool when a capability is offered
        deadline = time.monotonic() + 5
        while not client.server_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [r["method"] for r in client.server_requests][:1] == ["roots/list"]
        pid = client.pid
        started = time.monotonic()
    assert time.monotonic() - started < 5
    assert is_gone(pid)


@pytest.mark.slow  # the mcp SDK takes seconds to import on a loaded machine
def test_python_sdk_server_speaks_the_2026_era(py_modern_command) -> None:
    with MCPStdioClient(py_modern_command, timeout=20) as client:
        assert client.era == "modern"
        assert client.protocol_version == "2026-07-28"
        assert client.server_info == {"name": "py-modern", "version": "1.2.3"}
        assert client.instructions == "Use add for sums and echo to repeat text."
        assert sorted(t["name"] for t in client.list_tools()) == ["add", "echo", "fail"]
        added = client.call_tool("add", {"a": 2, "b": 40})
        assert added.ok and added.result["structuredContent"] == {"result": 42}
        failed = client.call_tool("fail", {"message": "boom"})
        assert failed.is_error is True and failed.error


@pytest.mark.slow
def test_python_sdk_server_handshake_era_when_asked(py_modern_command) -> None:
    with MCPStdioClient(py_modern_command, timeout=20, era="handshake") as client:
        assert client.era == "handshake" and client.protocol_version == "2025-11-25"
        assert client.call_tool("echo", {"text": "naïve"}).result["content"][0]["text"] == "naïve"


def test_request_for_anything_else_and_json_rpc_errors(memory_command) -> None:
    from toolscore_mcp.errors import MCPRemoteError

    argv, env = memory_command
    with MCPStdioClient(argv, env=env, timeout=15) as client:
        assert client.request("ping") == {}
        with pytest.raises(MCPRemoteError) as info:
            client.request("no/such/method", {})
        assert info.value.code == -32601


def test_open_client_splits_a_command_line_like_a_shell(memory_command, tmp_path) -> None:
    argv, env = memory_command
    line = " ".join(json.dumps(part) for part in argv)  # quoted parts survive the split
    client = open_client(line, timeout=15, env=env)
    assert isinstance(client, MCPStdioClient) and client.argv == argv
    with client:
        assert client.server_info["name"] == "memory-server"


def test_concurrent_calls_from_threads_share_one_session(memory_command) -> None:
    """The scorecard runs scenarios concurrently: answers must reach the right caller."""
    from concurrent.futures import ThreadPoolExecutor

    argv, env = memory_command
    with MCPStdioClient(argv, env=env, timeout=15) as client:
        client.call_tool("create_entities", {"entities": [
            {"name": f"e{i}", "entityType": "t", "observations": [f"obs {i}"]} for i in range(8)]})

        def lookup(i: int) -> str:
            outcome = client.call_tool("open_nodes", {"names": [f"e{i}"]})
            return outcome.result["content"][0]["text"]

        with ThreadPoolExecutor(4) as pool:
            texts = list(pool.map(lookup, range(8)))
    for i, text in enumerate(texts):
        assert f"obs {i}" in text and all(f"obs {j}" not in text for j in range(8) if j != i)
