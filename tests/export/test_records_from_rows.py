"""Run records from harness run rows: every field the spec names, unknowns explicit, hashes right."""

from __future__ import annotations

import json
from pathlib import Path

from toolscore_core import RunCall, RunWriter
from toolscore_export import export_runs, sha256_hex, validate_record


def write_rows(path: Path, rows) -> Path:
    with RunWriter(path) as writer:
        for item in rows:
            writer.write(item)
    return path


def export(tmp_path: Path, rows, name: str = "runs.jsonl") -> list[dict]:
    source = write_rows(tmp_path / name, rows)
    out = tmp_path / "records.jsonl"
    export_runs([source], out)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_one_record_per_run_with_identity_variant_and_outcome(tmp_path, make_row):
    [record] = export(tmp_path, [make_row()])
    assert record["schema"] == "toolscore.run-record" and record["schema_version"] == "1"
    assert record["run_id"] == "clean-up::careful::1"
    assert (record["task_id"], record["repetition"], record["study"]) == ("clean-up", 1, "notes-offline")
    assert record["variant"] == {"id": "careful", "provider": "scripted", "model": "scripted"}
    assert (record["status"], record["outcome"], record["passed"]) == ("completed", "pass", True)
    assert record["source"] == {"kind": "run-row", "format": "run-row", "file": "runs.jsonl", "line": 1}
    assert record["evaluation"]["score"] == 0.95 and record["evaluation"]["grade"] == "A"
    validate_record(record)


def test_requested_and_completed_calls_are_correlated_by_call_id(tmp_path, make_row):
    [record] = export(tmp_path, [make_row()])
    requested, completed = record["requested_calls"], record["completed_calls"]
    assert [c["call_id"] for c in requested] == [c["call_id"] for c in completed] == ["toolu_1", "call-2", "toolu_3"]
    assert [c["call_id_source"] for c in requested] == ["source", "synthesized", "source"]
    denied = requested[1]
    assert denied["denied"] is True and denied["deny_reason"] == "this study never deletes"
    assert [c["status"] for c in completed] == ["ok", "denied", "unknown"]


def test_a_result_not_captured_is_unknown_never_ok_and_is_listed(tmp_path, make_row):
    [record] = export(tmp_path, [make_row()])
    missing = record["completed_calls"][2]
    assert missing["status"] == "unknown" and missing["result_sha256"] is None
    coverage = record["coverage"]
    assert coverage["calls"] == 3 and coverage["calls_with_result"] == 2 and coverage["calls_with_duration"] == 1
    assert coverage["calls_with_cost"] == 0
    for item in ("calls[toolu_3].status", "calls[toolu_3].result", "calls[toolu_3].duration_s",
                 "calls[*].cost_usd", "prompt", "usage.cached_tokens"):
        assert item in coverage["unknown"], item
    assert "cost.usd" not in coverage["unknown"]  # cost 0.0 is known: the run was free


def test_unknown_cost_is_null_and_free_is_zero(tmp_path, make_row):
    free, unknown = export(tmp_path, [make_row(), make_row(arm="sloppy", cost_usd=None)])
    assert free["cost"]["usd"] == 0 and free["coverage"]["cost_known"] is True
    assert unknown["cost"]["usd"] is None and unknown["coverage"]["cost_known"] is False
    assert "cost.usd" in unknown["coverage"]["unknown"]


def test_duplicate_and_colliding_ids_are_synthesized_uniquely(tmp_path, make_row):
    calls = (RunCall(tool="a", id="same", is_error=False), RunCall(tool="b", id="same", is_error=False),
             RunCall(tool="c", id="call-2", is_error=False))
    [record] = export(tmp_path, [make_row(calls=calls, guard_denials=())])
    ids = [(c["call_id"], c["call_id_source"], c["source_call_id"]) for c in record["requested_calls"]]
    assert ids == [("same", "source", "same"), ("call-2-2", "synthesized", "same"), ("call-2", "source", "call-2")]
    assert len({c["call_id"] for c in record["completed_calls"]}) == 3


def test_a_retried_cell_is_exported_once_by_its_latest_row(tmp_path, make_row):
    records = export(tmp_path, [make_row(status="error", outcome="error", final_answer=None, calls=()),
                                make_row(arm="other"), make_row()])
    assert [r["run_id"] for r in records] == ["clean-up::other::1", "clean-up::careful::1"]
    assert records[1]["attempts"] == 2 and records[1]["source"]["line"] == 3
    manifest = json.loads((tmp_path / "records.jsonl.manifest.json").read_text())
    assert manifest["sources"][0]["superseded_rows"] == 1


def test_a_stopped_run_has_an_unknown_final_answer_a_completed_one_a_known_empty_one(tmp_path, make_row):
    stopped, silent = export(tmp_path, [make_row(status="error", outcome="error", final_answer=None),
                                        make_row(arm="quiet", final_answer=None)])
    assert stopped["coverage"]["final_answer_known"] is False and "final_answer" in stopped["coverage"]["unknown"]
    assert silent["coverage"]["final_answer_known"] is True and silent["final_answer"] is None
    assert stopped["hashes"]["final_answer"] is None and stopped["passed"] is False


def test_hashes_of_arguments_results_answer_and_source_file(tmp_path, make_row):
    [record] = export(tmp_path, [make_row()])
    first = record["requested_calls"][0]
    assert first["args_sha256"] == sha256_hex({})
    assert record["completed_calls"][0]["result_sha256"] == sha256_hex([{"type": "text", "text": "old, new"}])
    assert record["hashes"]["final_answer"] == sha256_hex("I could not delete 'old': the guard refused it.")
    import hashlib

    assert record["hashes"]["source_file"] == hashlib.sha256((tmp_path / "runs.jsonl").read_bytes()).hexdigest()
    assert record["hashes"]["prompt"] is None  # the row does not record the prompt


def test_a_prompt_kept_in_extra_is_exported_and_hashed(tmp_path, make_row):
    [record] = export(tmp_path, [make_row(extra={"prompt": "Clean up the old note."})])
    assert record["prompt"] == "Clean up the old note."
    assert record["hashes"]["prompt"] == sha256_hex("Clean up the old note.")
    assert record["coverage"]["prompt_known"] is True


def test_credentials_are_redacted_before_hashing_and_writing(tmp_path, make_row, ghp):
    calls = (RunCall(tool="login", id="c1", args={"token": ghp}, result=f"ok {ghp}", is_error=False),)
    [record] = export(tmp_path, [make_row(calls=calls, guard_denials=(), final_answer=f"key {ghp}")])
    text = (tmp_path / "records.jsonl").read_text()
    assert ghp not in text
    args = record["requested_calls"][0]["args"]
    assert args["token"] != ghp and record["requested_calls"][0]["args_sha256"] == sha256_hex(args)
    assert record["hashes"]["final_answer"] == sha256_hex(record["final_answer"])
    validate_record(record)


def test_the_export_is_deterministic(tmp_path, make_row):
    source = write_rows(tmp_path / "runs.jsonl", [make_row(), make_row(arm="b")])
    export_runs([source], tmp_path / "one.jsonl")
    export_runs([source], tmp_path / "two.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_hook_toolscore_register_exporters_provides_the_run_record_format(installed_plugin_manager):
    from toolscore_core import exporter_formats

    assert "aef" in exporter_formats("run-record", pm=installed_plugin_manager)
