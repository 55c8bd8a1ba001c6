"""Warm start: ``python -m server`` children forked from a waiting interpreter.

Why it exists: an agent study starts a fresh server for every run (each run gets its own
``{run_dir}`` and its own server state), and on a small machine a fresh Python interpreter
costs more CPU than the whole run around it: about 16 ms to start Python, 9 ms to import
``re`` and ``json``, 3 ms for ``runpy``, before the server has read one line. A child forked
from an interpreter that already did all that skips it: the bundled sample server's whole run
fell from about 45 to about 11 ms of CPU (bench/RESULTS.md). So for a server written
``python -m module ...`` in the same Python as Toolscore, a study can start one *zygote* (a
small interpreter that imported a few standard-library modules and then waits), and have it
fork each server:

* the child is a new process in its own session (``os.setsid``), so ``killpg`` ends it and
  whatever it spawned, exactly as for a server started with ``subprocess``;
* its stdin, stdout and stderr are pipes the caller made (passed with ``SCM_RIGHTS``); its
  environment, working directory and ``sys.argv`` are the ones asked for;
* the module runs with :func:`runpy.run_module` as ``__main__``, so the server's own module
  state is new in every child; only standard-library modules are preloaded, never the
  server's module, so nothing of the server's runs before the fork;
* the zygote reaps each child and reports its exit status, so :class:`WarmProcess` answers
  ``poll`` / ``wait`` like :class:`subprocess.Popen` (a negative code is a signal).

What differs from a real exec, and why it is safe to ignore or refused: the child shares
the zygote's hash seed (set and dict order are the same in every child, which only makes
runs more alike) and its interpreter flags; a child whose environment changes a ``PYTHON*``
variable (which Python reads only at start-up) is not started warm (see
:func:`warm_module`). If the zygote dies, :meth:`WarmLauncher.spawn` falls back to an
ordinary :class:`subprocess.Popen`, so a broken zygote costs speed, never a run.

This module imports only the standard library: the zygote runs it, and every module it
imports is already in each server's ``sys.modules``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

#: Standard-library modules the zygote imports once so that no child pays for them.
PRELOAD = ("json", "re", "typing", "contextlib", "collections", "functools", "enum", "dataclasses", "runpy")
#: How long a spawn request may wait for the zygote's answer (a fork takes milliseconds).
REPLY_SECONDS = 10.0
#: Largest control message (a request carries the child's whole environment).
_MAX_MESSAGE = 4 * 1024 * 1024
_PYTHON_NAMES = ("python", "python3")


def warm_module(argv: Sequence[str], env: Mapping[str, str] | None, python: str = sys.executable) -> str | None:
    """The module a command runs when it can be started warm, else ``None``.

    Only ``<this python> -m module [args...]`` qualifies (``python``/``python3`` count as this
    Python, as a spec means them), with no interpreter option before ``-m``, and an
    environment that changes no ``PYTHON*`` variable (Python reads those before any code
    runs, so a forked child could not honour them).
    """
    if len(argv) < 3 or argv[1] != "-m" or not argv[2] or argv[2].startswith("-"):
        return None
    program = argv[0]
    if program not in _PYTHON_NAMES and os.path.realpath(program) != os.path.realpath(python):
        return None
    if env and any(name.startswith("PYTHON") and os.environ.get(name) != value for name, value in env.items()):
        return None
    return argv[2]


class WarmProcess:
    """A forked server as :class:`subprocess.Popen` shows one: pid, pipes, poll, wait, signals."""

    def __init__(self, pid: int, args: list[str], stdin: IO[bytes], stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self.pid = pid
        self.args = args
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self._exited = threading.Event()

    def _set_exit(self, code: int) -> None:
        self.returncode = code
        self._exited.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._exited.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # never signal a pid that may already be another process's
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class WarmLauncher:
    """One zygote and the children it forked; :meth:`spawn` is thread-safe.

    Close it when the study ends (or use it as a context manager): the zygote exits and
    children still running are left to their own clients, which close them.
    """

    def __init__(self, python: str = sys.executable, preload: Sequence[str] = PRELOAD) -> None:
        self.python = python
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._zygote = subprocess.Popen(
                [python, "-m", __name__, str(theirs.fileno()), ",".join(preload)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), start_new_session=True, cwd="/")
        finally:
            theirs.close()
        self._socket = ours
        self._send_lock = threading.Lock()
        self._state = threading.Condition()
        self._replies: dict[int, dict[str, Any]] = {}
        self._children: dict[int, WarmProcess] = {}
        self._early_exits: dict[int, int] = {}
        self._next_id = 0
        self._broken = False
        self._reader = threading.Thread(target=self._read, name="toolscore-warm-start", daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        return not self._broken and self._zygote.poll() is None

    def spawn(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
              fallback: bool = True) -> WarmProcess | subprocess.Popen[bytes]:
        """Start ``argv`` (which :func:`warm_module` accepted) with pipes for its stdio.

        ``env`` is the child's whole environment (``None``: this process's). When the zygote
        is gone, an ordinary :class:`subprocess.Popen` is returned instead (``fallback``).
        """
        args = [str(part) for part in argv]
        module = warm_module(args, env, self.python)
        if module is None:
            raise ValueError(f"not a warm-startable command: {args!r}")
        if self.alive:
            try:
                return self._fork(module, args, env, cwd)
            except OSError:
                self._broken = True
        if not fallback:
            raise OSError("the warm-start zygote is not running")
        return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=dict(env) if env is not None else None, cwd=cwd, start_new_session=True)

    def _fork(self, module: str, args: list[str], env: Mapping[str, str] | None, cwd: str | None) -> WarmProcess:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            with self._state:
                self._next_id += 1
                request_id = self._next_id
            request = {"id": request_id, "module": module, "argv": args[3:],
                       "env": dict(os.environ if env is None else env), "cwd": os.path.abspath(cwd or os.getcwd())}
            payload = json.dumps(request).encode("utf-8") + b"\n"
            with self._send_lock:  # the descriptors ride on the first chunk; a long env may need more
                sent = socket.send_fds(self._socket, [payload], [in_r, out_w, err_w])
                if sent < len(payload):
                    self._socket.sendall(payload[sent:])
        except OSError:
            for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
                os.close(fd)
            raise
        for fd in (in_r, out_w, err_w):  # the zygote holds its own copies now
            os.close(fd)
        try:
            reply = self._await_reply(request_id)
        except OSError:
            for fd in (in_w, out_r, err_r):
                os.close(fd)
            raise
        if "pid" not in reply:
            for fd in (in_w, out_r, err_r):
                os.close(fd)
            raise OSError(reply.get("error", "the warm-start zygote refused the request"))
        pid = int(reply["pid"])
        # Unbuffered, like ``Popen(bufsize=0)``: the stdio client reads and writes whole chunks.
        process = WarmProcess(pid, args, os.fdopen(in_w, "wb", buffering=0), os.fdopen(out_r, "rb", buffering=0),
                              os.fdopen(err_r, "rb", buffering=0))
        with self._state:
            self._children[pid] = process
            early = self._early_exits.pop(pid, None)
        if early is not None:
            process._set_exit(early)
        return process

    def _await_reply(self, request_id: int) -> dict[str, Any]:
        """The zygote's answer to one request; a zygote that stops, or is silent for
        :data:`REPLY_SECONDS`, is broken (the caller falls back to an ordinary start)."""
        deadline = time.monotonic() + REPLY_SECONDS
        with self._state:
            while request_id not in self._replies:
                left = deadline - time.monotonic()
                if self._broken or left <= 0:
                    self._broken = True
                    raise OSError("the warm-start zygote stopped answering")
                self._state.wait(min(1.0, left))
            return self._replies.pop(request_id)

    def _read(self) -> None:
        buffer = b""
        try:
            while True:
                chunk = self._socket.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self._dispatch(json.loads(line))
        except (OSError, ValueError):
            pass
        finally:
            with self._state:
                self._broken = True
                orphans = [child for child in self._children.values() if child.returncode is None]
                self._state.notify_all()
            for child in orphans:
                _watch_orphan(child)

    def _dispatch(self, message: dict[str, Any]) -> None:
        with self._state:
            if "exited" in message:
                pid, code = int(message["exited"]), int(message["code"])
                child = self._children.pop(pid, None)
                if child is None:  # the exit overtook the reply to the spawn request
                    self._early_exits[pid] = code
                else:
                    child._set_exit(code)
            else:
                self._replies[int(message["id"])] = message
                self._state.notify_all()

    def close(self) -> None:
        """Stop the zygote (its children are not touched) and wait for it briefly."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._socket.close()
        try:
            self._zygote.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self._zygote.kill()
            self._zygote.wait()
        self._reader.join(timeout=2.0)

    def __enter__(self) -> WarmLauncher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _watch_orphan(child: WarmProcess) -> None:
    """The zygote died before reporting ``child``'s exit: learn it by polling the pid."""

    def watch() -> None:
        while True:
            try:
                os.kill(child.pid, 0)
            except (ProcessLookupError, PermissionError):  # gone (or the pid is someone else's now)
                child._set_exit(-signal.SIGKILL)
                return
            time.sleep(0.05)

    threading.Thread(target=watch, name="toolscore-warm-orphan", daemon=True).start()


