"""``toolscore mcp record -o FILE -- CMD ARGS...``: a transparent stdio relay that records.

Put it in front of any stdio server, for example as the ``command`` of a Claude Desktop
config entry (``"command": "toolscore", "args": ["mcp", "record", "-o", "sessions/s.jsonl",
"--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"]``). Our stdin and
stdout ARE the protocol: every chunk read from one side is written to the other side
unchanged (binary-safe: invalid UTF-8, CRLF, a final line without a newline all pass
through as they were). Lines are parsed on the side and recorded by
:class:`~toolscore_mcp.recorder.SessionRecorder`. The server's stderr is passed through
to ours; our own diagnostics go to stderr only.

Order matters in one place: a line from the client is recorded BEFORE it is forwarded.
The server cannot answer a request it has not received, so its answer always finds the
request registered; forwarding first let a fast answer overtake the registration under
CPU load, and the call was lost as "unknown".

The session file is appended to (each session starts with its own header line, so one
file holds every session a client such as Claude Desktop starts); ``--new-file`` writes
each session to a file of its own instead. A file that cannot be written (a full disk, a
read-only place) is a one-line error before the server starts, and a write that fails
later is reported once while the relay goes on relaying.

The relay never outlives its client: the server runs in its own session, and when the
client closes our stdin (after a grace period for the server to exit by itself) or we get
SIGTERM, SIGINT or SIGHUP, the server's whole process group is ended (SIGTERM, then
SIGKILL) and we exit, even if a process the server left behind still holds its pipes.

Raw file descriptors (``os.read``/``os.write``) rather than ``sys.stdin``: a thread blocked
in a buffered read holds the buffer's lock and can abort interpreter shutdown.

Exit code: the server's (128 + N if a signal N ended it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from toolscore_core.cli import run_command

if TYPE_CHECKING:
    from toolscore_mcp.recorder import SessionRecorder

CHUNK = 65536
#: After the client closes our stdin, how long the server may take to exit by itself.
EOF_GRACE_SECONDS = 5.0
#: After SIGTERM, how long before SIGKILL.
TERM_GRACE_SECONDS = 2.0
#: After the server exited, how long its last output may take to reach the client.
DRAIN_SECONDS = 2.0
#: The longest line we record (it is still forwarded whole, only not kept in the file).
MAX_RECORDED_LINE = 64 * 1024 * 1024


@click.command("record", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100,
                                           "ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Session file to append to (JSON Lines; .json or .jsonl). Each session starts with a header line.")
@click.option("--new-file", is_flag=True,
              help="Write each session to a new file named after FILE, the start time and the relay pid (FILE-20261202T120000Z-PID.jsonl).")
@click.option("--no-redact", is_flag=True, help="Keep credentials found in arguments and results (default: redacted).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
@run_command
def record_command(output: str, new_file: bool, no_redact: bool, command: tuple[str, ...]) -> None:
    """Relay a stdio MCP server byte for byte and record every tool call to FILE.

    \b
    Examples:
      toolscore mcp record -o session.jsonl -- npx -y @modelcontextprotocol/server-filesystem ./acme-api
      toolscore eval gold.json session.jsonl          score what the agent did

    Credentials in arguments and results (API keys, tokens, private keys) are written as a
    preview (AKIA…LE) unless --no-redact. Sessions are appended to FILE. Exit code: the server's.
    """
    raise SystemExit(relay(list(command), output, redact=not no_redact, new_file=new_file))


def relay(argv: list[str], output: str, *, redact: bool = True, stdin_fd: int = 0, stdout_fd: int = 1,
          new_file: bool = False) -> int:
    """Run the server ``argv`` between ``stdin_fd``/``stdout_fd`` and ``output``; return its exit code."""
    from toolscore_core.kernel.errors import InputError

    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise InputError("no server command to relay", hint="Put it after --, e.g. toolscore mcp record -o s.jsonl -- node server.js")
    if os.sep not in argv[0] and shutil.which(argv[0]) is None:
        from toolscore_core.scoring.secrets import redact_command

        raise InputError(f"cannot start the server: command not found: {redact_command(argv[0])}",
                         hint="Check the spelling, install it, or give its full path")
    session_file, recorder = _open_session(output, argv, redact=redact, new_file=new_file)
    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                   start_new_session=True, preexec_fn=_die_with_relay())
    except OSError as exc:
        _close_quietly(session_file)
        raise InputError(f"cannot start the server {argv[0]!r}: {exc.strerror or exc}") from None
    assert process.stdin is not None and process.stdout is not None
    group = _Group(process)
    group.catch_signals()
    client_gone = threading.Event()
    to_server = threading.Thread(target=_client_to_server, args=(stdin_fd, process, recorder, client_gone),
                                 name="relay-c2s", daemon=True)
    to_client = threading.Thread(target=_pump, args=(process.stdout.fileno(), stdout_fd, "s2c", recorder),
                                 name="relay-s2c", daemon=True)
    to_server.start()
    to_client.start()
    code = group.wait(client_gone)
    to_client.join(DRAIN_SECONDS)  # the server's last words; a stray process holding its stdout cannot keep us
    if to_client.is_alive():
        _note("a process the server started still holds its output; not waiting for it")
    else:
        with contextlib.suppress(OSError):
            process.stdout.close()
    _close_quietly(session_file)
    return 128 - code if code < 0 else code


def _open_session(output: str, argv: list[str], *, redact: bool, new_file: bool) -> tuple[IO[str], SessionRecorder]:
    """Open the session file for appending (or a new file) and write the header, or raise
    an InputError saying why the file cannot be written."""
    from toolscore_core.kernel.errors import InputError
    from toolscore_mcp.recorder import SessionRecorder

    path = Path(output)
    if new_file:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        path = path.with_name(f"{path.stem}-{stamp}-{os.getpid()}{path.suffix or '.jsonl'}")
    try:
        session_file = open(path, "x" if new_file else "a", encoding="utf-8", newline="\n")  # noqa: SIM115 (closed by relay)
    except OSError as exc:
        raise InputError(f"cannot write the session file: {exc.strerror or exc}", file=path,
                         hint="Give a FILE in a folder you can write to") from None
    try:
        if not new_file:
            _end_a_cut_line(session_file, path)
        recorder = SessionRecorder(session_file, argv, redact=redact)
    except OSError as exc:
        _close_quietly(session_file)
        raise InputError(f"cannot write the session file: {exc.strerror or exc}", file=path,
                         hint="Free some space or give a FILE on another disk") from None
    recorder.where = str(path)
    return session_file, recorder


def _end_a_cut_line(session_file: IO[str], path: Path) -> None:
    """A previous session killed mid-line left no newline at the end: start on a line of
    our own, or the new header would be glued to that cut line."""
    try:
        size = path.stat().st_size
        if size == 0 or not path.is_file():
            return
        with path.open("rb") as handle:
            handle.seek(size - 1)
            last = handle.read(1)
    except OSError:
        return
    if last != b"\n":
        session_file.write("\n")


def _close_quietly(stream: IO[str]) -> None:
    with contextlib.suppress(OSError):
        stream.close()  # a full disk fails the last flush; it was reported when it happened


class _Group:
    """The server's process group, and the relay's promise to end it.

    Every path out (the server exits, the client leaves, a signal) ends with the whole
    group killed, so nothing the server started survives the relay."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.terminated_at: float | None = None
        self.signals = 0

    def catch_signals(self) -> None:
        """SIGTERM/SIGINT/SIGHUP to the relay end the server's group (a second one: at once)."""
        def stop(signum: int, frame: Any) -> None:
            self.signals += 1
            self.send(signal.SIGKILL if self.signals > 1 else signal.SIGTERM)

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            # ValueError: not the main thread (in-process use), so leave the handlers as they are
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, stop)

    def send(self, sig: int) -> None:
        if sig == signal.SIGTERM and self.terminated_at is None:
            self.terminated_at = time.monotonic()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def wait(self, client_gone: threading.Event) -> int:
        """Wait for the server to exit, ending it when the client is gone or after SIGTERM
        was ignored; return its exit status."""
        from toolscore_mcp.stdio import wait_exit

        gone_at: float | None = None
        while not wait_exit(self.process, 0.2):
            now = time.monotonic()
            if client_gone.is_set() and gone_at is None:
                gone_at = now
            if gone_at is not None and self.terminated_at is None and now - gone_at >= EOF_GRACE_SECONDS:
                _note("the server ignored the end of its input; stopping it")
                self.send(signal.SIGTERM)
            if self.terminated_at is not None and now - self.terminated_at >= TERM_GRACE_SECONDS:
                self.send(signal.SIGKILL)
        self.send(signal.SIGKILL)  # whatever the server left behind in its group
        code = self.process.returncode
        return code if code is not None else 1


