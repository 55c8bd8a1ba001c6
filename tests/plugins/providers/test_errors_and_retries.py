"""Errors mapped to the kernel's provider errors, and our own counted, capped retry loop."""

from __future__ import annotations

import socket
import time

import pytest

from toolscore_core import (
    BadRequest,
    ModelRequest,
    Overloaded,
    ProviderError,
    ProviderTransportError,
    RateLimited,
    UserMessage,
)
from toolscore_providers import OpenAIChatProvider, OpenAIResponsesProvider, RetryPolicy
from toolscore_providers.base import parse_retry_after

REQUEST = ModelRequest(messages=[UserMessage("hi")])


def test_429_with_retry_after_then_success_waits_as_asked_and_counts(model_server, openai_client):
    server = model_server([
        {"error": 429, "message": "Rate limit reached", "headers": {"retry-after": "0.2"}},
        {"error": 429, "message": "Rate limit reached", "headers": {"retry-after-ms": "100"}},
        {"text": "ok"},
    ])
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    policy = RetryPolicy(max_retries=4, jitter=0.0, sleep=sleep)
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server), retry_policy=policy)
    started = time.monotonic()
    turn = provider.complete(REQUEST)
    assert turn.text == "ok" and provider.last_retries == 2
    assert waits == [0.2, 0.1]  # the server's wait, not our backoff
    assert time.monotonic() - started >= 0.3
    assert len(server.requests) == 3


def test_a_wait_beyond_the_cap_is_not_made(model_server, openai_client):
    server = model_server([{"error": 429, "message": "slow down", "headers": {"retry-after": "300"}},
                           {"text": "never reached"}])
    waits: list[float] = []
    policy = RetryPolicy(max_retries=4, max_total_wait=5.0, sleep=waits.append)
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server), retry_policy=policy)
    with pytest.raises(RateLimited) as caught:
        provider.complete(REQUEST)
    assert caught.value.retry_after == 300.0 and getattr(caught.value, 'retries', None) == 0
    assert waits == [] and len(server.requests) == 1


def test_a_spent_quota_is_not_retried(model_server, openai_client, fast_retries):
    server = model_server([{"error": 429, "message": "You exceeded your current quota",
                            "code": "insufficient_quota", "type": "insufficient_quota"}])
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server), retry_policy=fast_retries)
    with pytest.raises(RateLimited) as caught:
        provider.complete(REQUEST)
    assert caught.value.retryable is False and len(server.requests) == 1


def test_backoff_without_retry_after_grows_and_503_is_overloaded(model_server, openai_client):
    server = model_server([{"error": 503, "message": "unavailable"}] * 3 + [{"text": "ok"}])
    waits: list[float] = []
    policy = RetryPolicy(max_retries=3, base_delay=0.5, jitter=0.0, sleep=waits.append)
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server), retry_policy=policy)
    assert provider.complete(REQUEST).text == "ok"
    assert waits == [0.5, 1.0, 2.0] and provider.last_retries == 3
    server.push({"error": 503, "message": "unavailable"})
    with pytest.raises(Overloaded):
        OpenAIResponsesProvider("gpt-test", client=openai_client(server), max_retries=0).complete(REQUEST)


def test_400_is_bad_request_and_the_key_never_appears(model_server, openai_client, fast_retries, test_key):
    server = model_server([{"error": 400, "message": f"Invalid 'tools[0].name' (key {test_key} rejected)"}])
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server), retry_policy=fast_retries)
    with pytest.raises(BadRequest) as caught:
        provider.complete(REQUEST)
    assert caught.value.status == 400 and "Invalid 'tools[0].name'" in str(caught.value)
    assert test_key not in str(caught.value) and test_key not in repr(provider)


def test_no_server_is_a_transport_error_retried_then_raised(fast_retries):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAIChatProvider("m", base_url=f"http://127.0.0.1:{port}/v1", retry_policy=fast_retries)
    with pytest.raises(ProviderTransportError) as caught:
        provider.complete(REQUEST)
    assert caught.value.status is None and getattr(caught.value, 'retries', None) == 3


def test_a_malformed_body_is_a_provider_error_not_a_crash(model_server, openai_client, fast_retries):
    server = model_server([{"raw": '{"id": "resp_1", "output": "nope"}'}, {"raw": "<html>oops</html>"}])
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server), retry_policy=fast_retries)
    with pytest.raises(ProviderError, match="could not be read"):
        provider.complete(REQUEST)
    with pytest.raises(ProviderError):
        provider.complete(REQUEST)


def test_retry_after_parsing():
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
