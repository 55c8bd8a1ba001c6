"""MCP over stdio: a child process speaking newline-delimited JSON-RPC.

Three daemon threads keep the caller from ever blocking on the child: a reader that
routes stdout lines (responses to their waiting request, notifications to a list, server
requests answered at once, anything else counted as noise), a writer fed by a queue (a
child that stops reading its stdin cannot block us), and a drain for stderr (kept apart,
last 256 KB). The child runs in its own session so ``close()`` can end it and anything it
spawned (``npx`` wrappers): stdin closed, a grace period, SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from toolscore_mcp.errors import MCPConnectionError, MCPServerGone, MCPTimeoutError
from toolscore_mcp.session import MCPClient

#: Longest stdout line we buffer; longer runs are reported as noise in pieces.
MAX_LINE_BYTES = 64 * 1024 * 1024
STDERR_KEPT_BYTES = 256 * 1024


class _Pending:
    __slots__ = ("event", "response")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.response: dict[str, Any] | None = None


class MCPStdioClient(MCPClient):
    """A client for a server started as a child process (see ``toolscore_mcp.client``)."""

    transport = "stdio"

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        timeout: float = 30.0,
        close_grace: float = 1.0,
        **options: Any,
    ) -> None:
        super().__init__(timeout=timeout, **options)
        argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
        if not argv:
            raise MCPConnectionError("empty server command", hint='Give the command that starts the server, e.g. "node server.js"')
        self.argv: list[str] = argv
        self.env = dict(env) if env else None
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.close_grace = close_grace
        self.process: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None
        self._pending: dict[Any, _Pending] = {}
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = bytearray()
        self._stderr_total = 0
        self._threads: list[threading.Thread] = []
        self._closed_reading = threading.Event()

    def describe(self) -> str:
        return f"server {shlex.join(self.argv)!r}"

    # -- process -----------------------------------------------------------------------
    def start(self) -> MCPStdioClient:
        if self.process is not None:
            return self
        executable = self.argv[0]
        env = {**os.environ, **self.env} if self.env else None
        search_path = (env or os.environ).get("PATH")
        if os.sep not in executable and shutil.which(executable, path=search_path) is None:
            raise MCPConnectionError(
                f"cannot start the server: command not found: {executable}",
                hint="Check the spelling, install it, or give its full path",
            )
        try:
            self.process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise MCPConnectionError(f"cannot start the server {executable!r}: {exc.strerror or exc}") from None
        self._closed_reading.clear()
        self._outbox = queue.Queue()
        self._stderr = bytearray()  # a restarted server gets a clean slate
        self.exit_code = None
        assert self.process.stdout is not None and self.process.stderr is not None and self.process.stdin is not None
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(self.process.stdout,), name="mcp-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.process.stderr,), name="mcp-stderr", daemon=True),
            threading.Thread(target=self._write_stdin, args=(self.process.stdin, self._outbox), name="mcp-stdin", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def close(self) -> None:
        """End the session and reap the process (never leaves it running)."""
        process = self.process
        if process is None:
            return
        self._outbox.put(None)  # the writer closes stdin: a polite "we are done"
        try:
            process.wait(timeout=self.close_grace)
        except subprocess.TimeoutExpired:
            self._signal(process, signal.SIGTERM)
            try:
                process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                self._signal(process, signal.SIGKILL)
                process.wait()
        # Children of the server (npx -> node) share its session: end them too.
        self._signal(process, signal.SIGKILL)
        self.exit_code = process.returncode
        for thread in self._threads:
            thread.join(timeout=2.0)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._fail_pending()
        self.process = None

    def _restart(self) -> None:
        self.close()
        self.start()

    @staticmethod
    def _signal(process: subprocess.Popen[bytes], sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None and not self._closed_reading.is_set()

    @property
    def stderr_text(self) -> str:
        return bytes(self._stderr).decode("utf-8", errors="replace")

    # -- threads -----------------------------------------------------------------------
    def _read_stdout(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(MAX_LINE_BYTES)
                if not line:
                    break
                self._route_line(line)
        except (OSError, ValueError):
            pass
        finally:
            self._closed_reading.set()
            self._fail_pending()

    def _route_line(self, line: bytes) -> None:
        stripped = line.strip()
        if not stripped:
            return
        try:
            message = json.loads(stripped.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._note_noise(stripped.decode("utf-8", errors="replace"))
            return
        for item in message if isinstance(message, list) else [message]:
            self._route_message(item)

    def _route_message(self, message: Any) -> None:
        if not isinstance(message, dict):
            self._note_noise(json.dumps(message)[:300])
            return
        if "method" in message:
            if "id" in message:
                self._enqueue(self._answer_server_request(message))
            else:
                self.notifications.append(message)
            return
        if "id" in message and ("result" in message or "error" in message):
            pending = self._pending.pop(_key(message["id"]), None)
            if pending is None:
                self.late_responses += 1
                return
            pending.response = message
            pending.event.set()
            return
        self._note_noise(json.dumps(message)[:300])

    def _read_stderr(self, stream: IO[bytes]) -> None:
        try:
            while True:
                chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
                if not chunk:
                    break
                self._stderr_total += len(chunk)
                self._stderr.extend(chunk)
                if len(self._stderr) > STDERR_KEPT_BYTES:
                    del self._stderr[: len(self._stderr) - STDERR_KEPT_BYTES]
        except (OSError, ValueError):
            pass

    @staticmethod
    def _write_stdin(stream: IO[bytes], outbox: queue.Queue[bytes | None]) -> None:
        try:
            while True:
                data = outbox.get()
                if data is None:
                    break
                stream.write(data)
                stream.flush()
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def _fail_pending(self) -> None:
        pending, self._pending = self._pending, {}
        for waiter in pending.values():
            waiter.event.set()

    # -- transport hooks ---------------------------------------------------------------
    def _enqueue(self, message: dict[str, Any]) -> None:
        self._outbox.put(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")

    def _gone(self, what: str) -> MCPServerGone:
        code = self.process.poll() if self.process is not None else None
        if code is None and self.process is not None:
            try:  # stdout closed: the exit status follows in a moment
                code = self.process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        threads = self._threads  # a restart may swap the list for new, not yet started threads
        stderr_reader = threads[1] if len(threads) > 1 else None
        if code is not None and stderr_reader is not None and stderr_reader.ident is not None:
            stderr_reader.join(timeout=0.5)  # its last words on stderr explain the exit
        detail = f"exited with code {code}" if code is not None else "closed its stdout"
        return MCPServerGone(f"the server {detail} during {what}", exit_code=code)

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        method = str(request.get("method"))
        if self.process is None:
            self.start()
        if self._closed_reading.is_set():
            raise self._gone(method)
        waiter = _Pending()
        key = _key(request["id"])
        self._pending[key] = waiter
        self._enqueue(request)
        deadline = time.monotonic() + timeout
        # Wake up now and then: a server whose stdout is held open by a child may exit
        # without us seeing EOF.
        while not waiter.event.wait(min(0.25, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                self._pending.pop(key, None)
                raise MCPTimeoutError(method, timeout)
            if self.process is not None and self.process.poll() is not None and not waiter.event.is_set():
                waiter.event.wait(0.2)  # let the reader deliver the last lines
                if not waiter.event.is_set():
                    self._pending.pop(key, None)
                    raise self._gone(method)
        if waiter.response is None:
            raise self._gone(method)
        return waiter.response

    def _send_notification(self, message: dict[str, Any]) -> None:
        if self.process is None or self._closed_reading.is_set():
            raise self._gone(str(message.get("method")))
        self._enqueue(message)


def _key(request_id: Any) -> Any:
    """Ids compare by value and type (1 and "1" are different requests)."""
    return (type(request_id).__name__, request_id)
