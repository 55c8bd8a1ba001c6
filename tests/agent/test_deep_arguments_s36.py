"""A model's tool-call arguments that an SDK has already parsed (an object, as Anthropic's and
Gemini's give them) are held to the same nesting limit as arguments sent as text.

Text arguments nested past the kernel's 100 levels were already the model's malformed call; an
object was taken as it came, however deep. The SDK's own parser reads far deeper than the
kernel, so a model could make the harness run a call, and write a row, nested past what every
later reader of that row allows. Now such an object is a malformed call with its JSON text kept,
never sent to the server, and the run's row exports.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent.loop import MALFORMED_MESSAGE, run_agent
from toolscore_agent.outcome import run_calls
from toolscore_core import ModelToolCall, RunRow, RunWriter
from toolscore_core.kernel.readlimits import MAX_NESTING
from toolscore_mcp.client import MCPStdioClient
from toolscore_providers import FakeModelServer


def nested_arguments(levels: int) -> dict[str, Any]:
    """An arguments object nested ``levels`` deep in all (the object itself is one level)."""
    value: Any = []
    for _ in range(levels - 2):
        value = [value]
    return {"title": value}


def test_the_helper_nests_as_deep_as_it_says():
    assert json.dumps(nested_arguments(3)) == '{"title": [[]]}'


def test_an_object_as_deep_as_the_kernel_reads_is_a_call():
    arguments = nested_arguments(MAX_NESTING)
    call = ModelToolCall.parse("c", "create_note", arguments)
    assert not call.malformed and call.arguments == arguments and call.raw_arguments is None


def test_an_object_one_level_deeper_is_a_malformed_call_with_its_text_kept():
    arguments = nested_arguments(MAX_NESTING + 1)
    call = ModelToolCall.parse("c", "create_note", arguments)
    assert call.malformed and call.arguments is None
    assert call.raw_arguments is not None and json.loads(call.raw_arguments) == arguments
    kernel_call = call.to_tool_call()
    assert kernel_call.args is None and kernel_call.metadata == {"raw_arguments": call.raw_arguments}


def test_an_object_too_deep_to_write_is_a_malformed_call_said_in_words():
    call = ModelToolCall.parse("c", "create_note", nested_arguments(sys.getrecursionlimit() + 500))
    assert call.malformed and call.raw_arguments == "(arguments nested too deeply to write as JSON)"


def test_an_object_that_holds_itself_is_a_malformed_call():
    arguments: dict[str, Any] = {"title": "x"}
    arguments["self"] = arguments
    call = ModelToolCall.parse("c", "create_note", arguments)
    assert call.malformed and call.raw_arguments == "(arguments nested too deeply to write as JSON)"


def test_deep_arguments_from_the_anthropic_sdk_are_never_sent_and_the_row_exports(tmp_path: Path) -> None:
    anthropic = pytest.importorskip("anthropic")
    from toolscore_export import export_runs
    from toolscore_providers import AnthropicMessagesProvider

    deep = nested_arguments(150)
    script = [{"calls": [{"tool": "create_note", "args": deep}]}, {"text": "I could not save it."}]
    with FakeModelServer(script) as server:
        sdk = anthropic.Anthropic(base_url=server.base_url, api_key="sk-ant-test-not-a-real-key")
        with MCPStdioClient([sys.executable, "-m", "toolscore_mcp.sample_server"]) as client:
            run = run_agent(client, AnthropicMessagesProvider(sdk, "claude-haiku-5-5"), "Save a note.")
            listed = client.call_tool("list_notes", {})
        sent = [request.body for request in server.requests]
    assert run.status == "completed" and run.final_answer == "I could not save it."
    [call] = run.calls
    assert call.args is None and call.is_error is True
    assert json.loads(call.metadata["raw_arguments"]) == deep  # the model's text, as the SDK parsed it
    assert listed.result is not None and listed.result["structuredContent"]["notes"] == []  # never sent
    answers = [block for message in sent[1]["messages"] if isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "tool_result"]
    assert [a.get("is_error") for a in answers] == [True] and MALFORMED_MESSAGE in json.dumps(answers)

    runs = tmp_path / "runs.jsonl"
    with RunWriter(runs) as writer:
        writer.write(RunRow(task_id="t", arm_id="a", repetition=1, status=run.status, outcome="fail",
                            final_answer=run.final_answer, calls=run_calls(run)))
    result = export_runs([runs], tmp_path / "records.jsonl")
    assert result.records == 1
    [record] = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    [requested] = record["requested_calls"]
    assert requested["tool"] == "create_note" and requested["args"] is None
