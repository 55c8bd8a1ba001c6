"""The judge cache: a rerun asks the model nothing and scores the same."""

from __future__ import annotations

import sqlite3

import pytest

from toolscore import JudgeConfig, evaluate


def test_second_run_makes_zero_requests_and_gives_the_same_score(model_server, cache_file, d):
    server = model_server([d.text_answer(True, False)])
    first_config = JudgeConfig(model="gpt-4o-mini")
    first = evaluate(d.GOLD, d.TRACE, judge=first_config)
    assert len(server.requests) == 1 and cache_file.is_file()
    second_config = JudgeConfig(model="gpt-4o-mini")  # a fresh judge: only the file is shared
    second = evaluate(d.GOLD, d.TRACE, judge=second_config)
    assert len(server.requests) == 1  # nothing more arrived
    assert second.score == pytest.approx(first.score)
    assert second.metrics["judge"]["answers"] == first.metrics["judge"]["answers"]
    assert second_config.usage()["calls"] == 0 and second_config.usage()["cached"] == 2
    assert "0 calls, 2 answer(s) from the cache" in (second_config.summary() or "")


def test_another_model_does_not_reuse_the_answers(model_server, cache_file, d):
    server = model_server([d.text_answer(True, True), d.text_answer(True, True)])
    evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gpt-4o-mini"))
    evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gpt-4o"))
    assert len(server.requests) == 2


def test_read_mode_reuses_but_never_writes_and_off_never_reads(model_server, tmp_path, d):
    path = tmp_path / "given.sqlite"
    server = model_server([d.text_answer(True, True), d.text_answer(True, True), d.text_answer(True, True)])
    evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(cache="read", cache_path=path))
    assert not path.exists() and len(server.requests) == 1
    evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(cache="write", cache_path=path))
    assert len(sqlite3.connect(path).execute("SELECT key FROM judgments").fetchall()) == 2
    evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(cache="read", cache_path=path))
    assert len(server.requests) == 2  # read: answered from the file
    evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(cache="off", cache_path=path))
    assert len(server.requests) == 3  # off: asked again


def test_cache_key_covers_model_prompt_version_and_question():
    from toolscore_judge.cache import cache_key

    base = cache_key("m", "v1", {"expected": "NYC"})
    assert base == cache_key("m", "v1", {"expected": "NYC"})
    assert len({base, cache_key("n", "v1", {"expected": "NYC"}), cache_key("m", "v2", {"expected": "NYC"}),
                cache_key("m", "v1", {"expected": "LA"})}) == 4


def test_default_cache_path_follows_xdg(monkeypatch, tmp_path):
    from toolscore_judge.cache import default_cache_path

    monkeypatch.delenv("TOOLSCORE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / "toolscore" / "judge.sqlite"
