"""MCP over stdio: a child process speaking newline-delimited JSON-RPC.

Three daemon threads keep the caller from ever blocking on the child: a reader that
routes stdout lines (responses to their waiting request, notifications to a bounded
list, server requests answered at once, anything else counted as noise), a writer fed by
a queue (a child that stops reading its stdin cannot block us), and a drain for stderr
(kept apart, last 256 KB).

Nothing here waits without a bound, because a server can hold us in many ways:

- The child runs in its own session, and ``close()`` ends the whole process group:
  stdin closed, a grace period, SIGTERM, then SIGKILL (``npx`` wrappers and background
  processes a server leaves behind share the group).
- A process that escaped the group (``setsid``) can keep our pipes open for ever, so the
  threads read raw file descriptors and each closes its own pipe when it ends: ``close()``
  joins them with one short deadline and never closes a pipe under a thread still
  reading it (closing a buffered stream waits for the reading thread's lock: that was a
  hang for as long as the stray process lived).
- A message is capped in bytes (``max_message_bytes``): a longer line is skipped as it
  streams, never buffered whole, and the call it answered fails naming the cap. What is
  kept per server is capped too: notifications (``session.py``), noise, stderr, and the
  answers queued for a server that stopped reading.
- A message the reader cannot handle (an id that is an object, nesting deeper than the
  JSON parser goes) is a protocol error of that message, never the end of the reader:
  a reader that died used to make every later request look like "the server exited".
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from toolscore_mcp.errors import (
    MCPConnectionError,
    MCPProtocolError,
    MCPServerGone,
    MCPTimeoutError,
)
from toolscore_mcp.session import MCPClient

#: Longest stdout message (one line) we read; a longer one is skipped and reported.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = MAX_MESSAGE_BYTES  # the former name
STDERR_KEPT_BYTES = 256 * 1024
#: Answers to a server's own requests waiting for a server that does not read its stdin.
MAX_OUTBOX_BYTES = 8 * 1024 * 1024
READ_CHUNK = 256 * 1024
#: After the process group is gone, how long close() lets the threads finish in total.
THREAD_JOIN_SECONDS = 1.0
#: How far into a malformed message we look for its id.
ID_SNIFF_BYTES = 4096

_ID_PATTERN = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")\s*[,}]')


class _Pending:
    __slots__ = ("event", "problem", "response")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.response: dict[str, Any] | None = None
        self.problem: str | None = None  # a malformed answer: the request fails with this


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
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        launcher: Any = None,
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
        self.max_message_bytes = int(max_message_bytes)
        #: A ``toolscore_mcp.warm_start.WarmLauncher`` that forks ``python -m`` servers
        #: (the agent harness); None: an ordinary subprocess.
        self.launcher = launcher
        self.process: Any = None  # subprocess.Popen, or a WarmProcess that behaves like one
        self.exit_code: int | None = None
        self.oversized_messages = 0
        self.dropped_answers = 0
        self._pending: dict[Any, _Pending] = {}
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._outbox_bytes = 0
        self._outbox_lock = threading.Lock()
        self._stderr = bytearray()
        self._stderr_total = 0
        self._threads: list[threading.Thread] = []
        self._closed_reading = threading.Event()

    def describe(self) -> str:
        """The server as error messages name it: its command line, secrets in it hidden."""
        from toolscore_core.scoring.secrets import redact_command

        return f"server {shlex.join(redact_command(self.argv))!r}"

    # -- process -----------------------------------------------------------------------
    def start(self) -> MCPStdioClient:
        if self.process is not None:
            return self
        from toolscore_core.scoring.secrets import redact_command

        executable = self.argv[0]
        env = {**os.environ, **self.env} if self.env else None
        search_path = (env or os.environ).get("PATH")
        if os.sep not in executable and shutil.which(executable, path=search_path) is None:
            raise MCPConnectionError(
                f"cannot start the server: command not found: {redact_command(executable)}",
                hint="Check the spelling, install it, or give its full path",
            )
        try:
            self.process = self._spawn(env) if self.launcher is not None else subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                bufsize=0,  # raw pipes: no buffer lock for close() to wait on
                start_new_session=True,
            )
        except OSError as exc:
            raise MCPConnectionError(f"cannot start the server {executable!r}: {exc.strerror or exc}") from None
        self._closed_reading.clear()
        self._outbox = queue.Queue()
        self._outbox_bytes = 0
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

    def _spawn(self, env: dict[str, str] | None) -> Any:
        """Fork the server from the warm launcher; a command it cannot warm-start (not
        ``python -m``) gets an ordinary subprocess, in its own session like any other."""
        try:
            return self.launcher.spawn(self.argv, env=env, cwd=self.cwd)
        except ValueError:
            return subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env, cwd=self.cwd, bufsize=0, start_new_session=True)

    def close(self) -> None:
        """End the session and its process group; every wait is bounded.

        Each thread closes its own pipe when it ends. One still running after the
        deadline reads a pipe that a process outside the group holds open: it is left to
        end with that process (a daemon thread, and its pipe closes with it)."""
        process = self.process
        if process is None:
            return
        self._outbox.put(None)  # the writer closes stdin: a polite "we are done"
        if not wait_exit(process, self.close_grace):
            self._signal(process, signal.SIGTERM)
            if not wait_exit(process, 1.0):
                self._signal(process, signal.SIGKILL)
                wait_exit(process, 2.0)
        # Children of the server (npx -> node, background helpers) share its group: end them too.
        self._signal(process, signal.SIGKILL)
        self.exit_code = process.returncode
        deadline = time.monotonic() + THREAD_JOIN_SECONDS
        for thread in self._threads:
            if thread.ident is not None:
                thread.join(max(0.0, deadline - time.monotonic()))
        self._fail_pending()
        self.process = None

    def _restart(self) -> None:
        self.close()
        self.start()

    @staticmethod
    def _signal(process: Any, sig: int) -> None:
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
        """Split stdout into lines of at most ``max_message_bytes`` and route each one."""
        fd = stream.fileno()
        limit = self.max_message_bytes
        line = bytearray()
        skipped: tuple[bytes, int] | None = None  # (head, bytes so far) of an oversized line
        try:
            while True:
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    piece = chunk[start:] if end < 0 else chunk[start:end]
                    if skipped is not None:
                        skipped = (skipped[0], skipped[1] + len(piece))
                    elif len(line) + len(piece) > limit:
                        size = len(line) + len(piece)
                        line += piece[: max(0, ID_SNIFF_BYTES - len(line))]
                        skipped = (bytes(line[:ID_SNIFF_BYTES]), size)
                        line.clear()
                    elif end >= 0 and not line:
                        self._safely_route(piece)  # the common case: a whole line in this chunk
                        start = end + 1
                        continue
                    else:
                        line += piece
                    if end < 0:
                        break
                    if skipped is not None:
                        self._oversized(*skipped)
                        skipped = None
                    else:
                        self._safely_route(bytes(line))
                        line.clear()
                    start = end + 1
            if skipped is not None:
                self._oversized(*skipped)
            elif line:
                self._safely_route(bytes(line))
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                stream.close()
            self._closed_reading.set()
            self._fail_pending()

    def _safely_route(self, line: bytes) -> None:
        """Route one line; whatever is wrong with it stays a problem of that line."""
        try:
            self._route_line(line)
        except Exception as exc:  # a message we could not handle must not end the reader
            self._malformed(line[:ID_SNIFF_BYTES], f"{type(exc).__name__}: {exc}"[:200])

    def _oversized(self, head: bytes, size: int) -> None:
        self.oversized_messages += 1
        self._malformed(head, f"a message of {size:,} bytes, over the cap of {self.max_message_bytes:,} bytes per message "
                              "(max_message_bytes); it was skipped")

    def _malformed(self, head: bytes, problem: str) -> None:
        """A message we could not read: fail the request it answers (its id found near the
        start), or keep it as noise when no waiting request can be named."""
        text = f"the server sent a malformed message: {problem}"
        match = _ID_PATTERN.search(head)
        if match is not None:
            with contextlib.suppress(ValueError):
                waiter = self._pending.pop(_key(json.loads(match.group(1))), None)
                if waiter is not None:
                    waiter.problem = text
                    waiter.event.set()
                    return
        self._note_noise(f"{text} (starts {head[:120].decode('utf-8', errors='replace')!r})")

    def _route_line(self, line: bytes) -> None:
        stripped = line.strip()
        if not stripped:
            return
        try:
            message = json.loads(stripped.decode("utf-8"))
        except RecursionError:
            self._malformed(stripped[:ID_SNIFF_BYTES], "nested deeper than the JSON reader goes")
            return
        except (UnicodeDecodeError, ValueError):
            self._note_noise(stripped[:300].decode("utf-8", errors="replace"))
            return
        for item in message if isinstance(message, list) else [message]:
            self._route_message(item, len(stripped))

    def _route_message(self, message: Any, size: int) -> None:
        if not isinstance(message, dict):
            self._note_noise(f"not a JSON-RPC message: {_preview(message)}")
            return
        if "method" in message:
            if "id" in message:
                self._enqueue(self._answer_server_request(message), answer=True)
            else:
                self._keep_notification(message, size)
            return
        if "id" in message and ("result" in message or "error" in message):
            request_id = message["id"]
            if not _valid_id(request_id):
                self._note_noise(f"a response whose id is {type(request_id).__name__} {_preview(request_id, 60)}, "
                                 "not a string or an integer: ignored")
                return
            pending = self._pending.pop(_key(request_id), None)
            if pending is None:
                self.late_responses += 1
                return
            pending.response = message
            pending.event.set()
            return
        self._note_noise(_preview(message, 300))

    def _read_stderr(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                self._stderr_total += len(chunk)
                self._stderr.extend(chunk)
                if len(self._stderr) > STDERR_KEPT_BYTES:
                    del self._stderr[: len(self._stderr) - STDERR_KEPT_BYTES]
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def _write_stdin(self, stream: IO[bytes], outbox: queue.Queue[bytes | None]) -> None:
        try:
            fd = stream.fileno()
            while True:
                data = outbox.get()
                if data is None:
                    break
                with self._outbox_lock:
                    self._outbox_bytes -= len(data)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
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
    def _enqueue(self, message: dict[str, Any], *, answer: bool = False) -> None:
        """Queue a message for the server. An answer to the server's own request is
        dropped (and counted) while too much waits for a server that is not reading."""
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._outbox_lock:
            if answer and self._outbox_bytes + len(data) > MAX_OUTBOX_BYTES:
                self.dropped_answers += 1
                return
            self._outbox_bytes += len(data)
        self._outbox.put(data)

    def _gone(self, what: str) -> MCPServerGone:
        code = self.process.poll() if self.process is not None else None
        if code is None and self.process is not None:  # stdout closed: the exit status follows in a moment
            code = self.process.returncode if wait_exit(self.process, 0.5) else None
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
        if waiter.problem is not None:
            raise MCPProtocolError(f"{method}: {waiter.problem}")
        if waiter.response is None:
            raise self._gone(method)
        return waiter.response

    def _send_notification(self, message: dict[str, Any]) -> None:
        if self.process is None or self._closed_reading.is_set():
            raise self._gone(str(message.get("method")))
        self._enqueue(message)


def wait_exit(process: Any, timeout: float) -> bool:
    """Wait up to ``timeout`` s for the process to exit and reap it; True if it did.

    A pidfd wakes us the moment the process exits (``Popen.wait(timeout)`` sleeps in
    growing steps, which costs every one of the thousands of servers a study closes);
    then ``wait`` collects the status (at once for a child of ours; a forked warm-start
    server's status comes from its zygote a moment later). Without pidfds (not Linux, an
    old kernel) ``wait`` alone does it."""
    if process.poll() is not None:
        return True
    deadline = time.monotonic() + timeout
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None and timeout > 0:
        try:
            pidfd = pidfd_open(process.pid)
        except OSError:
            pass
        else:
            try:
                ready, _, _ = select.select([pidfd], [], [], timeout)
            except (OSError, ValueError):
                ready = []
            finally:
                os.close(pidfd)
            remaining = deadline - time.monotonic()
            timeout = max(remaining, 0.5) if ready else max(remaining, 0.0)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def _valid_id(value: Any) -> bool:
    """Ids we could have sent: a string or an integer (JSON-RPC allows no objects, arrays or
    booleans, and discourages fractions)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _preview(value: Any, limit: int = 300) -> str:
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        text = f"<{type(value).__name__} too deep to show>"
    return text[:limit]


def _key(request_id: Any) -> Any:
    """Ids compare by value and type (1 and "1" are different requests)."""
    return (type(request_id).__name__, request_id)