# --- the zygote ------------------------------------------------------------------------------


def _zygote(control_fd: int, preload: Sequence[str]) -> None:
    """Serve spawn requests until the launcher closes its end of the socket.

    One request is one JSON line sent with three descriptors (the child's stdin, stdout and
    stderr). The stream may deliver several requests, or part of one, per ``recv``; the
    descriptors arrive in the order they were sent, so each complete line takes the next three.
    """
    import importlib
    import selectors

    for name in preload:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    import gc

    gc.freeze()  # the collector never walks (and so never copies) the pages children share
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w.fileno())
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, "control")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    private = [control, wake_r, wake_w, selector]
    buffer = b""
    fds: list[int] = []
    while True:
        for key, _ in selector.select():
            if key.data == "wake":
                with contextlib.suppress(BlockingIOError):
                    wake_r.recv(4096)
                continue
            data, new_fds, _flags, _addr = socket.recv_fds(control, 65536, 16)
            if not data:
                return
            buffer += data
            fds.extend(new_fds)
            if len(buffer) > _MAX_MESSAGE:
                return
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                stdio, fds = fds[:3], fds[3:]
                _fork_one(control, json.loads(line), stdio, private)
        _reap(control)


def _fork_one(control: socket.socket, request: dict[str, Any], stdio: list[int], private: list[Any]) -> None:
    """Fork the child for ``request``, tell the launcher its pid, drop our copies of its pipes."""
    try:
        if len(stdio) != 3:
            raise OSError("a spawn request arrived without its three pipes")
        pid = os.fork()
    except OSError as exc:
        _send(control, {"id": request.get("id"), "error": f"cannot fork the server: {exc}"})
    else:
        if pid == 0:
            _become_server(request, stdio, private)  # never returns
        _send(control, {"id": request.get("id"), "pid": pid})
    for fd in stdio:
        with contextlib.suppress(OSError):
            os.close(fd)


