"""``export validate``'s fast paths give the verdict the slow ones give, and a NaN is named, not a crash.

Three fast paths, each one-sided: the record schema written out by hand
(``record_check.surely_valid_record``: True only for what the schema accepts, else fastjsonschema
decides), the parse of a line orjson wrote (``canonical.orjson_line``: its value only when the line
is orjson's own writing of it), and every hash by orjson when the value is in prepared shape.
Records of every source kind are mutated at every field, many ways, and checked both ways; files
are damaged at random and checked with the fast paths on and off.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from toolscore_core import InputError, evaluate
from toolscore_export import check as check_module
from toolscore_export import check_file, export_runs, record_schema, validate_record
from toolscore_export import validate as validate_module
from toolscore_export.canonical import NOT_ORJSON_LINE, orjson_line, prepare, sha256_prepared
from toolscore_export.record import RECORD_HASH_KEY, record_hash
from toolscore_export.record_check import surely_valid_record

from .test_check_pool_s36 import damage
from .test_row_check import _mutants as mutated

pytest.importorskip("orjson")

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
GUARDRAILS = ROOT / "examples" / "guardrails"

ODD_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2, 1.0, 1.5, -0.5, float("nan"), float("inf"), "", "x", "ok", "unknown",
    "run-row", "synthesized", "sha256", "toolscore-cjson-1", "toolscore.run-record", "1",
    "2026-12-02T10:15:00+00:00", "2026-13-02T10:15:00Z", "2026-12-02T10:15:00+00:00\n",
    "a" * 64, "A" * 64, "0" * 64 + "\n", "0" * 63, [], ["x"], ["x", "x"], [1], [{}], {}, {"k": 1}, ("x",),
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> list[Path]:
    """Records files of every source kind, as exports write them (each with its manifest): run rows
    (a full one, a bare one), an MCP session and an evaluation receipt; OTLP and provider traces;
    a trace scored with --gold."""
    from toolscore_core import PluginManager

    from .conftest import row, write_rows

    installed_plugin_manager = PluginManager(autoload=True, strict=True)  # the installed adapters
    folder = tmp_path_factory.mktemp("record-check")
    runs = write_rows(folder / "runs.jsonl", [
        row(), row(task="bare", server=None, price=None, started_at=None, finished_at=None, guard_denials=(),
                   usage={}, evaluation=None, cost_usd=None, calls=())])
    receipt = evaluate(GUARDRAILS / "gold.json", GUARDRAILS / "trace.json",
                       plugin_manager=installed_plugin_manager).to_dict()
    (folder / "receipt.json").write_text(json.dumps(receipt))
    files = []
    for number, (sources, options) in enumerate((
            ([runs, FIXTURES / "mcp" / "memory_session.jsonl", folder / "receipt.json"], {}),
            ([FIXTURES / "otel" / "mcp_spans.json", FIXTURES / "providers" / "openai_chat_completion.json"], {}),
            ([GUARDRAILS / "trace.json"], {"gold": GUARDRAILS / "gold.json"}))):
        files.append(folder / f"records-{number}.jsonl")
        export_runs(sources, files[-1], pm=installed_plugin_manager, **options)
    return files


@pytest.fixture(scope="module")
def records(exported) -> list[dict[str, Any]]:
    out = [json.loads(line) for path in exported for line in path.read_text(encoding="utf-8").splitlines()]
    kinds = {record["source"]["kind"] for record in out}
    assert kinds == {"run-row", "trace", "receipt"}, kinds
    assert any(record["evaluation"] for record in out) and any(record["requested_calls"] for record in out)
    return out


def test_every_record_an_export_writes_takes_the_fast_path(records):
    assert all(surely_valid_record(record) for record in records)


@pytest.fixture(scope="module")
def mutants(records) -> list[dict[str, Any]]:
    return [mutant for base in records for mutant in mutated(base, ODD_VALUES)]


def test_the_fast_path_never_accepts_what_the_schema_refuses(mutants):
    """One-sided: whenever the hand-written check says valid, fastjsonschema agrees, and so does the
    reference validator (draft-07, with formats; every 10th, as it takes milliseconds a record); and
    it must say valid often, or it buys nothing."""
    reference = jsonschema.Draft7Validator(record_schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    accepted = [mutant for mutant in mutants if surely_valid_record(mutant)]
    for number, mutant in enumerate(accepted):
        assert validate_module.schema_problem(mutant) is None, mutant
        if number % 10 == 0:
            assert not list(reference.iter_errors(mutant)), mutant
    assert len(accepted) > 5000 and len(mutants) - len(accepted) > 10000, (len(accepted), len(mutants))


def _verdict(record: Any) -> tuple[str, str] | None:
    try:
        validate_record(record)
    except InputError as exc:
        return exc.location or "", exc.message
    return None


def _slow_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fast path of the check off: the schema by fastjsonschema, every hash by prepare and
    the standard library's encoder, every line by the standard library's parser."""
    from toolscore_export import canonical, record

    monkeypatch.setattr(validate_module, "surely_valid_record", lambda record: False)
    monkeypatch.setattr(canonical, "is_prepared", lambda value: False)
    monkeypatch.setattr(record, "is_prepared", lambda value: False)
    monkeypatch.setattr(validate_module, "sha256_fast", lambda value: sha256_prepared(prepare(value)))
    monkeypatch.setattr(canonical, "orjson_line", lambda raw: NOT_ORJSON_LINE)


