"""A trace call's values are redacted by one test of their JSON text, with the per-string result."""

from __future__ import annotations

import pytest

from toolscore_core import redact_text
from toolscore_export.canonical import prepare
from toolscore_export.record import redacted_copy

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize("value", [
    {"args": {"path": "/tmp/x", "token": GHP}},
    {GHP: "a credential as a key"},
    {"result": [{"type": "text", "text": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123"}]},
    {"url": "https://user:hunter2hunter2@example.com/x?api_key=abcdefabcdef0123"},
    {"lone": "\ud800" + GHP, "escaped": "line\nbreak " + GHP},
    {1: (1.0, 1e-7, float("nan"), -0.0), "deep": [[[{"k": GHP}]]]},
    {"plain": "nothing to hide", "n": 3, "none": None, "ok": True},
    {"obj": object.__new__(type("Stray", (), {"__str__": lambda self: "stray " + GHP}))},
])
def test_the_copy_is_what_redacting_every_string_gives(value):
    fast, slow = redacted_copy(value, redact_text), prepare(value, redact_text)
    assert fast == slow
    assert repr(fast) == repr(slow)  # key order and number forms too (1, not 1.0)
    assert [type(v) for v in fast.get("1", ())] == [type(v) for v in slow.get("1", ())]
    assert GHP not in repr(fast)
