"""``toolscore validate``: detection report, calls read, and exit 2 on unusable input."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolscore_core.cli import App, cli

FIX = Path(__file__).parent / "fixtures" / "providers"


@pytest.fixture
def run(installed_plugin_manager) -> Any:
    def _run(*args: str) -> Any:
        return CliRunner().invoke(cli, ["validate", *args], obj=App(pm=installed_plugin_manager),
                                  catch_exceptions=False)
    return _run


def test_report_shows_detection_and_every_call(run):
    result = run(str(FIX / "anthropic_messages.json"))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "detected as   anthropic (confidence 0.90)" in out
    assert "5 (4 ok, 1 FAILED, 0 unknown)" in out
    lines = [ln.split() for ln in out.splitlines() if ln.strip().startswith(("1 ", "4 "))]
    # calls are numbered from 1, as in every finding ("call 4 refund_order ...")
    assert lines[0][:2] == ["1", "lookup_customer"] and lines[0][-2:] == ["ok", "-"]
    assert lines[1][:2] == ["4", "refund_order"] and "FAILED" in lines[1]
    assert "final answer  I could not refund order A-1002" in out
    assert "\x1b[" not in out  # no terminal styling in a pipe or CI log


def test_runners_up_are_listed(run):
    out = run(str(FIX / "langchain_dumpd.json")).stdout
    assert "detected as   langchain (confidence 0.90)" in out
    assert "runners-up    langgraph 0.60" in out


def test_json_report(run):
    result = run(str(FIX / "openai_chat_completion.json"), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["format"], data["confidence"], data["format_given"]) == ("openai", 0.95, False)
    assert data["candidates"][0] == {"format": "openai", "confidence": 0.95}
    assert [(c["index"], c["tool"], c["id"], c["outcome"]) for c in data["calls"]] == [
        (0, "list_orders", "call_orders_2", "unknown"), (1, "get_refund_policy", "call_policy_3", "unknown")]


def test_format_option_and_durations(run, tmp_path):
    path = tmp_path / "timed.json"
    path.write_text(json.dumps([
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                                              "function": {"name": "slow", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "ok", "duration_ms": 1500},
    ]))
    result = run(str(path), "--format", "openai")
    assert result.exit_code == 0
    assert "detected as   openai (given with --format)" in result.stdout
    assert "1500 ms" in result.stdout


def test_credentials_in_arguments_are_redacted(run, tmp_path):
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    path = tmp_path / "secret.json"
    path.write_text(json.dumps([{"role": "assistant", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "s3_put", "arguments": json.dumps({"key": key})}}]}]))
    for args in ((str(path),), (str(path), "--json")):
        out = run(*args).stdout
        assert key not in out and "AKIA…LE" in out


def test_credentials_in_the_final_answer_are_redacted(run, tmp_path):
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path = tmp_path / "answer.json"
    path.write_text(json.dumps([
        {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_token", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "assistant", "content": f"Your token is {key}, keep it safe."}]))
    for args in ((str(path),), (str(path), "--json")):
        result = run(*args)
        assert result.exit_code == 0, result.output
        assert key not in result.stdout and "Your token is" in result.stdout


def test_no_tool_call_is_exit_2_saying_what_was_detected(run, tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    result = run(str(path))
    assert result.exit_code == 2
    assert "no tool call found" in result.stderr and "openai (confidence 0.30)" in result.stderr
    assert str(path) in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(("content", "message"), [
    (b"", "empty (0 bytes)"),
    (b'[{"role": "assistant", "tool_calls": [', "not valid JSON"),
    (b"\xff\xfe[]", "not valid UTF-8"),
    (json.dumps([{"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                  "function": {"name": "", "arguments": "{}"}}]}]).encode(), "$[0].tool_calls[0].function.name"),
    (json.dumps([{"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                  "function": {"name": "t", "arguments": "{}"}}]},
                 {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "u", "input": {}}]}]).encode(),
     "mixes providers"),
    (b'{"unrelated": true}', "no trace format recognised"),
])
def test_bad_files_are_one_line_errors_with_exit_2(run, tmp_path, content, message):
    path = tmp_path / "trace.json"
    path.write_bytes(content)
    result = run(str(path))
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.startswith("toolscore: error: ") and "Traceback" not in result.output


def test_missing_file_and_unknown_format(run, tmp_path):
    missing = run(str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and "file not found" in missing.stderr
    unknown = run(str(FIX / "openai_messages.json"), "--format", "opneai")
    assert unknown.exit_code == 2 and "did you mean 'openai'" in unknown.stderr


@pytest.mark.slow
def test_real_console_script(tmp_path):
    """The installed entry point, in a subprocess: exit codes and streams as a user sees them."""
    import subprocess

    exe = Path(sys.executable).with_name("toolscore")
    ok = subprocess.run([str(exe), "validate", str(FIX / "gemini_contents_camel.json")],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "detected as   gemini" in ok.stdout
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    bad = subprocess.run([str(exe), "validate", str(empty)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "empty (0 bytes)" in bad.stderr and "Traceback" not in bad.stderr
