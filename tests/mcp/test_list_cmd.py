"""``toolscore mcp list`` against real servers: text, JSON, config entries, clean errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from toolscore_mcp.commands.list_cmd import list_command, parameter_type
from toolscore_mcp.tokens import estimate_tokens


def run(*args: str):
    return CliRunner().invoke(list_command, list(args), catch_exceptions=False)


def test_text_listing_of_the_filesystem_server(filesystem_command, tmp_path: Path) -> None:
    argv = filesystem_command(tmp_path)
    result = run("--", *argv)
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("secure-filesystem-server 0.2.0 · protocol 2025-11-25 over stdio · 14 tools")
    assert "read_text_file  (~" in out
    assert "    path  string  required  (no description)" in out  # the known missing descriptions
    assert "If provided, returns only the first N lines of the file" in out
    assert out.rstrip().splitlines()[-1].startswith("Total: 14 tools, ~")


def test_json_listing_counts_tokens_per_tool(memory_command) -> None:
    argv, env = memory_command
    listing_result = CliRunner(env=env).invoke(list_command, ["--json", "--timeout", "15", " ".join(argv)],
                                               catch_exceptions=False)
    assert listing_result.exit_code == 0, listing_result.output
    listing = json.loads(listing_result.output)
    assert listing["server"]["name"] == "memory-server"
    assert listing["tool_count"] == 9
    create = next(t for t in listing["tools"] if t["name"] == "create_entities")
    assert create["parameters"] == [{"name": "entities", "type": "array<object>", "required": True, "description": None}]
    assert create["tokens"] > 50
    assert listing["definition_tokens"] == sum(t["tokens"] for t in listing["tools"])


def test_a_config_file_entry(memory_command, tmp_path: Path) -> None:
    argv, env = memory_command
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {
        "memory": {"command": argv[0], "args": argv[1:], "env": env},
        "other": {"url": "http://127.0.0.1:9/mcp"}}}))
    result = run("--config", str(config), "--server", "memory", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["server"]["name"] == "memory-server"
    missing = run("--config", str(config), "--server", "nope")
    assert missing.exit_code == 2
    assert "no server named 'nope'" in missing.output and "Servers in this file: memory, other" in missing.output


def test_errors_are_one_line_and_exit_2(misbehaving, unused_port: int, tmp_path: Path) -> None:
    early = subprocess.run(
        [sys.executable, "-m", "toolscore_core.cli", "mcp", "list", "--", *misbehaving("early-exit")],
        capture_output=True, text=True, timeout=60,
    )
    assert early.returncode == 2
    assert early.stderr.startswith("toolscore: error: ")
    assert "exited with code 1 before answering" in early.stderr and "Traceback" not in early.stderr
    refused = run(f"http://127.0.0.1:{unused_port}/mcp")
    assert refused.exit_code == 2 and "connection refused" in refused.output
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {"x": {"args": []}}}')
    bad = run("--config", str(broken))
    assert bad.exit_code == 2 and "neither 'command' nor 'url'" in bad.output and "$.mcpServers.x" in bad.output
    nothing = run()
    assert nothing.exit_code == 2 and "no server given" in nothing.output


def test_parameter_type_labels() -> None:
    assert parameter_type({"type": "string"}) == "string"
    assert parameter_type({"type": ["integer", "null"]}) == "integer|null"
    assert parameter_type({"type": "array", "items": {"type": "string"}}) == "array<string>"
    assert parameter_type({"type": "array"}) == "array<?>"
    assert parameter_type({"anyOf": [{"type": "string"}, {"type": "null"}]}) == "string|null"
    assert parameter_type({"enum": ["a", "b"]}) == "enum"
    assert parameter_type({"description": "untyped"}) == "?"


def test_token_estimate_is_documented_and_deterministic() -> None:
    assert estimate_tokens(None) == 0 and estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("日本語") == 3  # one per non-ASCII character
    tool = {"name": "add", "inputSchema": {"type": "object"}}
    compact = '{"name":"add","inputSchema":{"type":"object"}}'
    assert estimate_tokens(tool) == -(-len(compact) // 4)
