"""The toolscore_snapshot fixture in real pytest runs: record, approve, replay, drift, update."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

NAME = "test_snap.py::test_books"


def _output(result: pytest.RunResult) -> str:
    return "\n".join(result.outlines + result.errlines)


def test_first_run_records_a_pending_snapshot_warns_and_passes(books, snapshot_files):
    result = books.runpytest()
    result.assert_outcomes(passed=1, warnings=1)
    text = _output(result)
    assert "toolscore: 1 snapshot created (pending approval)" in result.outlines
    assert "SnapshotWarning" in text and "created (pending approval)" in text
    (name, data), = snapshot_files().items()
    assert name.startswith("test_snap.py__test_books-") and name.endswith(".json")
    assert data["approved"] is False and data["name"] == NAME and data["source"] == "pytest"
    assert data["calls"] == [{"tool": "search_flights", "args": {"destination": "NYC", "stamp": "1"}},
                             {"tool": "book_flight", "args": {"flight_id": "FL-1"}}]


def test_the_file_is_plain_sorted_json_and_byte_identical_when_written_twice(books, store):
    books.runpytest().assert_outcomes(passed=1, warnings=1)
    path = store.path_for(NAME)
    first = path.read_bytes()
    text = first.decode("utf-8")
    assert text.endswith("}\n") and text == json.dumps(json.loads(text), sort_keys=True, indent=2,
                                                       ensure_ascii=False) + "\n"
    assert "created_at" not in text and "updated_at" not in text
    result = books.runpytest()  # pending: re-recorded, same calls
    result.assert_outcomes(passed=1, warnings=1)
    assert "toolscore: 1 pending" in result.outlines
    assert path.read_bytes() == first
    path.unlink()
    books.runpytest().assert_outcomes(passed=1, warnings=1)  # recorded afresh
    assert path.read_bytes() == first


def test_pending_snapshot_is_re_recorded_when_the_calls_change(books, store, monkeypatch):
    books.runpytest()
    monkeypatch.setenv("AGENT_VARIANT", "wrong_tool")
    books.runpytest().assert_outcomes(passed=1, warnings=1)
    snapshot = store.load(NAME)
    assert snapshot.approved is False
    assert [c["tool"] for c in snapshot.calls] == ["search_flights", "cancel_booking"]


def test_approved_snapshot_replays_and_passes(books, store):
    books.runpytest()
    store.approve(NAME)
    before = store.path_for(NAME).read_bytes()
    result = books.runpytest()
    result.assert_outcomes(passed=1)
    assert "toolscore: 1 passed" in result.outlines
    assert store.path_for(NAME).read_bytes() == before  # a replay never writes


@pytest.mark.parametrize(("variant", "shown"), [
    ("wrong_tool", ["cancel_booking", "book_flight"]),
    ("wrong_arg", ["destination", "LAX", "NYC"]),
    ("wrong_order", ["tool order: expected search_flights, book_flight",
                     "actual   book_flight, search_flights"]),
])
def test_drift_fails_with_the_expected_vs_actual_table(books, store, monkeypatch, variant, shown):
    books.runpytest()
    store.approve(NAME)
    before = store.path_for(NAME).read_bytes()
    monkeypatch.setenv("AGENT_VARIANT", variant)
    result = books.runpytest()
    result.assert_outcomes(failed=1)
    text = _output(result)
    assert f"snapshot {NAME!r} drifted from its approved baseline" in text
    assert "Expected vs Actual Tool Calls" in text and "search_flights" in text
    for needle in shown:
        assert needle in text
    assert "During handling" not in text  # one clean failure, not a chained traceback
    assert "toolscore: 1 failed" in result.outlines
    assert store.path_for(NAME).read_bytes() == before


def test_update_re_records_and_re_approves(books, store, monkeypatch):
    books.runpytest()
    store.approve(NAME)
    monkeypatch.setenv("AGENT_VARIANT", "wrong_tool")
    result = books.runpytest("--toolscore-update")
    result.assert_outcomes(passed=1, warnings=1)
    assert "toolscore: 1 updated" in result.outlines
    snapshot = store.load(NAME)
    assert snapshot.approved is True
    assert [c["tool"] for c in snapshot.calls] == ["search_flights", "cancel_booking"]
    books.runpytest().assert_outcomes(passed=1)  # the new baseline replays
    monkeypatch.setenv("AGENT_VARIANT", "ok")
    books.runpytest().assert_outcomes(failed=1)  # and the old behaviour is now drift


def test_update_via_environment_variable_as_in_1_10_0(books, store, monkeypatch):
    books.runpytest()
    monkeypatch.setenv("TOOLSCORE_RECORD_UPDATE", "1")
    books.runpytest().assert_outcomes(passed=1, warnings=1)
    assert store.load(NAME).approved is True


def test_parametrized_ids_make_distinct_files(project, store):
    project.makepyfile(test_cases='''
import pytest
from agent import call_list

@pytest.mark.parametrize("city", ["NYC", "LAX/../x"])
def test_city(toolscore_snapshot, city):
    toolscore_snapshot([{"tool": "search_flights", "args": {"destination": city}}])
''')
    result = project.runpytest()
    result.assert_outcomes(passed=2, warnings=2)
    assert "toolscore: 2 snapshots created (pending approval)" in result.outlines
    names = [s.name for s in store.list()]
    assert names == ["test_cases.py::test_city[LAX/../x]", "test_cases.py::test_city[NYC]"]
    files = sorted(p.name for p in store.root.iterdir())
    assert len(files) == 2 and all(Path(store.root, f).parent == store.root for f in files)


def test_a_real_openai_sdk_object_is_read_through_the_adapters(project, store):
    pytest.importorskip("openai")
    project.makepyfile(test_sdk='''
from openai.types.chat import ChatCompletion

def respond(city):
    return ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "get_weather", "arguments": '{"city": "%s"}' % city}}]}}]})

def test_weather(toolscore_snapshot):
    import os
    toolscore_snapshot(respond(os.environ.get("CITY", "NYC")))
''')
    project.runpytest().assert_outcomes(passed=1, warnings=1)
    assert store.load("test_sdk.py::test_weather").calls == ({"tool": "get_weather", "args": {"city": "NYC"}},)
    store.approve("test_sdk.py::test_weather")
    project.runpytest().assert_outcomes(passed=1)
    import os
    os.environ["CITY"] = "Paris"
    try:
        result = project.runpytest()
    finally:
        del os.environ["CITY"]
    result.assert_outcomes(failed=1)
    assert "Paris" in _output(result)


def test_a_trace_file_path_is_accepted(project, store):
    trace = Path(project.path) / "trace.json"
    trace.write_text(json.dumps([{"tool": "read_file", "args": {"path": "a.txt"}}]), encoding="utf-8")
    project.makepyfile(test_file='''
def test_trace(toolscore_snapshot):
    toolscore_snapshot("trace.json")
''')
    project.runpytest().assert_outcomes(passed=1, warnings=1)
    assert store.load("test_file.py::test_trace").calls == ({"tool": "read_file", "args": {"path": "a.txt"}},)


def test_matching_options_ignore_args_matchers_and_order_mode(project, store, monkeypatch):
    project.makepyfile(test_opts='''
from toolscore import ANY
from agent import call_list

def test_ignored(toolscore_snapshot):
    toolscore_snapshot(call_list(), ignore_args=["stamp"])

def test_matcher(toolscore_snapshot):
    toolscore_snapshot(call_list(), args={"stamp": ANY})

def test_tools_only(toolscore_snapshot):
    toolscore_snapshot(call_list(), ignore_args=True, mode="unordered")

def test_exact(toolscore_snapshot):
    toolscore_snapshot(call_list())
''')
    project.runpytest().assert_outcomes(passed=4, warnings=4)
    assert store.load("test_opts.py::test_ignored").options == {"ignore_args": ["stamp"]}
    assert store.approve_all() and not store.pending()
    monkeypatch.setenv("AGENT_VARIANT", "stamp")  # only the volatile argument changed
    result = project.runpytest()
    result.assert_outcomes(passed=3, failed=1)
    assert "test_opts.py::test_exact" in "\n".join(result.outlines)
    monkeypatch.setenv("AGENT_VARIANT", "wrong_order")  # same tools, other order (and no stamp change)
    result = project.runpytest("-k", "tools_only")
    result.assert_outcomes(passed=1, deselected=3)


def test_min_score_below_one_tolerates_small_drift(project, store, monkeypatch):
    project.makepyfile(test_loose='''
from agent import call_list

def test_loose(toolscore_snapshot):
    toolscore_snapshot(call_list(), min_score=0.8)
''')
    project.runpytest()
    store.approve_all()
    monkeypatch.setenv("AGENT_VARIANT", "wrong_arg")
    project.runpytest().assert_outcomes(passed=1)


def test_a_misspelt_mode_fails_on_the_first_run(project):
    project.makepyfile(test_mode='''
from agent import call_list

def test_mode(toolscore_snapshot):
    toolscore_snapshot(call_list(), mode="strcit")
''')
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    assert "unknown order mode 'strcit'" in _output(result) and "strict" in _output(result)


def test_two_calls_in_one_test_get_two_snapshots(project, store):
    project.makepyfile(test_two='''
def test_two(toolscore_snapshot):
    toolscore_snapshot([{"tool": "a", "args": {}}])
    toolscore_snapshot([{"tool": "b", "args": {}}])
''')
    project.runpytest().assert_outcomes(passed=1, warnings=2)
    assert [s.name for s in store.list()] == ["test_two.py::test_two", "test_two.py::test_two-2"]


def test_snapshot_dir_option_and_ini(project):
    project.makepyfile(test_dir='''
def test_dir(toolscore_snapshot):
    toolscore_snapshot([{"tool": "a", "args": {}}])
''')
    project.runpytest("--toolscore-snapshot-dir", "snaps")
    assert len(list((Path(project.path) / "snaps").glob("*.json"))) == 1
    project.makeini("[pytest]\ntoolscore_snapshot_dir = other/place\n")
    project.runpytest()
    assert len(list((Path(project.path) / "other" / "place").glob("*.json"))) == 1
    assert not (Path(project.path) / ".toolscore").exists()


def test_a_run_without_the_fixture_prints_and_writes_nothing(project):
    project.makepyfile(test_plain='''
def test_plain():
    assert 1 + 1 == 2
''')
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert not any(line.startswith("toolscore") for line in result.outlines)
    assert not (Path(project.path) / ".toolscore").exists()


def test_a_malformed_snapshot_file_is_a_clear_error(books, store):
    books.runpytest()
    store.path_for(NAME).write_text('{"name": "test_snap.py::test_books", "calls": [{"args": {}}]}',
                                    encoding="utf-8")
    result = books.runpytest()
    result.assert_outcomes(failed=1)
    text = _output(result)
    assert "$.calls[0].tool" in text and str(store.path_for(NAME)) in text


def test_the_judge_hook_result_is_passed_to_evaluate(books, store):
    books.makeconftest('''
import pytest

ASKED = []

class Judge:
    name = "always-wrong"

def pytest_toolscore_judge(config):
    ASKED.append(config)
    return "no-such-judge"   # a name evaluate() must resolve: proves the hook's answer reaches it
''')
    books.runpytest()
    store.approve(NAME)
    result = books.runpytest()
    result.assert_outcomes(failed=1)
    assert "no-such-judge" in _output(result)


def test_a_snapshot_written_by_tool_scorer_1_10_0_replays(project, store, monkeypatch):
    legacy = {  # a baseline as tool-scorer 1.10.0 wrote it, under the name it gave the file
        "schema_version": 1, "name": "test_legacy.py::test_books[nyc]",
        "created_at": "2026-01-03T08:31:18.699268+00:00", "updated_at": "2026-01-03T08:31:18.699298+00:00",
        "toolscore_version": "1.10.0", "approved": True, "source": "pytest",
        "calls": [{"tool": "search_flights", "args": {"destination": "NYC"}}],
    }
    store.root.mkdir(parents=True)
    path = store.root / "test_legacy.py__test_books__nyc__-aa995ce1.json"
    path.write_text(json.dumps(legacy, indent=2) + "\n", encoding="utf-8")
    before = path.read_bytes()
    project.makepyfile(test_legacy='''
import os
import toolscore

@toolscore.cases([{"input": "nyc"}])
def test_books(toolscore_snapshot, input):
    toolscore_snapshot([{"tool": "search_flights", "args": {"destination": os.environ.get("DEST", "NYC")}}])
''')
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert "toolscore: 1 passed" in result.outlines
    assert path.read_bytes() == before and len(list(store.root.iterdir())) == 1
    monkeypatch.setenv("DEST", "LAX")
    project.runpytest().assert_outcomes(failed=1)
