"""Dump ``Evaluation.to_dict()`` of the benchmark inputs and the test fixtures, or compare dumps.

Why: a speed-up of the scoring must not change a single byte of what it reports. Run it
once before a change (``--dump before.json``), once after (``--dump after.json``), then
``--compare before.json after.json``; any difference is printed with its key path and the
exit code is 1.

Inputs: bench_evaluate.py's ordinary case at 1k and 10k calls and its one-tool worst case
at 2k and 10k calls; every trace fixture under tests/ scored against the gold files under
tests/core/fixtures and against its own calls reversed, less the last one (so pairs, misses
and order problems all appear); and the console and JSON reports of ``toolscore eval`` on
the ordinary 10k case.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_evaluate import make_case  # noqa: E402


def _trace_files() -> list[Path]:
    found = sorted((ROOT / "tests" / "adapters" / "fixtures").rglob("*.json*"))
    found += sorted(p for p in (ROOT / "tests" / "core" / "fixtures").rglob("*.json")
                    if p.name != "gold.json" and not p.parent.name.startswith("baseline"))  # baselines are not traces
    return found


def _record(name: str, build: Any) -> tuple[str, Any]:
    try:
        return name, build()
    except Exception as exc:  # an input that does not score is recorded as its error, which must not change
        return name, {"error": type(exc).__name__, "message": str(exc)}


def dump() -> dict[str, Any]:
    from toolscore_core.kernel.traces import load_trace_file
    from toolscore_core.scoring.evaluation import evaluate, evaluate_trace

    out: dict[str, Any] = {}
    for n, one_tool in ((1000, False), (10_000, False), (2000, True), (10_000, True)):
        expected, actual = make_case(n, one_tool=one_tool)
        key, value = _record(f"bench n={n} one_tool={one_tool}", lambda e=expected, a=actual: evaluate(e, a).to_dict())
        out[key] = value
    golds = sorted(p for p in (ROOT / "tests" / "core" / "fixtures").rglob("gold.json")
                   if not p.parent.name.startswith("baseline"))
    for trace in _trace_files():
        rel = trace.relative_to(ROOT)
        for gold in golds:
            key, value = _record(f"{rel} vs {gold.relative_to(ROOT)}",
                                 lambda g=gold, t=trace: evaluate_trace(g, t).to_dict())
            out[key] = value

        def reversed_self(t: Path = trace) -> Any:
            calls = load_trace_file(t).calls
            gold = [{"tool": c.tool, "args": c.args} for c in reversed(calls) if isinstance(c.args, dict)][:-1]
            return evaluate(gold or [{"tool": "nothing"}], t).to_dict()

        key, value = _record(f"{rel} vs itself reversed", reversed_self)
        out[key] = value
    expected, actual = make_case(10_000)
    toolscore = str(Path(sys.executable).parent / "toolscore")
    with tempfile.TemporaryDirectory() as tmp:
        gold_file, trace_file = Path(tmp) / "gold.json", Path(tmp) / "trace.json"
        gold_file.write_text(json.dumps(expected))
        trace_file.write_text(json.dumps(actual))
        for report in ("console", "json"):
            done = subprocess.run([toolscore, "eval", str(gold_file), str(trace_file), "--report", report],
                                  capture_output=True, text=True, env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"})
            out[f"cli eval 10k --report {report}"] = {"rc": done.returncode,
                                                      "stdout": done.stdout.replace(tmp, "TMP"),
                                                      "stderr": done.stderr.replace(tmp, "TMP")}
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    problems: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if len(problems) > 40:
            return
        if type(a) is not type(b):
            problems.append(f"{path}: type {type(a).__name__} -> {type(b).__name__}")
        elif isinstance(a, dict):
            if list(a) != list(b):
                problems.append(f"{path}: keys {sorted(set(a) ^ set(b)) or 'order differs'}")
            for k in a:
                if k in b:
                    walk(a[k], b[k], f"{path}.{k}")
        elif isinstance(a, list):
            if len(a) != len(b):
                problems.append(f"{path}: length {len(a)} -> {len(b)}")
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                walk(x, y, f"{path}[{i}]")
        elif a != b:
            problems.append(f"{path}: {str(a)[:200]!r} -> {str(b)[:200]!r}")

    walk(before, after, "$")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dump", metavar="FILE")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    opts = parser.parse_args()
    if opts.dump:
        data = dump()
        Path(opts.dump).write_text(json.dumps(data, sort_keys=False, ensure_ascii=False))
        print(f"{len(data)} evaluations written to {opts.dump}")
    if opts.compare:
        before, after = (json.loads(Path(p).read_text()) for p in opts.compare)
        problems = compare(before, after)
        for line in problems:
            print(line)
        same = Path(opts.compare[0]).read_bytes() == Path(opts.compare[1]).read_bytes()
        print(f"{len(before)} evaluations compared: {'byte-identical' if same else f'{len(problems)} difference(s)'}")
        sys.exit(0 if same and not problems else 1)


if __name__ == "__main__":
    main()
