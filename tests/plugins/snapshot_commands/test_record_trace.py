"""``toolscore record --from-trace FILE --name NAME``: any trace format, pending, --update."""

from __future__ import annotations

import json

OPENAI_CHAT = {
    "id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}}],
}
ANTHROPIC = {"id": "msg1", "type": "message", "role": "assistant", "model": "claude",
             "content": [{"type": "tool_use", "id": "tu1", "name": "book", "input": {"flight": "UA1"}}],
             "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}


def test_records_a_pending_snapshot_from_a_detected_trace(cli, store, tmp_path):
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(OPENAI_CHAT), encoding="utf-8")
    result = cli("record", "--from-trace", str(trace), "--name", "weather")
    assert result.exit_code == 0, result.output
    snapshot = store.load("weather")
    assert snapshot is not None and not snapshot.approved and snapshot.source == "trace"
    assert snapshot.calls == ({"tool": "get_weather", "args": {"city": "Paris"}},)
    assert "pending approval" in result.output and "toolscore approve weather" in result.output


def test_format_option_is_used(cli, store, tmp_path):
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(ANTHROPIC), encoding="utf-8")
    result = cli("record", "--from-trace", str(trace), "--name", "b", "--format", "anthropic")
    assert result.exit_code == 0, result.output
    assert store.load("b").calls == ({"tool": "book", "args": {"flight": "UA1"}},)
    wrong = cli("record", "--from-trace", str(trace), "--name", "c", "--format", "no-such-format")
    assert wrong.exit_code == 2 and "Traceback" not in wrong.output
    assert store.load("c") is None


def test_existing_snapshot_needs_update(cli, store, add_snapshot, tmp_path):
    add_snapshot("weather", [{"tool": "old", "args": {}}], approved=True)
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(OPENAI_CHAT), encoding="utf-8")
    refused = cli("record", "--from-trace", str(trace), "--name", "weather")
    assert refused.exit_code == 2
    assert "--update" in refused.output
    assert store.load("weather").calls == ({"tool": "old", "args": {}},)
    updated = cli("record", "--from-trace", str(trace), "--name", "weather", "--update")
    assert updated.exit_code == 0, updated.output
    snapshot = store.load("weather")
    assert snapshot.calls[0]["tool"] == "get_weather" and not snapshot.approved  # to be reviewed again


def test_bad_trace_is_exit_2_with_the_loaders_message(cli, store, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    result = cli("record", "--from-trace", str(empty), "--name", "x")
    assert result.exit_code == 2
    assert "empty.json" in result.output and "empty (0 bytes)" in result.output
    assert "Traceback" not in result.output
    missing = cli("record", "--from-trace", str(tmp_path / "nope.json"), "--name", "x")
    assert missing.exit_code == 2 and "file not found" in missing.output
    assert store.list() == []


def test_usage_errors(cli, tmp_path):
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(OPENAI_CHAT), encoding="utf-8")
    no_name = cli("record", "--from-trace", str(trace))
    assert no_name.exit_code == 2 and "--name" in no_name.output
    nothing = cli("record")
    assert nothing.exit_code == 2 and "--from-trace" in nothing.output
    both = cli("record", "--from-trace", str(trace), "--name", "x", "--", "python", "-c", "pass")
    assert both.exit_code == 2 and "not both" in both.output
