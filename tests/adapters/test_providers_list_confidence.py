"""``list_confidence`` stops at the first turn of another provider: the same answer as a walk
of the whole sample, for every adapter, on lists mixing every style of turn."""

from __future__ import annotations

import random
from typing import Any

from toolscore_adapters.providers import _shapes as shapes

#: One turn of each style ``message_style`` tells apart (and a foreign one).
TURNS: dict[str, list[Any]] = {
    shapes.NEUTRAL: [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"},
                     {"role": "system", "content": "be brief"}],
    shapes.OPENAI: [{"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "{}"}],
    shapes.ANTHROPIC: [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x"}]},
                       {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}],
    shapes.GEMINI: [{"role": "model", "parts": [{"text": "hi"}]}],
    shapes.RESPONSES: [{"type": "function_call", "call_id": "r1", "name": "x", "arguments": "{}"}],
    shapes.LANGCHAIN: [{"type": "ai", "data": {"content": "", "tool_calls": []}}],
    shapes.FOREIGN: [{"kind": "request", "parts": []}, 7],
}
ADAPTERS = [shapes.OPENAI, shapes.ANTHROPIC, shapes.GEMINI, shapes.RESPONSES, shapes.LANGCHAIN]


def whole_walk(items: Any, me: str, *, neutral: float) -> float:
    """The rule as written in the docstring, over the whole sample with no early stop."""
    if not isinstance(items, (list, tuple)) or not items:
        return 0.0
    styles = [shapes.message_style(item) for item in items[:shapes.SAMPLE]]
    if shapes.FOREIGN in styles:
        return 0.0
    named = [style for style in styles if style != shapes.NEUTRAL]
    if not named:
        return neutral
    if set(named) == {me}:
        return 0.9
    return 0.5 if named[0] == me else 0.0


def test_the_turns_have_the_styles_they_stand_for() -> None:
    for style, turns in TURNS.items():
        assert {shapes.message_style(turn) for turn in turns} == {style}


def test_stopping_early_answers_what_the_whole_walk_answers() -> None:
    rng = random.Random(20261204)
    pool = [(style, turn) for style, turns in TURNS.items() for turn in turns]
    answered = set()
    for _ in range(3000):
        length = rng.choice([1, 2, 3, 5, 20, shapes.SAMPLE + 3])
        weights = [8 if style == shapes.NEUTRAL else 1 for style, _ in pool]
        items = [turn for _, turn in rng.choices(pool, weights=weights, k=length)]
        for me in ADAPTERS:
            got = shapes.list_confidence(items, me, neutral=0.3)
            assert got == whole_walk(items, me, neutral=0.3), (me, items)
            answered.add(got)
    assert answered == {0.0, 0.3, 0.5, 0.9}  # every branch of the rule was reached


def test_a_foreign_turn_past_the_sample_is_not_seen() -> None:
    items = [TURNS[shapes.OPENAI][0]] * shapes.SAMPLE + [7]
    assert shapes.list_confidence(items, shapes.OPENAI, neutral=0.3) == 0.9
