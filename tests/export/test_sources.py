"""Every source kind as records: adapter trace files (with and without --gold), `mcp record`
sessions, and evaluation receipts; each validates with fastjsonschema and jsonschema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from toolscore_core import evaluate
from toolscore_export import export_runs, record_schema, validate_record

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
TRACES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".jsonl"))
GUARDRAILS = ROOT / "examples" / "guardrails"


def check(records: list[dict]) -> None:
    validator = jsonschema.Draft7Validator(record_schema())
    for record in records:
        assert list(validator.iter_errors(record)) == [], record["run_id"]
        validate_record(record)


def export(tmp_path: Path, sources, **options) -> list[dict]:
    out = tmp_path / "records.jsonl"
    export_runs(sources, out, **options)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_there_are_trace_fixtures_of_every_adapter_family():
    assert {p.parent.name for p in TRACES} == {"frameworks", "mcp", "otel", "providers"}
    assert len(TRACES) > 30


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_adapter_fixture_exports_to_valid_records(tmp_path, trace, installed_plugin_manager):
    [record] = export(tmp_path, [trace], pm=installed_plugin_manager)
    check([record])
    assert record["source"]["kind"] == "trace" and record["source"]["format"]
    assert record["outcome"] == "unknown" and record["passed"] is None and record["evaluation"] is None
    assert record["status"] is None and "status" in record["coverage"]["unknown"]
    assert len(record["requested_calls"]) == len(record["completed_calls"]) == record["coverage"]["calls"]


def test_an_mcp_record_session_keeps_its_ids_and_results(tmp_path, installed_plugin_manager):
    [record] = export(tmp_path, [FIXTURES / "mcp" / "memory_session.jsonl"], pm=installed_plugin_manager)
    assert record["source"]["format"] == "mcp"
    assert all(c["call_id_source"] == "source" for c in record["requested_calls"])
    assert any(c["status"] == "ok" for c in record["completed_calls"])
    assert record["coverage"]["calls_with_result"] >= 1


def test_otel_spans_carry_their_trace_and_span_ids(tmp_path, installed_plugin_manager):
    [record] = export(tmp_path, [FIXTURES / "otel" / "mcp_spans.json"], pm=installed_plugin_manager)
    assert record["trace_context"]["trace_id"]
    assert all(c["span_id"] for c in record["requested_calls"])


def test_a_trace_scored_with_gold_gets_an_outcome_and_credentials_are_redacted(tmp_path, installed_plugin_manager):
    trace = GUARDRAILS / "trace.json"
    [record] = export(tmp_path, [trace], gold=GUARDRAILS / "gold.json", pm=installed_plugin_manager)
    check([record])
    expected = evaluate(GUARDRAILS / "gold.json", trace, plugin_manager=installed_plugin_manager)
    assert record["evaluation"]["score"] == pytest.approx(expected.score)
    assert record["outcome"] in ("pass", "fail") and record["task_id"] == "gold"
    assert record["requested_calls"][0]["call_id"] == "call-1"
    assert record["requested_calls"][0]["call_id_source"] == "synthesized"
    assert "AKIAIOSFODNN7EXAMPLE" not in (tmp_path / "records.jsonl").read_text()


def test_trace_format_forces_an_adapter(tmp_path, installed_plugin_manager):
    from toolscore_core import InputError

    trace = FIXTURES / "providers" / "openai_messages.json"
    [record] = export(tmp_path, [trace], trace_format="openai", pm=installed_plugin_manager)
    assert record["source"]["format"] == "openai"
    with pytest.raises(InputError):
        export(tmp_path, [trace], trace_format="anthropic", pm=installed_plugin_manager)


def test_receipts_as_a_json_file_and_as_json_lines(tmp_path, installed_plugin_manager):
    receipt = evaluate(GUARDRAILS / "gold.json", GUARDRAILS / "trace.json",
                       plugin_manager=installed_plugin_manager).to_dict()
    single = tmp_path / "receipt.json"
    single.write_text(json.dumps(receipt, indent=2))
    lines = tmp_path / "receipts.jsonl"
    lines.write_text(json.dumps(receipt) + "\n" + json.dumps(receipt) + "\n")
    records = export(tmp_path, [single, lines], pm=installed_plugin_manager)
    check(records)
    assert [r["run_id"] for r in records] == ["receipt.json", "receipts.jsonl#1", "receipts.jsonl#2"]
    assert {r["source"]["kind"] for r in records} == {"receipt"}
    assert records[0]["evaluation"]["grade"] == receipt["grade"]
    assert len(records[0]["requested_calls"]) == len(receipt["actual"])


def test_mixed_sources_in_one_export_with_one_manifest(tmp_path, make_row, installed_plugin_manager):
    from toolscore_core import RunWriter

    with RunWriter(tmp_path / "runs.jsonl") as writer:
        writer.write(make_row())
    records = export(tmp_path, [tmp_path / "runs.jsonl", FIXTURES / "mcp" / "memory_session.jsonl"],
                     pm=installed_plugin_manager)
    check(records)
    manifest = json.loads((tmp_path / "records.jsonl.manifest.json").read_text())
    assert [s["kind"] for s in manifest["sources"]] == ["run-row", "trace"]
    assert [s["records"] for s in manifest["sources"]] == [1, 1]
    assert manifest["sources"][1]["format"] == "mcp"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("TOOLSCORE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_cli_exports_a_trace_with_gold(tmp_path):
    result = cli("export", "--format", "aef", str(GUARDRAILS / "trace.json"), "--gold", str(GUARDRAILS / "gold.json"),
                 "-o", "records.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 record(s) written to records.jsonl" in result.stdout
    assert cli("export", "validate", "records.jsonl", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(("args", "message"), [
    (["missing.jsonl", "-o", "out.jsonl"], "missing.jsonl: file not found"),
    (["--format", "nope", "in.json", "-o", "out.jsonl"], "--format 'nope' is not an installed run-record format"),
    (["in.json", "in.json", "-o", "out.jsonl"], "is given twice"),
    (["in.json", "-o", "no/such/dir/out.jsonl"], "its folder does not exist"),
    (["in.json", "-o", "in.json"], "is also a source"),
    (["empty.jsonl", "-o", "out.jsonl"], "empty.jsonl: is empty (0 bytes)"),
    (["bad.jsonl", "-o", "out.jsonl"], "bad.jsonl, at line 2"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, args, message, make_row):
    from toolscore_core import RunWriter

    (tmp_path / "in.json").write_text((GUARDRAILS / "trace.json").read_text())
    (tmp_path / "empty.jsonl").write_text("")
    with RunWriter(tmp_path / "bad.jsonl") as writer:
        writer.write(make_row())
    with (tmp_path / "bad.jsonl").open("a") as handle:
        handle.write('{"run_record_version": "1", "cell_id": "x"}\n{"also": 1}\n')
    result = cli("export", *args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out.jsonl").exists()
