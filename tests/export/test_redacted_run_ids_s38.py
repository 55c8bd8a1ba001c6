"""Runs whose ids hold a credential stay distinct runs once it is hidden.

A preview keeps a key's first four and last two characters, so two cells whose task ids differ
only inside their keys were written with one run id twice: a file ``export validate`` refuses
(exit 1, "appears twice") and an importer would merge. Such a run id now ends in ``@`` and its
source's hash and line, the same with workers as without.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolscore_export import export_runs
from toolscore_export import parallel as par
from toolscore_export.canonical import file_sha256
from toolscore_export.check import check_file

ROOT = Path(__file__).resolve().parents[2]
OTLP_TRACE = ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


def token(middle: str) -> str:
    """A GitHub token shape whose preview is ``ghp_…R8`` whatever ``middle`` (34 letters and digits) is."""
    assert len(middle) == 34
    return "ghp_" + middle + "R8"


TOKENS = [token(f"{i:02d}" + "aB3" * 10 + "xy") for i in range(6)]


def rows_with_tokens(path: Path, make_row, count: int = 60) -> Path:
    lines = []
    for i in range(count):
        data = make_row(task=f"deploy-{TOKENS[i % len(TOKENS)]}", repetition=i // len(TOKENS) + 1).to_dict()
        data["turns"] = i
        lines.append(json.dumps(data, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def assert_nothing_of_the_keys(path: Path) -> None:
    text = path.read_text(encoding="utf-8") + Path(f"{path}.manifest.json").read_text(encoding="utf-8")
    for secret in TOKENS:
        assert secret[4:30] not in text


def test_cells_whose_ids_redact_alike_stay_distinct_runs(tmp_path: Path, make_row) -> None:
    runs = rows_with_tokens(tmp_path / "runs.jsonl", make_row)
    out = tmp_path / "records.jsonl"
    export_runs([runs], out, workers=1)
    written = records(out)
    assert len(written) == 60
    ids = [r["run_id"] for r in written]
    assert len(set(ids)) == 60
    sha = file_sha256(runs)[:12]
    for record in written:
        line = record["source"]["line"]
        assert record["run_id"] == f"deploy-ghp_…R8::{record['variant']['id']}::{record['repetition']}@{sha}:{line}"
        assert record["task_id"] == "deploy-ghp_…R8"  # a task id is not a key: the same preview for all
    assert_nothing_of_the_keys(out)
    report = check_file(out)
    assert report.ok, report.problems


def test_workers_give_the_same_ids(tmp_path: Path, make_row, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(par, "CHUNK_BYTES", 4096)  # many chunks from a small file
    runs = rows_with_tokens(tmp_path / "runs.jsonl", make_row, count=90)
    serial, pooled = tmp_path / "serial.jsonl", tmp_path / "pooled.jsonl"
    export_runs([runs], serial, workers=1)
    export_runs([runs], pooled, workers=2)
    assert serial.read_bytes() == pooled.read_bytes()
    assert len({r["run_id"] for r in records(pooled)}) == 90
    assert check_file(pooled).ok


def test_an_id_without_a_credential_is_left_as_it_is(tmp_path: Path, make_row) -> None:
    data = make_row(task="plain-task", final_answer=f"saw {TOKENS[0]}").to_dict()  # a key elsewhere in the row
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(data) + "\n", encoding="utf-8")
    out = tmp_path / "records.jsonl"
    export_runs([runs], out)
    (record,) = records(out)
    assert record["run_id"] == data["cell_id"]
    assert record["final_answer"] == "saw ghp_…R8"


def test_trace_files_named_with_keys_that_redact_alike(tmp_path: Path) -> None:
    trace = json.loads(OTLP_TRACE.read_text(encoding="utf-8"))
    paths = []
    for number, secret in enumerate(TOKENS[:3]):
        trace["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["name"] = f"tools/list {number}"  # a content of its own
        path = tmp_path / f"agent-{secret}.json"
        path.write_text(json.dumps(trace), encoding="utf-8")
        paths.append(path)
    out = tmp_path / "records.jsonl"
    export_runs(paths, out, workers=1)
    written = records(out)
    assert [r["run_id"] for r in written] == [f"agent-ghp_…R8.json@{file_sha256(p)[:12]}" for p in paths]
    assert [r["source"]["file"] for r in written] == ["agent-ghp_…R8.json"] * 3
    assert_nothing_of_the_keys(out)
    assert check_file(out).ok


@pytest.mark.parametrize("workers", [1, 2])
def test_per_trace_run_ids_of_a_file_named_with_a_key(tmp_path: Path, workers: int) -> None:
    trace = json.loads(OTLP_TRACE.read_text(encoding="utf-8"))
    spans = trace["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lines = []
    for number in range(40):
        for span in spans:
            span["traceId"] = f"{number + 1:032x}"
        lines.append(json.dumps(trace))
    path = tmp_path / f"traces-{TOKENS[1]}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "records.jsonl"
    export_runs([path], out, per_trace=True, workers=workers)
    written = records(out)
    assert len(written) == 40
    pattern = re.compile(r"traces-ghp_…R8\.jsonl#[0-9a-f]{32}@" + file_sha256(path)[:12])  # a trace has no line
    assert all(pattern.fullmatch(r["run_id"]) for r in written), written[0]["run_id"]
    assert len({r["run_id"] for r in written}) == 40
    assert_nothing_of_the_keys(out)
    assert check_file(out).ok


def test_the_manifest_hides_a_key_in_a_source_path_or_the_output_name(tmp_path: Path, make_row) -> None:
    folder = tmp_path / f"exports-{TOKENS[2]}"
    folder.mkdir()
    runs = folder / f"runs-{TOKENS[3]}.jsonl"
    runs.write_text(json.dumps(make_row().to_dict()) + "\n", encoding="utf-8")
    out = folder / f"records-{TOKENS[4]}.jsonl"
    result = export_runs([runs], out)
    assert_nothing_of_the_keys(out)
    (source,) = result.manifest["sources"]
    assert source["path"] == f"{tmp_path}/exports-ghp_…R8/runs-ghp_…R8.jsonl"
    assert source["name"] == "runs-ghp_…R8.jsonl"
    assert source["sha256"] == file_sha256(runs)  # the hash is still the file's
    assert result.manifest["output"]["name"] == "records-ghp_…R8.jsonl"
    assert check_file(out).ok
