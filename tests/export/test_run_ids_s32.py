"""The run ids an export has given (``run_ids.RunIds``), and a planned OTLP source's bounds as its run ids.

A source past ``BUILT_MAX_BYTES`` keeps its trace ids as numbers and marks each trace given in its
bounds as its record is written, instead of a set of texts beside them (issue 11: on 1 GB of OTLP
traces the two took the driver past 100 MB). These check that the marks say exactly which runs were
given: to a later source of the same name, and to the serial path going on after a failed job.
"""

from __future__ import annotations

import random
import re

import pytest

from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool
from toolscore_export.run_ids import GIVEN, RunIds, compact_key, spelled_key

from .test_per_trace_pool import (  # noqa: F401
    SPANS,
    collector_file,
    exported,
    line,
    outcomes,
    same_as_serial,
    same_named_sources,
    traced,
)


def test_a_trace_id_of_32_lowercase_hex_digits_is_kept_as_its_number_and_spelled_back():
    rng = random.Random(32)
    for _ in range(2000):
        text = f"{rng.getrandbits(rng.choice([8, 64, 128])):032x}"
        key = compact_key(text)
        assert type(key) is int and spelled_key(key) == text
    assert compact_key("0" * 32) == 0 and spelled_key(0) == "0" * 32


@pytest.mark.parametrize("text", ["", "ab", "0" * 31, "0" * 33, "A" * 32, "g" * 32, " " + "0" * 31, "0" * 31 + "\n",
                                  "٣" * 32, "0x" + "0" * 30, "+" + "1" * 31, "1_" * 16])
def test_any_other_trace_id_is_kept_as_its_text(text):
    assert compact_key(text) == text and type(compact_key(text)) is str and spelled_key(text) == text


def test_two_trace_ids_are_one_key_exactly_when_they_are_one_text():
    rng = random.Random(7)
    texts = {f"{rng.getrandbits(128):032x}" for _ in range(500)}
    texts |= {text.upper() for text in list(texts)[:50]} | {text[:31] for text in list(texts)[:50]}
    texts |= {str(compact_key(text)) for text in list(texts)[:50]}  # a decimal text that is some key's number
    keys = [compact_key(text) for text in texts]
    assert len(set(keys)) == len(texts)


def test_run_ids_hold_texts_and_the_given_traces_of_a_source():
    run_ids = RunIds()
    run_ids.add("runs.jsonl:cell-1")
    run_ids.update(["trace.json", "trace.json@abcdef012345"])
    bounds: dict = {compact_key(f"{n:032x}"): n << 32 | n for n in range(0xA8, 0xAC)}
    run_ids.add_traces("otlp#1.jsonl#", bounds, compact=True)
    bounds[compact_key(f"{0xAA:032x}")] = GIVEN
    texts = {"otlp#2.jsonl#": {"abc": 5}}
    run_ids.add_traces("otlp#2.jsonl#", texts["otlp#2.jsonl#"], compact=False)
    assert "runs.jsonl:cell-1" in run_ids and "trace.json@abcdef012345" in run_ids
    assert f"otlp#1.jsonl#{0xAA:032x}" in run_ids  # given
    assert f"otlp#1.jsonl#{0xA9:032x}" not in run_ids  # seen by the first pass, not given yet
    assert f"otlp#1.jsonl#{0xAA:032X}" not in run_ids and "otlp#1.jsonl#170" not in run_ids  # other texts
    assert f"other.jsonl#{0xAA:032x}" not in run_ids and 5 not in run_ids
    assert "otlp#2.jsonl#abc" not in run_ids
    texts["otlp#2.jsonl#"]["abc"] = GIVEN  # marked later: counted from then on
    assert "otlp#2.jsonl#abc" in run_ids
    assert run_ids.isdisjoint(["x", f"otlp#1.jsonl#{0xAB:032x}"])
    assert not run_ids.isdisjoint(["x", "otlp#2.jsonl#abc"])


@pytest.fixture
def planned(monkeypatch, outcomes):  # noqa: F811 (the fixture imported above)
    """Every OTLP source takes the planned second pass (its first pass builds no record); what each pooled
    source came to (``outcomes``)."""
    monkeypatch.setattr(pool, "BUILT_MAX_BYTES", 0)
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setattr(pool, "JOB_TRACES", 3)
    monkeypatch.setattr(par, "can_fork", lambda: True)
    return outcomes


def test_a_planned_source_keeps_its_trace_ids_as_numbers_and_marks_each_given(tmp_path, planned, monkeypatch):
    seen: list[dict] = []
    original = pool._planned_records

    def kept(path, sha256, workers, run_ids, lines, cuts):
        result = yield from original(path, sha256, workers, run_ids, lines, cuts)
        seen.append(dict(lines.bounds))
        return result

    monkeypatch.setattr(pool, "_planned_records", kept)
    same_as_serial(tmp_path, [collector_file(tmp_path / "otlp.jsonl", 20)])
    assert planned == [None]
    assert seen == [{n: GIVEN for n in range(1, 21)}]  # trace ids 1 to 20, each marked given


def test_a_second_source_of_the_same_name_is_told_the_first_ones_runs(tmp_path, planned):
    """Its records carry its hash, as serially: the first source's run ids are its marked bounds."""
    data = same_as_serial(tmp_path, same_named_sources(tmp_path))
    assert planned == [None, 3]  # its first job gave traces 6-8; the next one's names were given already
    run_ids = re.findall(rb'"run_id":"([^"]*)"', data)
    assert len(run_ids) == len(set(run_ids)) == 14
    assert sorted(run_id.partition(b"@")[0] for run_id in run_ids if b"@" in run_id) == sorted(
        b"otlp.jsonl#%032x" % n for n in range(1, 5))  # the second's traces 0-3 (ids 1-4) carry its hash


def test_the_serial_path_going_on_after_a_failed_job_counts_only_the_runs_given(tmp_path, planned, monkeypatch):
    """A job that fails (a worker's error) hands the source to the serial path, which goes on from the records
    given: the traces the first pass saw but no job gave are no runs given yet, so nothing is a repeat."""
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    serial = exported(tmp_path, [source], 1)
    monkeypatch.setattr(pool, "job_records", failing_past_line_8)
    assert exported(tmp_path, [source], 2) == serial
    assert planned == [9]  # three jobs (traces 1-9) started by line 8 and gave their records; the serial path the rest


_JOB_RECORDS = pool.job_records


def failing_past_line_8(job):
    """A worker's job that fails when its traces end past line 8 (told by its lines: jobs run in several
    processes, so no count would do)."""
    return None if job.start > 8 else _JOB_RECORDS(job)
