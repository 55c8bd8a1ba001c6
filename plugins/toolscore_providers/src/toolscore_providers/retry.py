"""Retrying rate-limited and overloaded model calls, counted, within a capped wait.

Why our own loop and not the SDKs': the SDKs retry silently (so a run row could not say
how often the API pushed back), each with its own rules for ``retry-after`` (one ignores long
waits, one sleeps for any), and they retry spent-quota 429s that will never succeed. Here
the SDK clients are built with ``max_retries=0`` and each attempt is one call to
``complete_once``; only errors marked ``retryable`` are tried again, the server's
``retry-after`` is honoured when it fits the remaining wait, and the total time spent
waiting is capped so a study never hangs on a throttled key.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

import attrs

from toolscore_core import ProviderError

T = TypeVar("T")


@attrs.frozen
class RetryPolicy:
    """How often and how long to retry a retryable :class:`ProviderError`.

    ``max_retries``: retries after the first attempt (0 = never retry). Without a
    ``retry-after`` from the server the n-th wait is ``min(max_delay, base_delay * 2**n)``,
    less up to ``jitter`` of it at random (so parallel workers do not retry in step).
    ``max_total_wait`` caps the sum of the waits of one call: a wait that would cross it
    (including a server's long ``retry-after``) is not made and the error is raised instead.
    ``sleep`` is how to wait (tests pass a recorder).
    """

    max_retries: int = attrs.field(default=4, validator=attrs.validators.ge(0))
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_total_wait: float = 120.0
    jitter: float = attrs.field(default=0.25, validator=[attrs.validators.ge(0.0),
                                                         attrs.validators.le(1.0)])
    sleep: Callable[[float], None] = attrs.field(default=time.sleep, eq=False, repr=False)

    def delay(self, retry: int, error: ProviderError) -> float:
        """The wait before retry number ``retry`` (counted from 0) after ``error``."""
        if error.retry_after is not None and error.retry_after >= 0:
            return float(error.retry_after)
        wait = min(self.max_delay, self.base_delay * (2 ** retry))
        return wait * (1.0 - self.jitter * random.random())  # spreading retries, not secrecy


def call_with_retries(attempt: Callable[[], T], policy: RetryPolicy) -> tuple[T, int]:
    """``attempt()`` and the number of retries it took.

    A :class:`ProviderError` that is not retryable, or that is still raised when the
    attempts or the wait are used up, propagates with a ``retries`` attribute saying how
    many retries were made before it, so the caller can record them on a failed run too.
    """
    retries = 0
    waited = 0.0
    while True:
        try:
            return attempt(), retries
        except ProviderError as exc:
            if not exc.retryable or retries >= policy.max_retries:
                exc.retries = retries  # type: ignore[attr-defined]
                raise
            wait = policy.delay(retries, exc)
            if waited + wait > policy.max_total_wait:
                exc.retries = retries  # type: ignore[attr-defined]
                raise
            policy.sleep(wait)
            waited += wait
            retries += 1
