"""What the driver keeps of a planned OTLP source, made smaller (issue 11: 1 GB of OTLP traces took the
driver's peak past 100 MB): line facts in 4-byte items while they fit, trace ids as numbers, and the
ids a job carries spelled as texts only for that job."""

from __future__ import annotations

import random
from array import array

import pytest

from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool

from .test_per_trace_pool import outcomes  # noqa: F401 (fixture)
from .test_per_trace_pool_long_lines_s30 import batched_file


def test_line_facts_take_4_bytes_an_item_until_a_value_needs_8():
    rng = random.Random(4)
    for _ in range(300):
        values = [rng.choice([0, 1, 2**32 - 1, 2**32, 2**40, rng.getrandbits(rng.choice([8, 31, 33, 63]))])
                  for _ in range(rng.randint(0, 6))]
        column, added = array("I"), []
        for start in range(0, len(values), 2):
            column = pool._extended(column, values[start:start + 2])
            added += values[start:start + 2]
            assert column.tolist() == added
            assert column.itemsize == (4 if max(added, default=0) < 2**32 else 8)


def test_the_first_pass_keeps_offsets_past_4_gib_exactly():
    """A source over 4 GiB: its offsets no longer fit 4 bytes, and every fact is kept as it was."""
    lines = pool._Lines(compact=True)
    first = (array("Q", [0, 1]), array("Q", [0, 100]), array("Q", [100, 200]), array("Q", [2, 3]),
             {f"{1:032x}": 0 << 32 | 1})
    far = (array("Q", [0]), array("Q", [2**32 + 5]), array("Q", [2**32 + 90]), array("Q", [4]),
           {f"{1:032x}": 0, "odd-id": 0})
    lines.extend(first, 1)
    assert lines.offsets.itemsize == lines.numbers.itemsize == 4
    lines.extend(far, 3)
    assert lines.numbers.tolist() == [1, 2, 3] and lines.offsets.tolist() == [0, 100, 2**32 + 5]
    assert lines.ends.tolist() == [100, 200, 2**32 + 90] and lines.orders.tolist() == [0, 2, 5]
    assert lines.offsets.itemsize == lines.ends.itemsize == 8 and lines.numbers.itemsize == 4
    assert lines.bounds == {1: 0 << 32 | 2, "odd-id": 2 << 32 | 2} and lines.spans == 9


@pytest.fixture
def planned(monkeypatch, outcomes):  # noqa: F811 (the fixture imported above)
    monkeypatch.setattr(pool, "BUILT_MAX_BYTES", 0)  # the planned second pass
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(pool, "stretch_layout", lambda path: (60_000, 30_000))
    seen: dict[str, list] = {"given": outcomes, "carried": [], "sent": []}
    plan, jobs = pool.plan, pool._jobs

    def recorded_plan(lines, size):
        made = plan(lines, size)
        seen["carried"] += [key for carried in (made.carried if made else []) for key in carried]
        return made

    def recorded_jobs(*args):
        for job in jobs(*args):
            seen["sent"] += job.carried
            yield job

    monkeypatch.setattr(pool, "plan", recorded_plan)
    monkeypatch.setattr(pool, "_jobs", recorded_jobs)
    return seen


def test_the_traces_a_job_carries_are_numbers_in_the_plan_and_texts_in_the_job(tmp_path, monkeypatch, planned):
    """Lines of a collector's long batches: nearly every trace goes on past its job's end. The workers
    still give every record, the serial path is never needed, and the export is the serial one."""
    from .test_per_trace_pool_built_i11 import _exported

    monkeypatch.setattr(pool, "JOB_TRACES", 8)
    source = batched_file(tmp_path / "collector.jsonl", 240, 20)
    serial = _exported(tmp_path, source, 1)
    planned["given"].clear()
    assert _exported(tmp_path, source, 2) == serial
    assert planned["given"] == [None]  # every record from the workers
    assert len(planned["carried"]) >= 100 and all(type(key) is int for key in planned["carried"])
    assert planned["sent"] == [f"{key:032x}" for key in planned["carried"]]


def test_the_trace_readers_are_imported_before_the_workers_fork():
    """So the workers share them (each imported its own before: 2.5 MiB of a worker's memory); without the
    otel adapter nothing is imported, and reading the source raises its usual error later (a fresh
    interpreter for each, so that the modules are not imported already)."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from toolscore_export import per_trace, sources\n"
        "if sys.argv[1] == 'missing':\n"
        "    from toolscore_core import InputError\n"
        "    def missing():\n"
        "        raise InputError('--per-trace needs the otel adapter, which is not installed')\n"
        "    per_trace.otel_modules = missing\n"
        "before = 'toolscore_export.plain_trace' in sys.modules\n"
        "sources._import_trace_readers()\n"
        "print(before, 'toolscore_export.plain_trace' in sys.modules,"
        " 'toolscore_adapters.protocols.otel_calls' in sys.modules)\n"
    )

    def imported(mode: str) -> str:
        return subprocess.run([sys.executable, "-c", probe, mode], capture_output=True, text=True, check=True,
                              timeout=120).stdout.strip()

    assert imported("installed") == "False True True"
    assert imported("missing") == "False False False"
