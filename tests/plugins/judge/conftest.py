"""LLM judge tests: the real SDK clients over real HTTP to the scripted model server on 127.0.0.1.

Every vendor client is pointed at the local server through the SDKs' own base-URL variables
(``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``) with a dummy key, and the cache lives in the
test's temporary directory, so no test can reach a paid API or another test's answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_providers.fake_server import FakeModelServer

TEST_KEY = "judge-test-key-do-not-leak-5d1e"

#: The expected calls and a trace that differs from them only semantically: a synonym tool
#: name, and "NYC" for "New York". Judged as equivalent, the trace is perfect.
GOLD = [
    {"tool": "web_search", "args": {"query": "weather", "city": "Paris"}},
    {"tool": "get_weather", "args": {"city": "New York"}},
]
TRACE = [
    {"tool": "search_web", "args": {"query": "weather", "city": "Paris"}},
    {"tool": "get_weather", "args": {"city": "NYC"}},
]


def judgments(*verdicts: bool, reason: str = "same meaning") -> dict[str, Any]:
    """The structured answer the judge expects: one entry per question id, in order."""
    return {"answers": [{"id": n, "equivalent": v, "reason": reason if v else "different things",
                         "confidence": 0.9} for n, v in enumerate(verdicts)]}


def text_answer(*verdicts: bool, **usage: int) -> dict[str, Any]:
    """A script entry for the JSON-schema APIs (OpenAI Responses, chat): the answer as text."""
    entry: dict[str, Any] = {"text": json.dumps(judgments(*verdicts))}
    if usage:
        entry["usage"] = usage
    return entry


def tool_answer(*verdicts: bool) -> dict[str, Any]:
    """A script entry for Anthropic: the answer as the forced record_judgments tool call."""
    return {"calls": [{"tool": "record_judgments", "args": judgments(*verdicts)}]}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    gold, trace = tmp_path / "gold.json", tmp_path / "trace.json"
    gold.write_text(json.dumps(GOLD))
    trace.write_text(json.dumps(TRACE))
    return gold, trace


@pytest.fixture
def cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own cache, also as the default directory (no test writes the user's cache)."""
    monkeypatch.setenv("TOOLSCORE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "judge.sqlite"


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch, cache_file: Path) -> Iterator[Callable[..., FakeModelServer]]:
    """Start a scripted model server; the OpenAI and Anthropic SDKs are pointed at it."""
    started: list[FakeModelServer] = []

    def start(script: list[dict[str, Any]]) -> FakeModelServer:
        server = FakeModelServer(script).start()
        started.append(server)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
        monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
        return server

    yield start
    for server in started:
        server.stop()


class Data:
    """The shared scenario and answer builders, as a fixture (tests import no conftest)."""

    GOLD = GOLD
    TRACE = TRACE
    KEY = TEST_KEY
    judgments = staticmethod(judgments)
    text_answer = staticmethod(text_answer)
    tool_answer = staticmethod(tool_answer)


@pytest.fixture
def d() -> type[Data]:
    return Data


@pytest.fixture
def invoke(installed_plugin_manager: Any) -> Callable[..., Any]:
    """The CLI in-process with the installed plugins (the judge's options come from its entry point)."""
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, list(args), obj=App(pm=installed_plugin_manager), catch_exceptions=False)

    return run
