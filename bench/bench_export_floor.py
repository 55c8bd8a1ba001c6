"""The floor under `toolscore export` on this machine: the least CPU a Python export built on orjson
spends per record of bench_export.py's inputs, beside what the export spends.

Run: .venv/bin/python bench/bench_export_floor.py [--rows 100000] [--calls 3] [--otlp-traces 20000] [--rounds 3]

Why: the export's goal is a number of records a second on this machine, and machines of the same
kind here have run the same code at speeds a factor of two apart. This measures, on the same
inputs (bench_export.py writes them) and in the same minutes, a deliberately minimal exporter:
every line parsed by orjson, each record's fields read into a record of the same shape (its
calls with their arguments, results, ids, status and duration), the hashes a record carries
(each argument set and result, the answer, the record itself over its sorted JSON) and its line
written by orjson. Nothing else: no validation of the row, no credential check, no limit on
hostile input (nesting, long integers, number forms), no merge of a tool's MCP and gen_ai spans,
no list of unknowns, no manifest, no worker processes. So no Python exporter on orjson that
keeps those can cost less per record than this; ``cores x 10**6 / floor`` is the most records a
second that any such exporter could give here, before its driver and its output's write.

The export's own figure is its CPU per record (driver and workers together) from export_runs
with two workers, as bench_export.py reports it.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from bench_export import otlp_traces_file, runs_file

SORTED = orjson.OPT_SORT_KEYS
SOURCE_SHA256 = "0" * 64  # the source file's hash (taken once a file, not a record)
TRACE_FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


def sha(value: Any) -> str:
    return hashlib.sha256(orjson.dumps(value, option=SORTED)).hexdigest()


def call_entries(index: int, call_id: Any, tool: Any, args: Any, result: Any, is_error: Any, denied: bool,
                 duration: Any, span_id: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A call's requested and completed entries, with the record's keys (a status, an id made where none
    was given and the two hashes are all that is worked out)."""
    status = "denied" if denied else "error" if is_error is True else "ok" if is_error is False else "unknown"
    made = call_id or f"call-{index + 1}"
    requested = {"call_id": made, "call_id_source": "source" if call_id else "synthesized", "source_call_id": call_id,
                 "index": index, "tool": tool, "provider_name": None, "args": args,
                 "args_sha256": sha(args) if args is not None else None, "denied": denied, "deny_reason": None,
                 "span_id": span_id}
    completed = {"call_id": made, "status": status, "result": result, "structured": None, "error": None,
                 "result_sha256": sha(result), "duration_s": duration, "cost_usd": None}
    return requested, completed


def record_line(run_id: str, fields: dict[str, Any], calls: list[tuple[dict[str, Any], dict[str, Any]]],
                final_answer: Any, source: dict[str, Any]) -> bytes:
    """The record's line, with the record's blocks (their values copied or constant) and its hashes."""
    completed = [done for _, done in calls]
    record = {"schema": "toolscore.run-record", "schema_version": "1", "run_id": run_id, **fields,
              "attempts": 1, "source": source, "final_answer": final_answer,
              "requested_calls": [asked for asked, _ in calls], "completed_calls": completed,
              "coverage": {"calls": len(calls), "calls_with_result": len(calls),
                           "calls_with_duration": sum(done["duration_s"] is not None for done in completed),
                           "calls_with_cost": 0, "final_answer_known": final_answer is not None,
                           "prompt_known": False, "cost_known": False,
                           "unknown": ["calls[*].cost_usd", "prompt", "started_at", "finished_at"]},
              "hashes": {"algorithm": "sha256", "canonical_form": "toolscore-cjson-1", "source_file": SOURCE_SHA256,
                         "prompt": None, "final_answer": sha(final_answer) if final_answer is not None else None}}
    record["hashes"]["record_sha256"] = sha(record)
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def rows_floor(lines: list[bytes]) -> Iterator[bytes]:
    for number, line in enumerate(lines, start=1):
        row = orjson.loads(line)
        calls = [call_entries(i, c.get("id"), c.get("tool"), c.get("args"), c.get("result"), c.get("is_error"),
                              bool(c.get("denied")), c.get("duration"), c.get("span_id"))
                 for i, c in enumerate(row["calls"])]
        get = row.get
        fields = {"task_id": row["task_id"], "variant": {"id": row["arm_id"], "provider": get("provider"),
                                                         "model": get("model")},
                  "repetition": row["repetition"], "study": get("study"), "status": row["status"],
                  "outcome": row["outcome"], "passed": row["outcome"] == "pass", "error": get("error"),
                  "started_at": get("started_at"), "finished_at": get("finished_at"), "turns": get("turns"),
                  "prompt": None, "usage": get("usage"), "cost": {"usd": get("cost_usd"), "price": get("price")},
                  "server": get("server"), "evaluation": get("evaluation"), "trace_context": {"trace_id": None}}
        yield record_line(row["cell_id"], fields, calls, get("final_answer"),
                          {"kind": "run-row", "format": "run-row", "file": "runs.jsonl", "line": number})


