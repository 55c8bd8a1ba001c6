"""A urllib opener whose requests end at a deadline, however the server behaves.

Why: a socket timeout bounds each wait, not the request. A collector that answers one byte
every few seconds, or reads the request a byte at a time, keeps every wait short and the
export waiting forever; the export is a batch job (often in CI) that must end. Here every
blocking call on the connection's socket (connect, send, receive; plain or TLS) is given only
what is left of the request's deadline, and past it raises ``TimeoutError``: the request
fails as an unreachable collector does.

It is urllib's own opener otherwise (proxies from the environment, redirects, TLS with the
default context), with the HTTP and HTTPS handlers swapped for ones making such connections.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
import urllib.request
from typing import Any


class Deadline:
    """A moment on the monotonic clock; :meth:`left` is the time to it, or TimeoutError past it."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        remaining = self.at - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        return remaining


class _Armed:
    """Methods that arm the socket with what is left of its deadline before each blocking call.

    Mixed into :class:`socket.socket` and :class:`ssl.SSLSocket` (whose own blocking calls
    read the same timeout); ``sendall`` counts as one call, as Python takes its timeout for
    the whole send."""

    deadline: Deadline

    def _arm(self) -> None:
        self.settimeout(self.deadline.left())  # type: ignore[attr-defined]

    def recv_into(self, *args: Any, **kwargs: Any) -> int:
        self._arm()
        return super().recv_into(*args, **kwargs)  # type: ignore[misc]

    def recv(self, *args: Any, **kwargs: Any) -> bytes:
        self._arm()
        return super().recv(*args, **kwargs)  # type: ignore[misc]

    def send(self, *args: Any, **kwargs: Any) -> int:
        self._arm()
        return super().send(*args, **kwargs)  # type: ignore[misc]

    def sendall(self, *args: Any, **kwargs: Any) -> None:
        self._arm()
        super().sendall(*args, **kwargs)  # type: ignore[misc]


class _Socket(_Armed, socket.socket):
    pass


class _SSLSocket(_Armed, ssl.SSLSocket):
    pass


def _connected(deadline: Deadline) -> Any:
    """``socket.create_connection`` for one request: within its deadline, and armed after."""

    def create(address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> socket.socket:
        raw = socket.create_connection(address, deadline.left(), source_address)
        sock = _Socket(raw.family, raw.type, raw.proto, fileno=raw.detach())
        sock.deadline = deadline
        # a TLS handshake reads through its own socket, made from this one with this timeout,
        # which Python's TLS takes as the deadline of the whole handshake
        sock.settimeout(deadline.left())
        return sock

    return create


# ``_create_connection`` is the one hook http.client gives for making its socket (its own tests
# set it too); it is where the deadline enters, for plain and TLS connections alike.
class _Connection(http.client.HTTPConnection):
    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _connected(deadline)


class _TLSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _connected(deadline)
        self._deadline = deadline

    def connect(self) -> None:
        # the handshake ran in the TLS socket made from the armed plain one, within its timeout;
        # that socket is armed too for what follows (a subclass with no state of its own, so its
        # class can be set in place)
        super().connect()
        sock: Any = self.sock
        sock.__class__ = _SSLSocket
        sock.deadline = self._deadline


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> Any:
        connection: Any = _Connection
        return self.do_open(connection, req, deadline=self._deadline)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> Any:
        connection: Any = _TLSConnection  # with the default TLS context, as urlopen uses
        return self.do_open(connection, req, deadline=self._deadline)


def opener(seconds: float) -> urllib.request.OpenerDirector:
    """An opener for one request that must be over within ``seconds``, answer read included."""
    deadline = Deadline(seconds)
    return urllib.request.build_opener(_HTTPHandler(deadline), _HTTPSHandler(deadline))


__all__ = ["Deadline", "opener"]
