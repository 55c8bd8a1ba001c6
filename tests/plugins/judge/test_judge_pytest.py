"""``pytest --llm-judge``: the judge's options on snapshot replays (toolscore-pytest's hook)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

AGENT_TEST = '''
def test_books(toolscore_snapshot):
    toolscore_snapshot([{"tool": "search_flights", "args": {"destination": "NYC"}}])
'''
HOOK_TEST = '''
def test_hook(request):
    judge = request.config.hook.pytest_toolscore_judge(config=request.config)
    print("JUDGE", None if judge is None else (judge.model, judge.base_url, judge.cache))
'''
NAME = "test_snap.py::test_books"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, cache_file: Path) -> pytest.Pytester:
    import toolscore_pytest.replay  # noqa: F401

    import toolscore
    import toolscore_judge.judge  # noqa: F401  (loaded once here, not per in-process run)

    toolscore.evaluate([{"tool": "a"}], [{"tool": "a"}])
    monkeypatch.delenv("CI", raising=False)
    pytester.makeini("[pytest]\n")
    return pytester


def test_hook_returns_the_judge_the_options_ask_for(project):
    project.makepyfile(test_hook=HOOK_TEST)
    result = project.runpytest("-s", "--llm-judge", "--llm-model", "claude-haiku-4-5", "--llm-judge-cache", "read")
    result.assert_outcomes(passed=1)
    assert "JUDGE ('claude-haiku-4-5', None, 'read')" in result.stdout.str()
    plain = project.runpytest("-s")
    assert "JUDGE None" in plain.stdout.str()


def test_options_without_llm_judge_are_an_error(project):
    project.makepyfile(test_hook=HOOK_TEST)
    result = project.runpytest("--llm-base-url", "http://127.0.0.1:9/v1")
    assert "--llm-base-url given without --llm-judge" in "\n".join(result.outlines + result.errlines)
    assert result.ret != 0


def test_a_judged_replay_passes_where_the_exact_one_drifts(project, model_server, d):
    from toolscore_pytest.store import SnapshotStore

    server = model_server([d.text_answer(True)])
    project.makepyfile(test_snap=AGENT_TEST)
    project.runpytest()  # records the snapshot (pending)
    store = SnapshotStore(Path(project.path) / ".toolscore" / "snapshots")
    path = store.path_for(NAME)
    data = json.loads(path.read_text())
    data["calls"][0]["args"]["destination"] = "New York"  # the approved baseline says it in words
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    store.approve(NAME)
    project.runpytest().assert_outcomes(failed=1)  # exact replay: NYC is not New York
    judged = project.runpytest("--llm-judge", "--llm-model", "llama3.1", "--llm-base-url", server.base_url)
    judged.assert_outcomes(passed=1)
    assert len(server.requests) == 1 and "NYC" in json.dumps(server.requests[0].body)
    assert any(line.startswith("toolscore: judge llama3.1 (openai-chat): 1 call") for line in judged.outlines)