def _die_with_relay() -> Any:
    """A pre-exec step that has Linux SIGKILL the server when the relay dies, or ``None``.

    Why: a relay killed with SIGKILL (no handler runs) would leave its server, which sits in
    a session of its own, running until it next writes; with the parent-death signal the
    kernel ends it the moment the relay is gone. The libc function is looked up here, in the
    parent, so the child only makes one system call between fork and exec."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def arm() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)

    return arm


def _client_to_server(stdin_fd: int, process: subprocess.Popen[bytes], recorder: SessionRecorder,
                      client_gone: threading.Event) -> None:
    assert process.stdin is not None
    try:
        _pump(stdin_fd, process.stdin.fileno(), "c2s", recorder)
    finally:
        with contextlib.suppress(OSError):
            process.stdin.close()  # the client is done: tell the server the same way
        client_gone.set()


def _pump(source: int, destination: int, direction: str, recorder: SessionRecorder) -> None:
    """Copy ``source`` to ``destination`` chunk by chunk, recording lines.

    Client lines are recorded before the chunk that completes them is forwarded (see the
    module docstring); server lines are forwarded first, so recording never delays an
    answer. A line longer than MAX_RECORDED_LINE is forwarded but not recorded."""
    record_first = direction == "c2s"
    pending = bytearray()
    skipping = 0  # bytes of an over-long line seen so far
    forwarding = True
    while True:
        try:
            chunk = os.read(source, CHUNK)
        except OSError:
            break
        if not chunk:
            break
        lines: list[bytes] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start : end + 1]
            if skipping or len(pending) + len(piece) > MAX_RECORDED_LINE:
                skipping += len(pending) + len(piece)
                pending.clear()
                if end >= 0:
                    _note(f"a {'client' if record_first else 'server'} line of {skipping:,} bytes was relayed "
                          f"but not recorded (over {MAX_RECORDED_LINE:,} bytes)")
                    skipping = 0
            elif end >= 0:
                lines.append(bytes(pending + piece) if pending else piece)
                pending.clear()
            else:
                pending += piece
            if end < 0:
                break
            start = end + 1
        if record_first:
            for line in lines:
                _record(recorder, direction, line)
        if forwarding:
            try:
                _write_all(destination, chunk)
            except OSError:
                forwarding = False  # the other side is gone; keep recording what still arrives
                _note(f"{'server' if direction == 'c2s' else 'client'} stopped reading")
                if direction == "c2s":
                    break
        if not record_first:
            for line in lines:
                _record(recorder, direction, line)
    if pending:
        _record(recorder, direction, bytes(pending))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


_warned = threading.Event()


def _record(recorder: SessionRecorder, direction: str, line: bytes) -> None:
    """A recording problem is reported once and never stops the relay."""
    try:
        recorder.line(direction, line)
    except OSError as exc:
        if not _warned.is_set():
            _warned.set()
            _note(f"cannot write the session file {recorder.where}: {exc.strerror or exc}; "
                  "relaying continues, the rest of this session is not recorded")
    except Exception as exc:
        if not _warned.is_set():
            _warned.set()
            _note(f"could not record a message ({type(exc).__name__}: {exc}); relaying continues")


def _note(text: str) -> None:
    try:
        sys.stderr.write(f"toolscore mcp record: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
