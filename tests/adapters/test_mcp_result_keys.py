"""``looks_like_call_tool_result`` asks a constant frozenset about the keys instead of building
``set(value)`` each call: these tests compare it with that written rule on odd values."""

from __future__ import annotations

import collections
import random
from typing import Any

import pytest

from toolscore_adapters.protocols.mcp_result import looks_like_call_tool_result

_ALLOWED = ("content", "isError", "structuredContent", "_meta", "resultType", "cacheScope")


def _written_rule(value: Any) -> bool:
    """The check as it was first written: every key of the dict among the six."""
    return (isinstance(value, dict) and isinstance(value.get("content"), list)
            and set(value) <= {"content", "isError", "structuredContent", "_meta", "resultType", "cacheScope"})


class _Key(str):
    """A str subclass key: compared and hashed as its text."""


class _OtherKeys(dict):  # type: ignore[type-arg]
    """A dict whose iteration says other keys than it holds."""

    def __iter__(self) -> Any:
        return iter(["content", "extra"])


class _OnlyContent(dict):  # type: ignore[type-arg]
    """A dict whose iteration hides its unknown keys."""

    def __iter__(self) -> Any:
        return iter(["content"])


_ODD: list[Any] = [
    None, 0, "content", ["content"], ("content",), {"content"}, {}, {"content": None}, {"content": ()},
    {"content": "text"}, {"content": []}, {"content": [], "isError": True}, {"content": [], "other": 1},
    {"content": [], 1: 2}, {"content": [], None: 2}, {"content": [], ("content",): 1},
    {"content": [], frozenset({"content"}): 1}, {_Key("content"): []}, {"content": [], _Key("_meta"): {}},
    {"content": [], _Key("nope"): {}}, {"content": [], "Content": []}, {"content": [], "": 1},
    {key: [] for key in _ALLOWED}, {**{key: [] for key in _ALLOWED}, "x": 1},
    collections.OrderedDict(content=[], isError=False), collections.defaultdict(list, content=[]),
    collections.defaultdict(list, content=[], other=1), collections.Counter(content=1),
    _OtherKeys(content=[]), _OnlyContent(content=[], other=1), _OnlyContent(content=[]),
]


@pytest.mark.parametrize("value", _ODD, ids=range(len(_ODD)))
def test_odd_values_answer_as_the_written_rule(value: Any) -> None:
    assert looks_like_call_tool_result(value) is _written_rule(value)


def test_random_key_sets_answer_as_the_written_rule() -> None:
    """Dicts of random keys drawn from the six, near misses and non-text keys, in random order."""
    rng = random.Random(11)
    pool: list[Any] = [*_ALLOWED, "content ", "is_error", "structured_content", "meta", 0, 1.5, None, (), _Key("isError")]
    seen = {True: 0, False: 0}
    for _ in range(3000):
        keys = rng.sample(pool, rng.randint(0, 7))
        value: dict[Any, Any] = {k: rng.choice([[], None, {}, "x"]) for k in keys}
        if rng.random() < 0.7:
            value["content"] = []
        answer = looks_like_call_tool_result(value)
        assert answer is _written_rule(value), value
        seen[answer] += 1
    assert min(seen.values()) > 300  # both answers were asked often
