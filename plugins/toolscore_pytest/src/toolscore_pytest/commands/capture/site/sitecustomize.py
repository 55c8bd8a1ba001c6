"""Toolscore's capture of model API responses, loaded by ``toolscore record -- CMD``.

``toolscore record`` puts this file's folder first on the child's ``PYTHONPATH``, so Python
imports it at start-up as ``sitecustomize``. It then:

1. runs the ``sitecustomize`` the user had (the next one on ``sys.path``), so recording a
   program never changes what it does at start-up;
2. waits for ``httpx`` (or ``httpx2``, the fork newer openai and anthropic SDKs use) to be
   imported (it never imports either itself: a program that does not use them must not
   pay for them), then wraps ``Client.send`` and ``AsyncClient.send`` - the transport of
   the openai, anthropic and google-genai SDKs;
3. appends the JSON body of each successful model call (a POST to a path ending in
   ``/chat/completions``, ``/responses``, ``/messages`` or ``:generateContent``) as one JSON
   line to the file named by ``TOOLSCORE_RECORD_CAPTURE``. Nothing of the request is kept
   but its path (no headers, no query string: that is where credentials travel). A
   streamed response is counted, never read: reading it would take it from the program.

Only the standard library is imported here, and every step is guarded: a failure to
capture must never break the program being recorded.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
from typing import Any

CAPTURE_ENV = "TOOLSCORE_RECORD_CAPTURE"
_HERE = os.path.dirname(os.path.abspath(__file__))
_SUFFIXES = ("/chat/completions", "/responses", "/messages", ":generateContent")
_STREAM_SUFFIXES = (":streamGenerateContent",)
#: The HTTP client modules whose clients are wrapped (same API: httpx2 is httpx's fork).
_CLIENT_MODULES = frozenset({"httpx", "httpx2"})
_lock = threading.Lock()


def _chain_user_sitecustomize() -> None:
    """Import the next ``sitecustomize`` on ``sys.path`` (not this one), as Python would have."""
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module  # the user's module is "the" sitecustomize from now on
    spec.loader.exec_module(module)


def _write(record: dict[str, Any]) -> None:
    target = os.environ.get(CAPTURE_ENV)
    if not target:
        return
    # ASCII: a body's lone surrogate (legal in JSON text) must not make the line unwritable.
    line = (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")
    with _lock:
        # One write per line on an O_APPEND file: lines of several processes never interleave.
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def _model_path(request: Any) -> str | None:
    """The request's URL path if it is a model call worth capturing, else None."""
    if str(getattr(request, "method", "")).upper() != "POST":
        return None
    path = str(request.url.path)
    if path.endswith(_SUFFIXES) or path.endswith(_STREAM_SUFFIXES):
        return path
    return None


def _is_stream(path: str, response: Any) -> bool:
    content_type = str(response.headers.get("content-type", "")).lower()
    return "text/event-stream" in content_type or path.endswith(_STREAM_SUFFIXES)


def _record(path: str, response: Any) -> None:
    if not 200 <= int(response.status_code) < 300:
        return
    try:
        body = json.loads(response.content)
    except ValueError:
        _write({"path": path, "unreadable": True})
        return
    _write({"path": path, "status": int(response.status_code), "body": body})


def _observe(request: Any, response: Any) -> None:
    path = _model_path(request)
    if path is None:
        return
    if _is_stream(path, response):
        _write({"path": path, "streamed": True})
        return
    response.read()  # a no-op unless the caller asked for an unread (stream=True) response
    _record(path, response)


async def _observe_async(request: Any, response: Any) -> None:
    path = _model_path(request)
    if path is None:
        return
    if _is_stream(path, response):
        _write({"path": path, "streamed": True})
        return
    await response.aread()
    _record(path, response)


def _patch(httpx: Any) -> None:
    """Wrap the send methods of httpx's clients (once)."""
    client, async_client = httpx.Client, httpx.AsyncClient
    if getattr(client.send, "_toolscore_capture", False):
        return
    original, original_async = client.send, async_client.send

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = original(self, request, *args, **kwargs)
        with contextlib.suppress(Exception):  # capturing must never break the program
            _observe(request, response)
        return response

    async def send_async(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = await original_async(self, request, *args, **kwargs)
        with contextlib.suppress(Exception):
            await _observe_async(request, response)
        return response

    send._toolscore_capture = True  # type: ignore[attr-defined]
    send_async._toolscore_capture = True  # type: ignore[attr-defined]
    client.send = send
    async_client.send = send_async


class _HttpxWatcher:
    """A meta-path finder that lets ``httpx`` / ``httpx2`` load normally, then patches them."""

    def __init__(self) -> None:
        self._busy = False
        self._left = set(_CLIENT_MODULES)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self._left or self._busy:
            return None
        self._busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self._busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            with contextlib.suppress(Exception):
                _patch(module)
            self._left.discard(name)
            if not self._left and self in sys.meta_path:
                sys.meta_path.remove(self)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _install() -> None:
    if not os.environ.get(CAPTURE_ENV):
        return
    watcher = _HttpxWatcher()
    for name in _CLIENT_MODULES:
        if name in sys.modules:  # imported by a .pth file before us
            _patch(sys.modules[name])
            watcher._left.discard(name)
    if watcher._left:
        sys.meta_path.insert(0, watcher)


with contextlib.suppress(Exception):
    _install()

_chain_user_sitecustomize()
