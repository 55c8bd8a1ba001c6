"""Input nested deeper than the export can walk is a named error (exit 2), never a traceback.

A runs file whose first line nested 2,000 levels deep crashed the sniffing of its kind; a row
nested 900 deep was exported, and ``export validate`` of that output then ran out of stack.
Now a run row may nest ``ROW_MAX_NESTING`` (254, as deep as orjson writes) levels; a record
``RECORD_MAX_NESTING`` (264); and a line nested past what the parsers read is an error named
by its line, or, as the last line, a torn one said to be too deep.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_core.kernel.jsonl import why_torn
from toolscore_core.kernel.readlimits import MAX_NESTING, deeper_than
from toolscore_export import export_runs, validate_record
from toolscore_export import parallel as par
from toolscore_export.canonical import prepare, sha256_prepared
from toolscore_export.record import RECORD_HASH_KEY, record_hash
from toolscore_export.sources import ROW_MAX_NESTING
from toolscore_export.validate import RECORD_MAX_NESTING


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLSCORE_DEBUG"}
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=120)


def nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def row_line(make_row, levels: int, task: str = "t", *, escaped: bool = False) -> str:
    """A run row nested ``levels`` deep in all: its first call's arguments hold the depth.
    ``escaped``: with an escape orjson never writes (``\\/``), so the general parser reads it."""
    data = make_row(task=task).to_dict()
    data["calls"][0]["args"] = {"deep": "DEEP"}  # the row, calls, a call, args: 4 levels
    data["final_answer"] = "ESCAPED" if escaped else "plain"
    return (json.dumps(data).replace('"DEEP"', "[" * (levels - 4) + "]" * (levels - 4))
            .replace('"ESCAPED"', '"a\\/b"'))


def test_the_rows_written_here_are_as_deep_as_they_say(make_row):
    assert '"a\\/b"' in row_line(make_row, 6, escaped=True)
    for levels in (5, ROW_MAX_NESTING, ROW_MAX_NESTING + 1):
        assert deeper_than(json.loads(row_line(make_row, levels)), levels - 1)
        assert not deeper_than(json.loads(row_line(make_row, levels)), levels)


@pytest.mark.parametrize("name, text", [
    ("runs.jsonl", '{"run_record_version": "1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n"),
    ("runs2.jsonl", "\n\n" + '{"run_record_version": "1", "x": ' + "[" * 2_000 + "]" * 2_000 + "}\n"),
    ("receipt.json", '{"kind": "toolscore.evaluation", "x": ' + "[" * 5_000 + "]" * 5_000 + "}"),
    ("trace.jsonl", '{"resourceSpans": ' + "[" * 5_000 + "]" * 5_000 + "}\n"),
])
def test_a_source_nested_past_the_parser_is_a_named_error(tmp_path, name, text):
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    done = cli("export", source, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "nested" in done.stderr and name in done.stderr
    line = 3 if name == "runs2.jsonl" else 1
    assert f"line {line}" in done.stderr
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("where", [0, 20, 39])  # first, middle, last line
@pytest.mark.parametrize("escaped", [False, True])
def test_a_row_past_its_limit_is_the_error_of_its_line_wherever_it_stands(tmp_path, make_row, monkeypatch,
                                                                          workers, where, escaped):
    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(par, "CHUNK_BYTES", 4096)
    lines = [row_line(make_row, 6, task=f"t{i}") for i in range(40)]
    lines[where] = row_line(make_row, ROW_MAX_NESTING + 1, task=f"t{where}", escaped=escaped)
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:  # the last line too: it parses, so it is not torn
        export_runs([runs], tmp_path / "out.jsonl", workers=workers)
    assert caught.value.location == f"line {where + 1}"
    assert f"more than {ROW_MAX_NESTING} levels" in caught.value.message
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_rows_at_the_limit_are_exported_and_their_records_validate(tmp_path, make_row, monkeypatch, workers):
    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(par, "CHUNK_BYTES", 4096)
    # at the limit, read by orjson (every 7th row) and by the general parser (every 7th, escaped)
    lines = [row_line(make_row, ROW_MAX_NESTING if i % 7 < 2 else 6, task=f"t{i}", escaped=i % 7 == 1)
             for i in range(40)]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert export_runs([runs], out, workers=workers).records == 40
    done = cli("export", "validate", out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert b"[" * (ROW_MAX_NESTING - 4) in out.read_bytes()


def test_a_last_row_past_the_parser_is_torn_and_said_to_be_too_deep(tmp_path, make_row):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(row_line(make_row, 6) + "\n" + row_line(make_row, 2_000, task="u") + "\n", encoding="utf-8")
    done = cli("export", runs, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 0, done.stderr
    assert "line 2: skipped a torn last line" in done.stderr and "nested too deeply to read" in done.stderr


def test_orjson_writes_as_deep_as_the_row_limit_and_no_deeper():
    orjson = pytest.importorskip("orjson")
    from toolscore_export.canonical import ORJSON_WRITES_LEVELS

    assert orjson.dumps(nested(ORJSON_WRITES_LEVELS))
    with pytest.raises(TypeError):
        orjson.dumps(nested(ORJSON_WRITES_LEVELS + 1))


def test_why_a_line_is_torn_is_said_in_the_parsers_words():
    assert why_torn(InputError("line 3 is nested too deeply to read"), b"x\n") == "nested too deeply to read"
    assert why_torn(InputError("line 3 is not valid UTF-8 (byte 0xff at column 1)"), b"x") == \
        "no trailing newline, not valid UTF-8"
    assert why_torn(InputError("line 3 is not valid JSON (Expecting value)")) == "not valid JSON"


def deep_record(record: dict, levels: int) -> dict:
    """``record`` with its first call's arguments nested so the record is ``levels`` deep, hashes renewed."""
    record = json.loads(json.dumps(record))
    call = record["requested_calls"][0]  # the record, the calls, a call, its args: 4 levels
    call["args"] = {"deep": nested(levels - 4)}
    call["args_sha256"] = sha256_prepared(prepare(call["args"]))
    record["hashes"][RECORD_HASH_KEY] = record_hash(record)
    return record


