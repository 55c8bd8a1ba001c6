"""``toolscore mcp record -o FILE -- CMD ARGS...``: a transparent stdio relay that records.

Put it in front of any stdio server, for example as the ``command`` of a Claude Desktop
config entry (``"command": "toolscore", "args": ["mcp", "record", "-o", "/tmp/s.jsonl",
"--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"]``). Our stdin and
stdout ARE the protocol: every chunk read from one side is written to the other side
unchanged before anything else happens (binary-safe: invalid UTF-8, CRLF, a final line
without a newline all pass through as they were). Lines are then parsed on the side and
recorded by :class:`~toolscore_mcp.recorder.SessionRecorder`. The server's stderr is
passed through to ours; our own diagnostics go to stderr only.

Raw file descriptors (``os.read``/``os.write``) rather than ``sys.stdin``: a thread blocked
in a buffered read holds the buffer's lock and can abort interpreter shutdown.

Exit code: the server's (128 + N if a signal N ended it). When the client closes our
stdin, the server's stdin is closed too; a server that ignores that is stopped after a
grace period so the relay never outlives its client.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

import click

from toolscore_core.cli import run_command

if TYPE_CHECKING:
    from toolscore_mcp.recorder import SessionRecorder

CHUNK = 65536
EOF_GRACE_SECONDS = 5.0


@click.command("record", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100,
                                           "ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Session file to write (JSON Lines; .json or .jsonl).")
@click.option("--no-redact", is_flag=True, help="Keep credentials found in arguments and results (default: redacted).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
@run_command
def record_command(output: str, no_redact: bool, command: tuple[str, ...]) -> None:
    """Relay a stdio MCP server byte for byte and record every tool call to FILE.

    \b
    Examples:
      toolscore mcp record -o session.json -- npx -y @modelcontextprotocol/server-filesystem ./acme-api
      toolscore eval gold.json session.json          score what the agent did

    Credentials in arguments and results (API keys, tokens, private keys) are written as a
    preview (AKIA…LE) unless --no-redact. Exit code: the server's.
    """
    raise SystemExit(relay(list(command), output, redact=not no_redact))


def relay(argv: list[str], output: str, *, redact: bool = True, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Run the server ``argv`` between ``stdin_fd``/``stdout_fd`` and ``output``; return its exit code."""
    from toolscore_core.kernel.errors import InputError
    from toolscore_mcp.recorder import SessionRecorder

    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise InputError("no server command to relay", hint="Put it after --, e.g. toolscore mcp record -o s.json -- node server.js")
    if os.sep not in argv[0] and shutil.which(argv[0]) is None:
        raise InputError(f"cannot start the server: command not found: {argv[0]}",
                         hint="Check the spelling, install it, or give its full path")
    try:
        session_file = open(output, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise InputError(f"cannot write the session file: {exc.strerror or exc}", file=output) from None
    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    except OSError as exc:
        session_file.close()
        raise InputError(f"cannot start the server {argv[0]!r}: {exc.strerror or exc}") from None
    assert process.stdin is not None and process.stdout is not None
    recorder = SessionRecorder(session_file, argv, redact=redact)
    _forward_signals(process)
    to_server = threading.Thread(
        target=_client_to_server, args=(stdin_fd, process, recorder), name="relay-c2s", daemon=True)
    to_server.start()
    _pump(process.stdout.fileno(), stdout_fd, "s2c", recorder)
    code = process.wait()
    process.stdout.close()
    session_file.close()
    return 128 - code if code < 0 else code


def _forward_signals(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM/SIGINT/SIGHUP to the relay stop the server; the relay then exits with its code."""
    def stop(signum: int, frame: Any) -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        # ValueError: not the main thread (in-process use), so leave the handlers as they are
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, stop)


def _client_to_server(stdin_fd: int, process: subprocess.Popen[bytes], recorder: SessionRecorder) -> None:
    assert process.stdin is not None
    _pump(stdin_fd, process.stdin.fileno(), "c2s", recorder)
    with contextlib.suppress(OSError):
        process.stdin.close()  # the client is done: tell the server the same way
    try:
        process.wait(timeout=EOF_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        _note("the server ignored the end of its input; stopping it")
        process.terminate()
        try:
            process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            process.kill()


def _pump(source: int, destination: int, direction: str, recorder: SessionRecorder) -> None:
    """Copy ``source`` to ``destination`` chunk by chunk (forward first), recording lines."""
    pending = bytearray()
    forwarding = True
    while True:
        try:
            chunk = os.read(source, CHUNK)
        except OSError:
            break
        if not chunk:
            break
        if forwarding:
            try:
                _write_all(destination, chunk)
            except OSError:
                forwarding = False  # the other side is gone; keep recording what still arrives
                _note(f"{'server' if direction == 'c2s' else 'client'} stopped reading")
                if direction == "c2s":
                    break
        pending += chunk
        while True:
            end = pending.find(b"\n")
            if end < 0:
                break
            _record(recorder, direction, bytes(pending[: end + 1]))
            del pending[: end + 1]
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
