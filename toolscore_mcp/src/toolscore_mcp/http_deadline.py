"""A wall-clock deadline under every socket operation of an httpx client.

Why: httpx's timeouts bound each connect, read and write on its own. A server that
trickles its response headers one byte a second, or sends an SSE keep-alive comment now
and then, never trips them, so one request could last forever. Here a request runs
inside :func:`deadline`, and every connect, TLS handshake, read and write the connection
pool makes for it waits at most until then: the whole exchange (headers, body, stream)
ends by the deadline whatever the server does, and the read that overran raises the
ordinary ``httpx.ReadTimeout`` (or Connect/WriteTimeout) the caller already handles.

Outside :func:`deadline` (the long-lived GET stream) the usual per-operation timeouts
apply unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

_DEADLINE: ContextVar[float | None] = ContextVar("toolscore_http_deadline", default=None)
_WRITE_PIECE = 64 * 1024  # a write recomputes the time left between pieces


@contextmanager
def deadline(at: float) -> Iterator[None]:
    """Bound every socket operation in this block (this thread) by ``at`` (``time.monotonic``).

    Nested blocks keep the earlier deadline: answering a server's request in the middle of
    a reply must not outlast the reply's own deadline.
    """
    outer = _DEADLINE.get()
    token = _DEADLINE.set(at if outer is None else min(outer, at))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """The socket timeout to use: the operation's own, cut to what is left of the deadline."""
    at = _DEADLINE.get()
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for start in range(0, len(buffer), _WRITE_PIECE):
            self._inner.write(buffer[start:start + _WRITE_PIECE], _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, _bounded(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _bounded(timeout, httpcore.ConnectTimeout),
                                         local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(path, _bounded(timeout, httpcore.ConnectTimeout), socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport over a connection pool whose sockets honour :func:`deadline`.

    httpx offers no public hook for the network backend, so the pool it would build is
    replaced by the same pool (httpx's default limits, no proxy: clients here never read
    proxy settings from the environment) built with the deadline backend. The hostile
    server tests fail loudly if a future httpx stops using it.
    """

    def __init__(self) -> None:
        super().__init__(trust_env=False)
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )


__all__ = ["DeadlineTransport", "deadline"]
