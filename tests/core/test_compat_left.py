"""Issue 12: trace shapes tool-scorer 1.10.0 read through its custom format and ours
rejected: the ``{"tool_calls": [...]}`` wrapper and a single call dict as the whole trace,
by detection, with ``--format custom``, and through ``toolscore eval``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError, evaluate, load_trace

TOOLSCORE = str(Path(sys.executable).with_name("toolscore"))
GOLD = [{"tool": "get_weather", "args": {"city": "NYC"}}]
SHAPES = {
    "tool_calls wrapper": {"tool_calls": [{"tool": "get_weather", "args": {"city": "NYC"}}]},
    "tool_calls wrapper, 1.10 spellings": {"tool_calls": [{"name": "get_weather", "arguments": '{"city": "NYC"}'}],
                                           "final_answer": "sunny"},
    "single call": {"tool": "get_weather", "args": {"city": "NYC"}, "result": "sunny"},
    "single call, 1.10 spellings": {"name": "get_weather", "arguments": {"city": "NYC"}, "output": "sunny"},
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=list(SHAPES))
def test_shape_is_detected_as_custom_and_scores(shape: Any, installed_plugin_manager: Any) -> None:
    trace = load_trace(shape, pm=installed_plugin_manager)
    assert trace.source_format == "custom"
    assert [(c.tool, c.args) for c in trace.calls] == [("get_weather", {"city": "NYC"})]
    assert evaluate(GOLD, trace).selection_accuracy == 1.0
    assert load_trace(shape, format="custom", pm=installed_plugin_manager).calls == trace.calls


def test_wrapper_keeps_final_answer(installed_plugin_manager: Any) -> None:
    trace = load_trace(SHAPES["tool_calls wrapper, 1.10 spellings"], pm=installed_plugin_manager)
    assert trace.final_answer == "sunny"


def test_single_call_with_an_unknown_key_reads_only_when_named(installed_plugin_manager: Any) -> None:
    shape = {"tool": "get_weather", "args": {"city": "NYC"}, "span": "abc"}
    with pytest.raises(InputError):  # not claimed by detection: another format's object may look so
        load_trace(shape, pm=installed_plugin_manager)
    trace = load_trace(shape, format="custom", pm=installed_plugin_manager)
    assert trace.calls[0].metadata["span"] == "abc" and trace.metadata["unknown_keys"] == ["span"]


def test_bad_wrapper_names_its_key(installed_plugin_manager: Any) -> None:
    with pytest.raises(InputError, match=r"\$\.tool_calls"):
        load_trace({"tool_calls": "nope"}, format="custom", pm=installed_plugin_manager)


def test_openai_message_tool_calls_are_not_taken_for_custom(installed_plugin_manager: Any) -> None:
    message = {"tool_calls": [{"id": "c1", "type": "function",
                               "function": {"name": "get_weather", "arguments": '{"city": "NYC"}'}}]}
    from toolscore_core.builtin.adapters import CustomCallListAdapter

    assert CustomCallListAdapter().detect(message) == 0.0


@pytest.mark.parametrize("name", list(SHAPES))
def test_cli_eval_reads_the_shape(name: str, tmp_path: Path) -> None:
    (tmp_path / "gold.json").write_text(json.dumps(GOLD), encoding="utf-8")
    (tmp_path / "trace.json").write_text(json.dumps(SHAPES[name]), encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    done = subprocess.run([TOOLSCORE, "eval", "gold.json", "trace.json"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert re.search(r"Overall Score\s*│\s*100\.0%", done.stdout), done.stdout
