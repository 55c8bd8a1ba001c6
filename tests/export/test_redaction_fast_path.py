"""The quick anchor test that lets clean rows skip per-string redaction never lets a credential through."""

from __future__ import annotations

import json
import re

from toolscore_core import RunCall, RunWriter
from toolscore_export import export_runs
from toolscore_export.redaction import ANCHORS, CASELESS_ANCHORS, may_hold_a_secret


def test_the_anchors_cover_every_anchor_of_the_kernels_scanner():
    from toolscore_core.scoring import secrets

    kernel = secrets._QUICK.pattern.split("|")  # the scanner's own list of literal anchors
    for alternative in kernel:
        caseless = re.fullmatch(r"\(\?i:(.*)\)", alternative)
        literal = re.sub(r"\\(.)", r"\1", caseless.group(1) if caseless else alternative)
        if caseless:
            assert literal.lower() in CASELESS_ANCHORS, literal
        else:
            assert any(anchor in literal for anchor in ANCHORS), literal


def test_clean_lines_skip_and_lines_with_keys_or_escapes_do_not(ghp):
    assert may_hold_a_secret('{"a":"hello world","n":1}') is False
    assert may_hold_a_secret(json.dumps({"a": f"line one\n{ghp}"})) is True
    assert may_hold_a_secret('{"a":"\\u0067hp_x"}') is True
    assert may_hold_a_secret('{"a":"https:\\/\\/me:pw@host"}') is True
    assert may_hold_a_secret('{"a":"Authorization: BEARER abcdefghijklmnop"}') is True


def test_a_key_after_an_escape_or_spelled_with_escapes_is_redacted(tmp_path, make_row, ghp):
    spelled = "\\u0067" + ghp[1:]  # the same token with its first letter escaped in the raw line
    calls = (RunCall(tool="a", id="1", args={"note": f"first\n{ghp}"}, is_error=False),)
    with RunWriter(tmp_path / "runs.jsonl") as writer:
        writer.write(make_row(calls=calls, guard_denials=()))
    text = (tmp_path / "runs.jsonl").read_text()
    with (tmp_path / "runs.jsonl").open("a") as handle:
        handle.write(text.replace("careful", "escaped").replace(ghp, spelled))
    export_runs([tmp_path / "runs.jsonl"], tmp_path / "records.jsonl")
    out = (tmp_path / "records.jsonl").read_text()
    assert ghp not in out and ghp[1:] not in out
    assert len(out.splitlines()) == 2


def test_every_anchor_sits_under_a_key_it_contains():
    from toolscore_export.redaction import KEYED_ANCHORS, has_anchor

    keyed = [anchor for _, anchors in KEYED_ANCHORS for anchor in anchors]
    assert sorted(keyed) == sorted(ANCHORS)  # none missing, none twice
    for key, anchors in KEYED_ANCHORS:
        assert all(key in anchor for anchor in anchors), key
    for anchor in ANCHORS:  # and the keyed search finds each one, alone and inside text
        assert has_anchor(anchor) and has_anchor(f"Some text {anchor}more text"), anchor
    assert not has_anchor('{"task_id":"t","final_answer":"Saved the notes; the delete was refused."}')


def test_the_keyed_search_agrees_with_a_plain_search_of_every_anchor():
    """Differential: on random lines made of anchors, their pieces, dashes, backslashes and
    clean text, the keyed search finds an anchor exactly when a search for each one does,
    and the escape test fires exactly when the line holds an escape."""
    import random

    from toolscore_export.redaction import ESCAPES, has_anchor

    rng = random.Random(20261204)
    pieces = [*ANCHORS, *CASELESS_ANCHORS, "BeArEr ", "Bearer", "-", "_", "k", "gh", "I", "\\", "\\n", "\\u",
              "\\/", "2026-12-04T01:00:00Z", '{"cell_id":"t1::careful::1",', "text ", "Saved the notes.", "é😀"]
    pieces += [anchor[:cut] for anchor in ANCHORS for cut in range(1, len(anchor))]  # every proper prefix
    for _ in range(20_000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        expected = any(a in line for a in ANCHORS) or any(a in line.lower() for a in CASELESS_ANCHORS)
        assert has_anchor(line) is expected, line
        if any(escape in line for escape in ESCAPES):
            assert may_hold_a_secret(line) is True, line
