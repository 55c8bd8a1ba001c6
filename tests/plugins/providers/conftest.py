"""Provider tests: the real SDK clients over real HTTP to the scripted model server.

Every client is pointed at 127.0.0.1 with a dummy key, so no test can reach a paid API.
Retries use a policy with tiny delays so a retried call stays well under a second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolscore_providers import RetryPolicy
from toolscore_providers.fake_server import FakeModelServer

TEST_KEY = "test-key-do-not-leak-7f3a9c"


@pytest.fixture
def test_key() -> str:
    """The dummy key every test client sends (a test checks it never shows in an error)."""
    return TEST_KEY


@pytest.fixture
def model_server() -> Iterator[Callable[..., FakeModelServer]]:
    """Start a scripted model server (``model_server(script)``); stopped after the test."""
    started: list[FakeModelServer] = []

    def start(script: list[dict[str, Any]]) -> FakeModelServer:
        server = FakeModelServer(script).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def fast_retries() -> RetryPolicy:
    """Backoff of milliseconds, no jitter: retried tests stay fast and exact."""
    return RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05, max_total_wait=2.0, jitter=0.0)


@pytest.fixture
def openai_client() -> Callable[[FakeModelServer], Any]:
    import openai

    return lambda server: openai.OpenAI(base_url=server.base_url, api_key=TEST_KEY)


@pytest.fixture
def anthropic_client() -> Callable[[FakeModelServer], Any]:
    import anthropic

    return lambda server: anthropic.Anthropic(base_url=server.base_url, api_key=TEST_KEY)
