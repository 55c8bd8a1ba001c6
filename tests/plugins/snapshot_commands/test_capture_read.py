"""Reading a capture file: good lines become calls in order, bad ones are counted, never fatal."""

from __future__ import annotations

import json

from toolscore_pytest.commands.capture import read_capture

CHAT = {"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [{
    "index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "first", "arguments": "{\"n\": 1}"}}]}}]}
MESSAGES = {"id": "m1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": "t", "name": "second", "input": {"n": 2}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}


def test_calls_in_order_and_bad_lines_counted(tmp_path):
    capture = tmp_path / "capture.jsonl"
    lines = [
        json.dumps({"path": "/v1/chat/completions", "body": CHAT}),
        json.dumps({"path": "/v1/messages", "streamed": True}),
        json.dumps({"path": "/v1/messages", "body": {"hello": "not a model response"}}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"path": "/v1/messages", "body": MESSAGES}),
        '{"path": "/v1/messages", "bo',  # a child killed mid-write
    ]
    capture.write_text("\n".join(lines) + "\n", encoding="utf-8")
    captured = read_capture(capture)
    assert captured.calls == ({"tool": "first", "args": {"n": 1}}, {"tool": "second", "args": {"n": 2}})
    assert (captured.responses, captured.streamed, captured.unreadable) == (2, 1, 3)


def test_missing_file_is_nothing_captured(tmp_path):
    captured = read_capture(tmp_path / "none.jsonl")
    assert captured.calls == () and captured.responses == 0
