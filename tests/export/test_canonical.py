"""The canonical JSON form (toolscore-cjson-1) and its SHA-256: fixed vectors another language can check.

Each vector is (value, the exact canonical bytes, their SHA-256). The bytes are the contract:
docs/guide/export.md lists the same vectors, so an importer written in any language can test
its own implementation against them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from toolscore_export.canonical import (
    canonical_bytes,
    line_bytes,
    normal_number,
    prepare,
    sha256_hex,
)

VECTORS = [
    ({"b": 1, "a": [True, False, None], "é": "ü"},
     '{"a":[true,false,null],"b":1,"é":"ü"}'.encode(),
     "d1dd25ef25a8d00febdbf41d9b1c8b91da5d1459d8b854493c280e929fffa5de"),
    ({"n": [1.0, -0.0, 0.5, 1e-07, 1e16, 123.456, 2**60, 1e300, 0.1 + 0.2, -1.5e-5]},
     b'{"n":[1,0,0.5,1e-07,1e+16,123.456,1152921504606846976,1e+300,0.30000000000000004,-1.5e-05]}',
     "ded4937434dab2ff1fd990bd1c9c475c5cc9274fbc0ad0dc5dfdfc9d5366d355"),
    ({"s": 'quote " backslash \\ nl \n tab \t ctl \x01 del \x7f emoji \U0001F600 ls \u2028'},
     '{"s":"quote \\" backslash \\\\ nl \\n tab \\t ctl \\u0001 del \x7f emoji \U0001F600 ls \u2028"}'.encode(),
     "075ddc7a6df34a64fdfc97e92effd78cb630086f2f6379083f5e385d165ccb29"),
    ({"z": {"y": 1, "x": 2}, "A": 0}, b'{"A":0,"z":{"x":2,"y":1}}',
     "17298fc23a0a2bf54fdc6a2574989d61b25010bbd87ce01406978da89285483e"),
    ({}, b"{}", "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
    ("\ud800x", b'"\\ud800x"', "ed16755f1ed92058a4a7b869df2e56cc6d596e5ca5d1ff3e73a182e19779cad9"),
]


@pytest.mark.parametrize(("value", "expected", "digest"), VECTORS)
def test_vectors_give_the_documented_bytes_and_hash(value, expected, digest):
    assert canonical_bytes(prepare(value)) == expected
    assert hashlib.sha256(expected).hexdigest() == digest
    assert sha256_hex(value) == digest


@pytest.mark.parametrize(("value", "expected", "digest"), VECTORS[:5])
def test_the_hash_depends_on_the_parsed_value_only(value, expected, digest):
    """A verifier parses a line and re-canonicalises it: any key order, any spacing, 1 vs 1.0."""
    text = json.dumps(value, indent=3, ensure_ascii=True)
    assert sha256_hex(json.loads(text)) == digest
    reordered = json.loads(json.dumps(value, sort_keys=False)[::1])
    assert canonical_bytes(prepare(reordered)) == expected


def test_numbers_follow_the_rule():
    assert normal_number(3.0) == 3 and isinstance(normal_number(3.0), int)
    assert normal_number(-0.0) == 0
    assert normal_number(1e16) == 1e16 and isinstance(normal_number(1e16), float)
    assert normal_number(float("nan")) is None
    assert normal_number(float("inf")) is None
    assert canonical_bytes(prepare([float("-inf")])) == b"[null]"


def test_canonical_form_refuses_nan_when_not_prepared():
    with pytest.raises(ValueError):
        canonical_bytes({"x": float("nan")})


def test_prepare_turns_tuples_keys_and_objects_into_json():
    assert prepare({1: (1, 2.0), "k": object}) == {"1": [1, 2], "k": str(object)}


def test_lines_keep_key_order_but_write_numbers_canonically():
    assert line_bytes(prepare({"b": 2.0, "a": 1})) == b'{"b":2,"a":1}'


def test_hashes_are_the_same_in_another_process_with_another_hash_seed():
    code = ("from toolscore_export.canonical import sha256_hex; "
            "print(sha256_hex({'z': {'y': 1, 'x': 2}, 'A': 0}))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == VECTORS[3][2], out.stderr