def otlp_floor(lines: list[bytes]) -> Iterator[bytes]:
    open_traces: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for line in [*lines, b'{"resourceSpans":[]}']:
        seen: set[str] = set()
        for resource in orjson.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attributes = {}
                    for item in span.get("attributes", ()):
                        value = item["value"]
                        attributes[item["key"]] = value.get("stringValue", value.get("intValue"))
                    open_traces.setdefault(span["traceId"], []).append((span, attributes))
                    seen.add(span["traceId"])
        for trace_id in [t for t in open_traces if t not in seen]:  # bench_export's traces end on their second line
            spans = open_traces.pop(trace_id)
            calls: list[tuple[dict[str, Any], dict[str, Any]]] = []
            for span, a in spans:
                tool = a.get("gen_ai.tool.name")
                if tool is None:
                    continue
                args = a.get("gen_ai.tool.call.arguments")
                duration = (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9
                calls.append(call_entries(len(calls), a.get("gen_ai.tool.call.id"), tool,
                                          orjson.loads(args) if args else None, a.get("gen_ai.tool.call.result"),
                                          "error.type" in a, False, duration, span["spanId"]))
            fields = {"task_id": None, "variant": {"id": None, "provider": None, "model": None}, "repetition": None,
                      "study": None, "status": None, "outcome": "unknown", "passed": None, "error": None,
                      "started_at": None, "finished_at": None, "turns": None, "prompt": None,
                      "usage": {"input_tokens": None, "output_tokens": None, "cached_tokens": None},
                      "cost": {"usd": None, "price": None}, "server": None, "evaluation": None,
                      "trace_context": {"trace_id": trace_id, "span_id": spans[-1][0]["spanId"]}}
            yield record_line(f"traces.jsonl#{trace_id}", fields, calls, None,
                              {"kind": "trace", "format": "otel", "file": "traces.jsonl", "line": None})


def floor_us(make: Any, lines: list[bytes], rounds: int) -> tuple[float, int, float]:
    """The least CPU µs a record over ``rounds``, the records, and their mean size in bytes."""
    best, count, size = float("inf"), 0, 0
    for _ in range(rounds):
        started = time.process_time()
        count = size = 0
        for made in make(lines):
            count += 1
            size += len(made)
        best = min(best, (time.process_time() - started) / count * 1e6)
    return best, count, size / count


def export_us(source: Path, out: Path, rounds: int, per_trace: bool) -> tuple[float, float]:
    """The export's least CPU µs a record (driver and two workers) over ``rounds``, and its mean record size."""
    from toolscore_export import export_runs

    best, size = float("inf"), 0.0
    for _ in range(rounds):
        cpu, kids = time.process_time(), os.times()
        result = export_runs([source], out, workers=2, per_trace=per_trace)
        ended = os.times()
        spent = time.process_time() - cpu + ended.children_user + ended.children_system - kids.children_user \
            - kids.children_system
        best = min(best, spent / result.records * 1e6)
        size = out.stat().st_size / result.records
    return best, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--otlp-traces", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3, help="the least CPU of this many rounds is reported")
    opts = parser.parse_args()
    gc.set_threshold(10_000, 10, 10)  # as the export's workers run (parallel._fewer_collections)
    cores = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        rows, traces = Path(tmp) / "runs.jsonl", Path(tmp) / "traces.jsonl"
        runs_file(rows, opts.rows, opts.calls)
        otlp_traces_file(traces, TRACE_FIXTURE.read_bytes(), opts.otlp_traces)
        out = Path(tmp) / "records.jsonl"
        warm = Path(tmp) / "warm.jsonl"
        runs_file(warm, 200, opts.calls)
        export_us(warm, out, 1, False)  # imports and compiled schemas, outside the figures
        for what, source, make, per_trace in (
                (f"rows ({opts.rows:,}, {opts.calls} calls each)", rows, rows_floor, False),
                (f"OTLP traces ({opts.otlp_traces:,})", traces, otlp_floor, True)):
            lines = source.read_bytes().splitlines(keepends=True)
            floor, count, floor_size = floor_us(make, lines, opts.rounds)
            del lines
            spent, size = export_us(source, out, opts.rounds, per_trace)
            print(f"{what}: {count:,} records")
            print(f"  floor   {floor:6.1f} µs of CPU a record ({floor_size:,.0f} B each): at most "
                  f"{cores * 1e6 / floor:,.0f} records/s on {cores} cores")
            print(f"  export  {spent:6.1f} µs of CPU a record ({size:,.0f} B each): {cores * 1e6 / spent:,.0f} "
                  f"records/s on {cores} cores if every core did nothing else; {spent / floor:.1f}x the floor")


if __name__ == "__main__":
    main()
