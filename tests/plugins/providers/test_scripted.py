"""The scripted provider: replays steps by turn, free usage, clear errors for bad scripts."""

from __future__ import annotations

import attrs
import pytest

from toolscore_core import InputError, ModelRequest, Price, ToolResultMessage, UserMessage, cost_usd
from toolscore_providers import ScriptedProvider


@attrs.frozen
class Step:  # the harness's script steps have this shape; no import of toolscore_agent
    calls: tuple = ()
    text: str | None = None


def run_to_end(provider: ScriptedProvider, limit: int = 10) -> list:
    request = ModelRequest(messages=[UserMessage("Save a note titled groceries.")])
    turns = []
    for _ in range(limit):
        turn = provider.complete(request)
        turns.append(turn)
        if not turn.tool_calls:
            break
        request = request.extended(turn.as_message(), *(
            ToolResultMessage(c.id, c.name, "ok") for c in turn.tool_calls))
    return turns


def test_replays_one_step_per_model_call_with_turn_numbered_ids():
    provider = ScriptedProvider(script=[
        {"calls": [{"tool": "save_note", "args": {"title": "groceries"}},
                   {"tool": "list_notes"}]},
        Step(calls=({"tool": "delete_note", "args": {"title": "old"}},)),
        {"text": "Saved."},
    ])
    turns = run_to_end(provider)
    assert [[c.id for c in t.tool_calls] for t in turns] == [["call-1-1", "call-1-2"], ["call-2-1"], []]
    assert turns[0].tool_calls[0].arguments == {"title": "groceries"}
    assert turns[0].tool_calls[1].arguments == {}
    assert [t.stop_reason for t in turns] == ["tool_use", "tool_use", "end_turn"]
    assert turns[-1].text == "Saved."


def test_an_exhausted_script_ends_with_an_empty_answer():
    provider = ScriptedProvider(script=[{"calls": [{"tool": "list_notes"}]}])
    turns = run_to_end(provider)
    assert len(turns) == 2
    assert turns[1].text == "" and turns[1].tool_calls == () and turns[1].stop_reason == "end_turn"
    assert ScriptedProvider().complete(ModelRequest(messages=[UserMessage("hi")])).text == ""


def test_usage_is_the_offline_estimate_so_a_free_price_costs_zero_not_unknown():
    provider = ScriptedProvider(script=[{"text": "x" * 400}])
    short = provider.complete(ModelRequest(messages=[UserMessage("hi")]))
    longer = provider.complete(ModelRequest(messages=[UserMessage("hi " * 500)]))
    assert short.usage.input_tokens is not None and short.usage.output_tokens is not None
    assert longer.usage.input_tokens > short.usage.input_tokens
    assert short.usage.output_tokens >= 200  # 400 bytes at 2 bytes a token, estimated high
    assert cost_usd(short.usage, Price(0.0, 0.0, "scripted (free)")) == 0.0
    assert (cost_usd(short.usage, Price(1.0, 2.0, "test")) or 0.0) > 0.0


def test_a_string_argument_is_kept_as_raw_malformed_text():
    turn = ScriptedProvider(script=[{"calls": [{"tool": "save_note", "args": '{"title": "gro'}]}]).complete(
        ModelRequest(messages=[UserMessage("hi")]))
    call = turn.tool_calls[0]
    assert call.arguments is None and call.raw_arguments == '{"title": "gro'


@pytest.mark.parametrize(("script", "where"), [
    ([{"calls": [{"args": {}}]}], "script[0].calls[0].tool"),
    ([{"calls": {"tool": "x"}}], "script[0].calls"),
    ([{"text": 3}], "script[0].text"),
    ([{"txt": "hi"}], "script[0]"),
    ([{"calls": [{"tool": "x", "args": [1]}]}], "script[0].calls[0].args"),
    ([7], "script[0]"),
])
def test_a_bad_script_is_an_input_error_naming_the_step(script, where):
    with pytest.raises(InputError) as caught:
        ScriptedProvider(script=script)
    assert caught.value.location == where


def test_one_provider_serves_many_runs_because_the_step_comes_from_the_request():
    provider = ScriptedProvider(script=[{"calls": [{"tool": "a"}]}, {"text": "done"}])
    first = run_to_end(provider)
    second = run_to_end(provider)
    assert [t.to_dict() for t in first] == [t.to_dict() for t in second]
