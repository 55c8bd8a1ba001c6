"""open_client and config-file entries: which client, with what, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscore_core.kernel.errors import InputError
from toolscore_mcp.client import MCPHttpClient, MCPStdioClient, open_client


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_targets_choose_the_transport() -> None:
    assert isinstance(open_client("https://example.invalid/mcp"), MCPHttpClient)
    stdio = open_client("python -m 'my server' --name \"a b\"")
    assert isinstance(stdio, MCPStdioClient) and stdio.argv == ["python", "-m", "my server", "--name", "a b"]
    assert open_client(["node", "s.js", "dir with space"]).argv == ["node", "s.js", "dir with space"]
    assert open_client(["node s.js"]).argv == ["node", "s.js"]  # one word: a command line


def test_config_entries_stdio_and_http(tmp_path: Path) -> None:
    config = write(tmp_path / "claude_desktop_config.json", {"mcpServers": {
        "notes": {"command": "python", "args": ["server.py", "--db", "ü.db"], "env": {"NOTES_DIR": "/tmp/n"},
                  "cwd": "sub"},
        "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Api": "v"}}}})
    notes = open_client(None, config=config, server="notes", timeout=7)
    assert isinstance(notes, MCPStdioClient)
    assert notes.argv == ["python", "server.py", "--db", "ü.db"] and notes.env == {"NOTES_DIR": "/tmp/n"}
    assert notes.cwd == str((tmp_path / "sub").resolve()) and notes.timeout == 7
    remote = open_client(None, config=config, server="remote")
    assert isinstance(remote, MCPHttpClient) and remote.extra_headers == {"X-Api": "v"}


def test_vs_code_servers_key_and_a_single_entry_needs_no_name(tmp_path: Path) -> None:
    config = write(tmp_path / "mcp.json", {"servers": {"only": {"type": "stdio", "command": "node", "args": ["x.js"]}}})
    assert open_client(None, config=config).argv == ["node", "x.js"]


@pytest.mark.parametrize("content, message", [
    ({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}, "lists 2 servers; choose one with --server"),
    ({"mcpServers": {}}, "no MCP servers in this file"),
    ({"mcpServers": {"a": {"command": "x", "args": "not-a-list"}}}, "'args' is not a list"),
    ({"mcpServers": {"a": ["x"]}}, "the server entry is not an object"),
])
def test_bad_config_files(tmp_path: Path, content: object, message: str) -> None:
    config = write(tmp_path / "c.json", content)
    with pytest.raises(InputError, match=message) as info:
        open_client(None, config=config)
    assert str(config) in str(info.value)


def test_malformed_and_non_utf8_config_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {', encoding="utf-8")
    with pytest.raises(InputError) as info:
        open_client(None, config=broken)
    assert "broken.json" in str(info.value)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"mcpServers": {"a": {"command": "caf\xe9"}}}')
    with pytest.raises(InputError) as info:
        open_client(None, config=latin)
    assert "latin.json" in str(info.value)


def test_conflicting_or_missing_targets() -> None:
    with pytest.raises(InputError, match="either a server TARGET or --config"):
        open_client("node s.js", config="c.json")
    with pytest.raises(InputError, match="--server needs --config"):
        open_client("node s.js", server="x")
    with pytest.raises(InputError, match="no server given"):
        open_client("   ")
    with pytest.raises(InputError, match="Check the quotes"):
        open_client("node 'unterminated")
