"""``--per-trace``: one record per trace id of an OTLP source, streamed, each valid, each scored."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolscore_core import InputError, evaluate
from toolscore_export import check_file, export_runs
from toolscore_export.record import RECORD_HASH_KEY, record_hash

ROOT = Path(__file__).resolve().parents[2]
SPANS = ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"
GUARDRAILS = ROOT / "examples" / "guardrails"
REQUEST = json.loads(SPANS.read_text(encoding="utf-8"))
FIXTURE_SPANS = [span for scope in REQUEST["resourceSpans"][0]["scopeSpans"] for span in scope["spans"]]


def trace_id(number: int) -> str:
    return f"{number + 1:032x}"


def request(spans: list[dict]) -> str:
    return json.dumps({"resourceSpans": [{"resource": REQUEST["resourceSpans"][0].get("resource", {}),
                                          "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})


def of_trace(number: int, part: slice = slice(None)) -> list[dict]:
    return [dict(span, traceId=trace_id(number)) for span in FIXTURE_SPANS[part]]


def collector_file(path: Path, count: int) -> Path:
    """Line j: the second half of trace j-1's spans and the first half of trace j's, as a collector batches them."""
    lines = [request((of_trace(j - 1, slice(3, None)) if j else []) + (of_trace(j, slice(0, 3)) if j < count else []))
             for j in range(count + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_trace_is_a_record_with_its_own_ids(tmp_path):
    source = collector_file(tmp_path / "otlp.jsonl", 5)
    result = export_runs([source], tmp_path / "out.jsonl", per_trace=True)
    found = records(tmp_path / "out.jsonl")
    assert result.records == 5 and result.manifest["sources"][0]["records"] == 5
    assert [r["run_id"] for r in found] == [f"otlp.jsonl#{trace_id(i)}" for i in range(5)]
    for i, record in enumerate(found):
        assert record["trace_context"] == {"trace_id": trace_id(i), "span_id": "7a97c643656412a9"}
        assert [c["tool"] for c in record["requested_calls"]] == ["read_text_file", "read_text_file", "move_file"]
    assert check_file(tmp_path / "out.jsonl").ok
    [merged] = (export_runs([source], tmp_path / "merged.jsonl"), )  # without the option: one record, as before
    assert merged.records == 1


def test_the_command_takes_the_option_and_validate_accepts_the_records(tmp_path):
    from toolscore_export.cli import export as export_command

    source = collector_file(tmp_path / "otlp.jsonl", 3)
    out = tmp_path / "out.jsonl"
    runner = CliRunner()
    made = runner.invoke(export_command, ["runs", "--per-trace", str(source), "-o", str(out)])
    assert made.exit_code == 0, made.output
    assert "3 record(s)" in made.output
    checked = runner.invoke(export_command, ["validate", str(out)])
    assert checked.exit_code == 0 and "3 record(s) valid" in checked.output


def without_run_id(record: dict) -> dict:
    """The record as it would be under another run id: the run id and its hash set apart."""
    kept = dict(record, run_id=None)
    return kept | {"hashes": dict(kept["hashes"], **{RECORD_HASH_KEY: record_hash(kept)})}


@pytest.mark.parametrize("form", ["json", "jsonl"])
def test_a_file_of_one_trace_is_the_record_without_the_option_but_its_run_id(tmp_path, form):
    source = tmp_path / f"one.{form}"
    if form == "json":
        source.write_bytes(SPANS.read_bytes())  # one pretty-printed document: parsed whole
    else:
        source.write_text(json.dumps(REQUEST) + "\n", encoding="utf-8")  # one line: streamed
    [split] = records(export_runs([source], tmp_path / "split.jsonl", per_trace=True).output)
    [whole] = records(export_runs([source], tmp_path / "whole.jsonl").output)
    assert split["run_id"] == f"{source.name}#{FIXTURE_SPANS[0]['traceId']}" and whole["run_id"] == source.name
    assert without_run_id(split) == without_run_id(whole)


def test_a_trace_spread_over_distant_lines_is_gathered_whole(tmp_path):
    lines = [request(of_trace(0, slice(0, 2))), request(of_trace(1)), request(of_trace(2, slice(0, 1))),
             request(of_trace(0, slice(2, None)) + of_trace(2, slice(1, None)))]
    source = tmp_path / "spread.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = records(export_runs([source], tmp_path / "out.jsonl", per_trace=True).output)
    assert [r["trace_context"]["trace_id"] for r in found] == [trace_id(1), trace_id(0), trace_id(2)]  # as they end
    alone = tmp_path / "alone.jsonl"
    alone.write_text(request(of_trace(0)) + "\n", encoding="utf-8")
    [expected] = records(export_runs([alone], tmp_path / "alone.out.jsonl", per_trace=True).output)
    first = found[1]
    assert first["requested_calls"] == expected["requested_calls"]
    assert first["completed_calls"] == expected["completed_calls"]


def test_with_gold_each_trace_is_scored(tmp_path):
    source = collector_file(tmp_path / "otlp.jsonl", 3)
    found = records(export_runs([source], tmp_path / "out.jsonl", per_trace=True, gold=GUARDRAILS / "gold.json").output)
    alone = tmp_path / "alone.json"
    alone.write_text(request(of_trace(0)), encoding="utf-8")
    expected = evaluate(GUARDRAILS / "gold.json", alone).to_dict()
    assert len(found) == 3 and all(r["task_id"] == "gold" for r in found)
    assert {r["evaluation"]["score"] for r in found} == {expected["score"]}


@pytest.mark.parametrize(("bad", "message"), [('{"resourceSpans": [', "not valid JSON"),
                                               ('{"spans": []}', "not an OTLP export request")])
def test_a_bad_line_names_the_file_and_the_line(tmp_path, bad, message):
    source = collector_file(tmp_path / "otlp.jsonl", 4)
    lines = source.read_text(encoding="utf-8").splitlines()
    lines[2] = bad
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        export_runs([source], tmp_path / "out.jsonl", per_trace=True)
    assert message in caught.value.message
    assert Path(str(caught.value.file)).name == "otlp.jsonl" and caught.value.location.startswith("line 3")
    assert not (tmp_path / "out.jsonl").exists()


def traced_peak(source: Path, out: Path) -> int:
    tracemalloc.start()
    try:
        export_runs([source], out, per_trace=True)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_traces(tmp_path):
    """Five times the traces, the same peak (bar an entry per trace id in the first pass): no trace is held once it
    ends."""
    small = collector_file(tmp_path / "small.jsonl", 300)  # both over the 1 MiB read buffer of the hashing
    large = collector_file(tmp_path / "large.jsonl", 1500)
    export_runs([small], tmp_path / "warm.jsonl", per_trace=True)
    peak_small = traced_peak(small, tmp_path / "small.out.jsonl")
    peak_large = traced_peak(large, tmp_path / "large.out.jsonl")
    assert peak_large < peak_small + 256 * 1024, (peak_small, peak_large)


def test_a_source_that_is_not_otlp_is_one_record_as_usual(tmp_path):
    trace = GUARDRAILS / "trace.json"
    [split] = records(export_runs([trace], tmp_path / "split.jsonl", per_trace=True).output)
    [whole] = records(export_runs([trace], tmp_path / "whole.jsonl").output)
    assert split == whole


def test_per_trace_sources_start_no_workers(tmp_path, monkeypatch):
    """They are read in the driver, so a pool for them alone would be forked for nothing."""
    from toolscore_export import sources

    def no_pool(*args, **kwargs):
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(sources, "Workers", no_pool)
    source = collector_file(tmp_path / "otlp.jsonl", 3)
    assert export_runs([source], tmp_path / "out.jsonl", per_trace=True, workers=2).records == 3
