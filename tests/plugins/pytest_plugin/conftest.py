"""Shared set-up for the snapshot-plugin tests: a small pytest project with a deterministic agent.

Each test drives real pytest runs (pytester) of that project; the agent's behaviour is
switched with the AGENT_VARIANT environment variable so one project can record a baseline
and then drift from it in the ways the issue names (wrong tool, wrong argument, wrong order).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

AGENT = '''
import os

VARIANTS = {
    "ok": [("search_flights", {"destination": "NYC", "stamp": "1"}), ("book_flight", {"flight_id": "FL-1"})],
    "stamp": [("search_flights", {"destination": "NYC", "stamp": "2"}), ("book_flight", {"flight_id": "FL-1"})],
    "wrong_tool": [("search_flights", {"destination": "NYC", "stamp": "1"}), ("cancel_booking", {"flight_id": "FL-1"})],
    "wrong_arg": [("search_flights", {"destination": "LAX", "stamp": "1"}), ("book_flight", {"flight_id": "FL-1"})],
    "wrong_order": [("book_flight", {"flight_id": "FL-1"}), ("search_flights", {"destination": "NYC", "stamp": "1"})],
}


def run_agent(prompt="book a flight to NYC"):
    """A deterministic agent: OpenAI chat-completion-shaped output (a plain dict)."""
    calls = VARIANTS[os.environ.get("AGENT_VARIANT", "ok")]
    import json
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(calls)]}}]}


def call_list():
    return [{"tool": name, "args": args} for name, args in VARIANTS[os.environ.get("AGENT_VARIANT", "ok")]]
'''

TEST_MODULE = '''
from agent import run_agent


def test_books(toolscore_snapshot):
    toolscore_snapshot(run_agent())
'''


@pytest.fixture(scope="session")
def _scoring_loaded() -> None:
    """Import scoring, the adapters and the plugin's modules in this process first.

    pytester's in-process runs drop every module first imported during the run; scoring
    imported there would be imported again by the next run, and its classes would no longer
    be the ones the plugin registry already holds. Loaded here, they are shared (and each
    run is fast).
    """
    import toolscore_pytest.replay  # noqa: F401

    import toolscore

    for mode in ("default", "strict", "in_order", "unordered", "subset", "superset"):
        toolscore.evaluate([{"tool": "a", "args": {"x": 1}}, {"tool": "b"}], [{"tool": "b"}, {"tool": "a"}],
                           mode=mode)
    toolscore.load_trace({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}}]})
    try:
        from openai.types.chat import ChatCompletion
    except ImportError:
        return
    toolscore.load_trace(ChatCompletion.model_validate({
        "id": "x", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]}))


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, _scoring_loaded: None) -> pytest.Pytester:
    """A pytest project (own ini, so it is its own rootdir) with the agent module, CI unset."""
    for name in ("CI", "TOOLSCORE_RECORD", "TOOLSCORE_RECORD_UPDATE", "AGENT_VARIANT"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(agent=AGENT)
    pytester.syspathinsert()
    return pytester


@pytest.fixture
def snapshot_files(project: pytest.Pytester) -> Callable[[], dict[str, Any]]:
    """name -> parsed JSON of every snapshot file in the project."""
    def read() -> dict[str, Any]:
        root = Path(project.path) / ".toolscore" / "snapshots"
        return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(root.glob("*.json"))}
    return read


@pytest.fixture
def store(project: pytest.Pytester) -> Any:
    from toolscore_pytest.store import SnapshotStore

    return SnapshotStore(Path(project.path) / ".toolscore" / "snapshots")


@pytest.fixture
def books(project: pytest.Pytester) -> pytest.Pytester:
    """The project with one snapshot test, ``test_snap.py::test_books``."""
    project.makepyfile(test_snap=TEST_MODULE)
    return project
