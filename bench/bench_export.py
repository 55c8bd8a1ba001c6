"""`toolscore export` from harness run rows (or OTLP trace files): records per second and peak memory.

Run: .venv/bin/python bench/bench_export.py [--rows 100000] [--calls 3] [--format aef|otel] [--traces N]
     [--otlp-traces N [--same-span-ids] [--batch B]] [--workers N] [--sha256] [--rounds N]
Writes a runs file of --rows distinct cells (one realistic row, written by the kernel's
RunWriter, with its cell id varied; --calls tool calls each, one of them denied), then
exports it with export_runs() exactly as the command does: both passes over the file,
row validation, redaction check, records, every hash, the output and its manifest. Reports
records/s of wall time and of CPU time (this process plus its worker processes: the
machine is shared), and the process's peak RSS growth (VmHWM reset before the export, read
after) with the largest worker's peak RSS when workers ran (``--workers``, default auto). ``--format otel`` writes the verdicts
as OTLP/JSON evaluation events instead; ``--traces N`` exports N copies of an OTLP/JSON
trace file of the adapter fixtures (one record each) instead of a runs file;
``--otlp-traces N`` exports one JSON Lines OTLP file of N traces (that fixture's spans
under N trace ids and span ids of their own, each trace's spans split over two lines as a collector batches them)
with ``per_trace=True``: one record per trace.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from _memory import peak_rss_kib, reset_peak


def runs_file(path: Path, rows: int, calls: int) -> None:
    from toolscore_core import RunCall, RunRow

    row_calls = tuple(
        RunCall(tool="delete_note", args={"title": f"n{i}"}, denied=True, deny_reason="never deletes", is_error=True)
        if i == 1 else
        RunCall(tool="create_note", id=f"toolu_{i}", args={"title": f"note {i}", "body": "text " * 20},
                result=[{"type": "text", "text": f"saved note {i}"}], is_error=False, duration=0.01 * (i + 1))
        for i in range(calls))
    base = RunRow(task_id="t", arm_id="careful", repetition=1, status="completed", outcome="pass", order=1, seed=7,
                  study="bench", provider="scripted", model="scripted", turns=calls + 1,
                  usage={"input_tokens": 900, "output_tokens": 120}, cost_usd=0.0012,
                  final_answer="Saved the notes; the delete was refused.", calls=row_calls,
                  evaluation={"score": 0.93, "grade": "A", "verdict": "PASS"}).to_dict()
    with path.open("w", encoding="utf-8") as handle:
        for i in range(rows):
            task, repetition = f"t{i % 997}", i // 997 + 1
            base.update(task_id=task, repetition=repetition, cell_id=f"{task}::careful::{repetition}")
            handle.write(json.dumps(base, ensure_ascii=False, separators=(",", ":")) + "\n")


def otlp_traces_file(path: Path, trace: bytes, count: int, *, same_span_ids: bool = False, batch: int = 1) -> None:
    """JSON Lines of OTLP export requests holding ``count`` traces: line j has the second half of
    trace j-1's spans and the first half of trace j's (a trace ends on the line after it began);
    with ``batch`` B, the second halves of traces B(j-1) to Bj-1 and the first halves of traces Bj
    to B(j+1)-1, as a collector batching more spans a request writes them.

    Each trace gets its own trace id and, as in a real export, its own span ids (the first
    eight hex digits of each id, and of each parent id, replaced by the trace's number):
    readers cache decoded ids, and ids repeated trace after trace would hide that cost.
    ``same_span_ids`` keeps the fixture's span ids in every trace (the input of the figures
    in bench/RESULTS.md before 2026-12-04 20:30 UTC)."""
    request = json.loads(trace)
    resource = request["resourceSpans"][0]
    spans = [span for scope in resource["scopeSpans"] for span in scope["spans"]]
    half = len(spans) // 2

    def renamed(number: int, part: list[dict]) -> list[dict]:
        if same_span_ids:
            return [dict(span, traceId=f"{number + 1:032x}") for span in part]
        prefix = f"{number + 1:08x}"
        return [dict(span, traceId=f"{number + 1:032x}",
                     **{key: prefix + span[key][8:] for key in ("spanId", "parentSpanId") if span.get(key)})
                for span in part]

    with path.open("w", encoding="utf-8") as handle:
        for j in range((count + batch - 1) // batch + 1):
            ending = range(max(0, (j - 1) * batch), min(count, j * batch))
            starting = range(j * batch, min(count, (j + 1) * batch))
            written = ([span for number in ending for span in renamed(number, spans[half:])]
                       + [span for number in starting for span in renamed(number, spans[:half])])
            line = {"resourceSpans": [{"resource": resource.get("resource", {}),
                                       "scopeSpans": [{"scope": {"name": "bench"}, "spans": written}]}]}
            handle.write(json.dumps(line, separators=(",", ":")) + "\n")


def timed_export(sources: list[Path], out: Path, opts: argparse.Namespace, size: int, what: str) -> float:
    """Export ``sources`` once as the command does; print the figures and return the records/s of CPU."""
    from toolscore_export import export_runs

    reset_peak()
    before = peak_rss_kib()
    cpu, wall, kids = time.process_time(), time.perf_counter(), os.times()
    result = export_runs(sources, out, fmt=opts.format, workers=opts.workers, per_trace=bool(opts.otlp_traces))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    ended = os.times()
    kids_cpu = ended.children_user + ended.children_system - kids.children_user - kids.children_system
    kids_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux: the largest worker
    growth = peak_rss_kib() - before
    print(f"{result.records:,} records ({opts.format}) from {size / 2**20:.1f} MiB of {what} "
          f"-> {out.stat().st_size / 2**20:.1f} MiB")
    total = cpu + kids_cpu
    print(f"  {result.records / wall:,.0f} records/s wall ({wall:.1f} s), {result.records / total:,.0f} records/s "
          f"of CPU ({total:.1f} s: {cpu:.1f} s here, {kids_cpu:.1f} s in workers), load {os.getloadavg()[0]:.1f}")
    print(f"  peak RSS growth {growth / 1024:.1f} MiB" + (f"; largest worker's peak RSS {kids_peak / 1024:.1f} MiB"
                                                         if kids_cpu else ""))
    return float(result.records / total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--format", default="aef", choices=["aef", "otel"])
    parser.add_argument("--traces", type=int, default=0, help="export this many OTLP trace files instead of rows")
    parser.add_argument("--otlp-traces", type=int, default=0,
                        help="export one JSON Lines OTLP file of this many traces, one record per trace")
    parser.add_argument("--batch", type=int, default=1,
                        help="--otlp-traces: traces a line (default 1: each trace's spans over two lines, two traces a "
                             "line); a collector's batches hold hundreds of spans")
    parser.add_argument("--same-span-ids", action="store_true",
                        help="--otlp-traces: every trace keeps the fixture's span ids (the input of earlier figures)")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (0: automatic, 1: none)")
    parser.add_argument("--sha256", action="store_true", help="print the output's sha256 (after the timing)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="export the same input this many times and print each; then the best CPU figure "
                             "(on a shared machine the least disturbed round is the closest to the code's cost)")
    opts = parser.parse_args()

    from toolscore_export import export_runs

    try:  # as `toolscore export` pads its own heap (its workers pad theirs in any case)
        from toolscore_export.heap_pad import pad_the_heap
    except ImportError:  # a tree from before heap_pad (an A/B base)
        pass
    else:
        pad_the_heap()

    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        out = Path(tmp) / "records.jsonl"
        if opts.otlp_traces:
            trace = (Path(__file__).resolve().parents[1] / "tests" / "adapters" / "fixtures" / "otel"
                     / "mcp_spans.json").read_bytes()
            sources, warm_sources = [Path(tmp) / "traces.jsonl"], [Path(tmp) / "warm.jsonl"]
            otlp_traces_file(sources[0], trace, opts.otlp_traces, same_span_ids=opts.same_span_ids,
                             batch=opts.batch)
            otlp_traces_file(warm_sources[0], trace, 20)
            size, what = sources[0].stat().st_size, f"one OTLP file of {opts.otlp_traces:,} traces"
        elif opts.traces:
            trace = (Path(__file__).resolve().parents[1] / "tests" / "adapters" / "fixtures" / "otel"
                     / "mcp_spans.json").read_bytes()
            sources = []
            for i in range(opts.traces + 1):
                sources.append(Path(tmp) / f"trace-{i}.json")
                sources[-1].write_bytes(trace)
            warm_sources, sources = sources[:1], sources[1:]
            size, what = len(trace) * opts.traces, f"{opts.traces:,} OTLP trace files"
        else:
            source = Path(tmp) / "runs.jsonl"
            runs_file(source, opts.rows, opts.calls)
            warm = Path(tmp) / "warm.jsonl"
            runs_file(warm, 200, opts.calls)
            sources, warm_sources = [source], [warm]
            size, what = source.stat().st_size, f"rows ({opts.calls} calls each)"
        export_runs(warm_sources, Path(tmp) / "warm.out.jsonl", fmt=opts.format, per_trace=bool(opts.otlp_traces))  # imports, compiled schemas
        best = 0.0
        for round_ in range(max(1, opts.rounds)):
            if opts.rounds > 1:
                print(f"round {round_ + 1} of {opts.rounds}:")
            best = max(best, timed_export(sources, out, opts, size, what))
        if opts.rounds > 1:
            print(f"best of {opts.rounds} rounds: {best:,.0f} records/s of CPU")
        if opts.sha256:  # after the timing: the output's bytes, to show a change kept them the same
            from toolscore_export.canonical import file_sha256

            print(f"  output sha256 {file_sha256(out)}")


if __name__ == "__main__":
    main()