def test_validate_record_says_the_same_with_the_fast_paths_off(records, mutants, monkeypatch):
    rng = random.Random(37)
    sample = rng.sample(mutants, 1500) + list(records)
    fast = [_verdict(mutant) for mutant in sample]
    _slow_paths(monkeypatch)
    slow = [_verdict(mutant) for mutant in sample]
    assert fast == slow
    assert sum(v is None for v in fast) >= len(records) and sum(v is not None for v in fast) > 1000


@pytest.mark.parametrize("seed", range(6))
def test_a_damaged_file_gets_the_same_verdict_with_the_fast_paths_off(exported, tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    source = exported[seed % len(exported)]
    path = tmp_path / source.name
    for suffix in ("", ".manifest.json"):
        Path(f"{path}{suffix}").write_bytes(Path(f"{source}{suffix}").read_bytes())
    lines = damage(path.read_bytes().splitlines(keepends=True), rng)
    for _ in range(rng.randint(1, 3)):  # and values no export writes, as a lenient writer would put them
        at = rng.randrange(len(lines))
        lines.insert(at, lines[at].replace(b'"cost_usd":null', b'"cost_usd":NaN', 1)
                     .replace(b'"duration_s":0.012', b'"duration_s":1.2e-7', 1)
                     .replace(b'"repetition":1', b'"repetition":1.0', 1))
    path.write_bytes(b"".join(lines))
    fast = check_file(path, workers=1)
    _slow_paths(monkeypatch)
    slow = check_file(path, workers=1)
    assert fast == slow and not fast.ok


def test_records_read_back_are_orjson_lines_and_hash_the_same_both_ways(records):
    for record in records:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        value = orjson_line(line)
        assert value is not NOT_ORJSON_LINE and value == record
        without = {**record, "hashes": {k: v for k, v in record["hashes"].items() if k != RECORD_HASH_KEY}}
        strict = sha256_prepared(without)
        assert record_hash(record) == record_hash(record, prepared=True) == strict == record["hashes"][RECORD_HASH_KEY]


@pytest.mark.parametrize(("raw", "vouched"), [
    (b'{"canonical_form":"toolscore-cjson-1","answer":"re-run the e-mail"}\n', True),
    (b'{"a":"v2e-3"}', False),  # a digit before e-: the shape of a small float, so the slow parse decides
    (b'{"a":1e-7}', False), (b'{"a":1.5e-9}', False), (b'{"a":5e-324}', False),
    (b'{"a":1.0}', False), (b'{"a":0.00001}', False), (b'{"a":NaN}', False), (b'{"a": 1}', False),
    (b'{"a":0.5,"b":[1e+300]}', True),
])
def test_which_lines_orjson_line_vouches_for(raw, vouched):
    assert (orjson_line(raw) is not NOT_ORJSON_LINE) is vouched


@pytest.mark.parametrize(("where", "value", "location"), [
    (("evaluation", "score"), float("nan"), "$.evaluation.score"),
    (("evaluation", "score"), -float("inf"), "$.evaluation.score"),
    (("completed_calls", 0, "duration_s"), float("nan"), "$.completed_calls[0].duration_s"),
    (("completed_calls", 0, "duration_s"), float("inf"), "$.completed_calls[0].duration_s"),
    (("cost", "usd"), float("nan"), "$.cost.usd"),
    (("evaluation", "findings", 0, "odd key\n"), float("inf"), '$.evaluation.findings[0]["odd key\\n"]'),
])
def test_a_nan_or_infinity_is_named_where_it_stands_not_a_crash(records, where, value, location):
    """A lenient writer's ``NaN``: the schema's ``number`` admits it, the canonical form cannot hold
    it. It once escaped as a ValueError, a traceback from ``export validate``."""
    record = copy.deepcopy(next(r for r in records if r["evaluation"] and r["completed_calls"]))
    record["evaluation"]["findings"] = [{}]
    parent: Any = record
    for part in where[:-1]:
        parent = parent[part]
    parent[where[-1]] = value
    assert _verdict(record) == (location, "is NaN or an infinity, which is not JSON (no export writes it)")


def test_export_validate_names_a_nan_line_and_exits_1(tmp_path, records):
    record = copy.deepcopy(next(r for r in records if r["evaluation"]))
    record["evaluation"]["score"] = 12345.5
    text = json.dumps(record, separators=(",", ":")).replace("12345.5", "NaN")
    path = tmp_path / "nan.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "TOOLSCORE_DEBUG"}
    done = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "export", "validate", str(path)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "line 1, $.evaluation.score: is NaN or an infinity, which is not JSON" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_check_module_reads_lines_through_orjson_line():
    """The check's line reader is the one the tests above switch off (not a copy of its own)."""
    assert "orjson_line" in check_module.line_verdict.__code__.co_names


@pytest.mark.parametrize(("field", "value", "location", "message"), [
    ("server", {1: "a", "b": 2}, "$.server", "has a key that is not a string (int), which JSON cannot hold"),
    ("server", {"a": {1, 2}}, "$.server.a", "is of type set, which JSON cannot hold"),
    ("server", {"a": [b"raw"]}, "$.server.a[0]", "is of type bytes, which JSON cannot hold"),
    ("server", {"a": 10**5000}, "$", "cannot be written as JSON (Exceeds the limit (4300 digits)"),
])
def test_a_record_built_in_python_with_what_json_cannot_hold_is_an_input_error(records, field, value, location,
                                                                               message):
    """``validate_record`` is also called on records built in Python: a set, bytes or a key that is no
    string is named where it stands, as the InputError the function promises, never a TypeError."""
    record = copy.deepcopy(next(r for r in records if r["server"] is not None))
    record[field] = value
    verdict = _verdict(record)
    assert verdict is not None and verdict[0] == location and verdict[1].startswith(message), verdict


@pytest.mark.parametrize("spelled", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_manifest_holding_nan_is_a_problem_named_at_its_place_not_a_crash(exported, tmp_path, spelled):
    """The manifest is read by the standard parser, which takes ``NaN``; its own hash then met it in
    the strict encoder and ``export validate`` ended in a ValueError."""
    source = exported[0]
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    manifest = json.loads(Path(f"{source}.manifest.json").read_text(encoding="utf-8"))
    manifest["output"]["records"] = 12345
    Path(f"{path}.manifest.json").write_text(json.dumps(manifest).replace("12345", spelled), encoding="utf-8")
    result = check_file(path)
    assert [(p.where, p.message) for p in result.problems] == [
        ("manifest, $.output.records", "is NaN or an infinity, which is not JSON (no export writes it)")]


def test_a_manifest_past_the_cap_is_a_problem_not_read(exported, tmp_path, monkeypatch):
    source = exported[0]
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    Path(f"{path}.manifest.json").write_bytes(b'{"schema": "' + b"x" * 300_000 + b'"}')
    monkeypatch.setenv("TOOLSCORE_MAX_INPUT_MB", "0.1")
    result = check_file(path, workers=1)
    assert [p.where for p in result.problems] == ["manifest"]
    assert "0.3 MB, more than Toolscore reads into memory at once" in result.problems[0].message