def _become_server(request: dict[str, Any], stdio: list[int], private: list[Any]) -> None:
    """In the child: take the pipes, the session, env, cwd and argv, run the module, exit."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for thing in private:
            thing.close()
        os.setsid()
        for target, fd in enumerate(stdio):  # 0, 1, 2: stdin, stdout, stderr
            os.dup2(fd, target)
        for fd in stdio:
            if fd > 2:
                os.close(fd)
        cwd = str(request["cwd"])
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})
        sys.path[0] = cwd  # what ``python -m`` puts first
        module = str(request["module"])
        sys.argv = [module, *[str(arg) for arg in request["argv"]]]
        code = _run_as_main(module)
    finally:
        os._exit(code)


def _run_as_main(module: str) -> int:
    """Run ``module`` as ``python -m`` would and return the exit code a fresh Python would give."""
    import atexit
    import runpy
    import traceback

    code = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # the server crashed: show its traceback on its stderr, as Python would
        traceback.print_exc()
        code = 1
    shutdown = getattr(threading, "_shutdown", None)  # join non-daemon threads, as at a normal exit
    with contextlib.suppress(BaseException):
        if shutdown is not None:
            shutdown()
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return code & 0xFF


def _reap(control: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(control, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        control.sendall(json.dumps(message).encode("utf-8") + b"\n")


if __name__ == "__main__":
    _zygote(int(sys.argv[1]), [name for name in sys.argv[2].split(",") if name])