@pytest.fixture
def record(tmp_path, make_row) -> dict:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(row_line(make_row, 6) + "\n", encoding="utf-8")
    export_runs([runs], tmp_path / "one.jsonl")
    return json.loads((tmp_path / "one.jsonl").read_text(encoding="utf-8"))


def test_a_record_at_its_limit_validates_and_one_past_it_is_named(record):
    validate_record(deep_record(record, RECORD_MAX_NESTING))
    with pytest.raises(InputError) as caught:
        validate_record(deep_record(record, RECORD_MAX_NESTING + 1))
    assert caught.value.location == "$" and f"more than {RECORD_MAX_NESTING} levels" in caught.value.message


def test_validate_names_records_too_deep_to_walk_or_read(tmp_path, record):
    deep = deep_record(record, RECORD_MAX_NESTING + 1)
    lines = [json.dumps(record), json.dumps(deep),
             json.dumps(record).replace('"run_id"', '"x": ' + "[" * 5000 + "]" * 5000 + ', "run_id"', 1)]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = cli("export", "validate", path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    said = done.stdout + done.stderr
    assert f"line 2, $: is nested more than {RECORD_MAX_NESTING} levels deep" in said
    assert "line 3: is nested too deeply to read" in said


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _random_value(rng: random.Random, budget: int):
    if budget == 0 or rng.random() < 0.3:
        return rng.choice(["s", 1, 2.5, None, True, "[{", "]}"])
    items = [_random_value(rng, budget - 1) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        return items
    return {f"k{i}": item for i, item in enumerate(items)}


def test_deeper_than_agrees_with_a_recursive_count_with_or_without_the_text():
    rng = random.Random(35)
    for _ in range(400):
        value = _random_value(rng, rng.randint(0, 12))
        depth = _depth(value)
        text = json.dumps(value)
        for levels in {0, 1, max(depth - 1, 0), depth, depth + 1}:
            assert deeper_than(value, levels) is (depth > levels), (value, levels)
        assert deeper_than(value, MAX_NESTING, text) is False  # the text's tests, then no walk
    tall = nested(MAX_NESTING + 1)
    assert deeper_than(tall, MAX_NESTING, json.dumps(tall)) and not deeper_than(tall, MAX_NESTING + 1, json.dumps(tall))
    assert deeper_than(nested(5), 3, json.dumps(nested(5)))  # a limit below the kernel's: the walk decides
    assert deeper_than(nested(50_000), 49_999)  # iterative: no stack to run out of


def test_a_record_checked_from_deep_in_a_callers_stack_is_refused_in_words(record):
    """Within its limit a record's checks still recurse some 530 frames; a caller already 700 deep
    gets an InputError saying so, not a RecursionError."""
    deep = deep_record(record, RECORD_MAX_NESTING)

    def from_depth(frames: int) -> None:
        if frames:
            return from_depth(frames - 1)
        validate_record(deep)

    with pytest.raises(InputError) as caught:
        from_depth(700)
    assert caught.value.location == "$" and "too deeply to check from here" in caught.value.message
    validate_record(deep)  # from a shallow stack it is valid


def receipt_at(levels: int) -> dict:
    """An evaluation receipt nested ``levels`` deep: its first actual call's arguments hold the depth."""
    from toolscore_core import evaluate

    examples = Path(__file__).resolve().parents[2] / "examples" / "guardrails"
    receipt = evaluate(examples / "gold.json", examples / "trace.json").to_dict()
    receipt["actual"][0]["args"] = {"deep": nested(levels - 4)}  # the receipt, actual, a call, args: 4
    assert not deeper_than(receipt, levels) and deeper_than(receipt, levels - 1)
    return receipt


def test_receipts_are_held_to_a_rows_limit_as_json_lines_and_as_an_array(tmp_path):
    lines, array = tmp_path / "receipts.jsonl", tmp_path / "receipts.json"
    lines.write_text(json.dumps(receipt_at(ROW_MAX_NESTING)) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert export_runs([lines], out).records == 1
    assert cli("export", "validate", out).returncode == 0
    lines.write_text(json.dumps(receipt_at(6)) + "\n" + json.dumps(receipt_at(ROW_MAX_NESTING + 1)) + "\n",
                     encoding="utf-8")
    array.write_text(json.dumps([receipt_at(6), receipt_at(ROW_MAX_NESTING + 1)], indent=1), encoding="utf-8")
    for source, where in ((lines, "line 2"), (array, "$[1]")):
        done = cli("export", source, "-o", tmp_path / "refused.jsonl")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert f"{source.name}, at {where}: is nested more than {ROW_MAX_NESTING} levels deep" in done.stderr

