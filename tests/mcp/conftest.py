"""Real MCP servers for the MCP tests: the pinned npm reference servers, a Python server on
the official SDK (2026-07-28 era), and our own misbehaving servers.

The npm servers live in $TOOLSCORE_MCP_SERVERS (default <repo>/.cache/mcp-servers, filled
by ``make servers``). When they are missing the tests FAIL with that instruction: a
silently skipped MCP suite would look green while testing nothing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# server-everything's gzip tool downloads a default URL from the internet unless this is
# set; every server these tests start inherits it, so nothing ever leaves the machine.
os.environ.setdefault("GZIP_ALLOWED_DOMAINS", "127.0.0.1")

# Every process these tests start inherits this tag (servers, and whatever the servers start),
# so after each test module the leftover check below finds them by it, whatever their names.
LEFTOVER_TAG = "TOOLSCORE_TEST_SESSION"
os.environ[LEFTOVER_TAG] = f"{os.getpid()}-{time.time_ns()}"
#: Set for the session-scoped servers, which are meant to outlive a module.
LONG_LIVED_TAG = "TOOLSCORE_TEST_LONG_LIVED"

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
PY_MODERN = SERVERS / "py_modern_server.py"
MISBEHAVING = SERVERS / "misbehaving_server.py"
BIND_LOCALHOST = SERVERS / "bind_localhost.cjs"


def servers_root() -> Path:
    return Path(os.environ.get("TOOLSCORE_MCP_SERVERS") or REPO / ".cache" / "mcp-servers")


def npm_server_entry(name: str) -> Path:
    """dist/index.js of @modelcontextprotocol/server-NAME, or fail with how to install it."""
    entry = servers_root() / "node_modules" / "@modelcontextprotocol" / f"server-{name}" / "dist" / "index.js"
    if not entry.is_file():
        pytest.fail(
            f"the MCP reference server {name!r} is not installed at {entry}: run `make servers` "
            "(or set TOOLSCORE_MCP_SERVERS to the folder holding node_modules)",
            pytrace=False,
        )
    return entry


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_gone(pid: int) -> bool:
    """True when no process (not even a zombie) has this pid."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def _wait_for_port(process: subprocess.Popen[bytes], port: int, what: str, log: Path, limit: float = 20.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = log.read_text(errors="replace")
            pytest.fail(f"{what} exited with {process.returncode} before listening: {err[-500:]}", pytrace=False)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    _stop(process)
    pytest.fail(f"{what} did not listen on 127.0.0.1:{port} within {limit} s", pytrace=False)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _start_http_server(argv: list[str], env: dict[str, str], port: int, what: str, log: Path) -> subprocess.Popen[bytes]:
    """Start an HTTP server process (stderr to a log file, never a pipe that could fill)."""
    with log.open("wb") as stderr:
        process = subprocess.Popen(argv, env={**env, LONG_LIVED_TAG: "1"}, stdin=subprocess.DEVNULL, stdout=stderr,
                                   stderr=stderr)
    _wait_for_port(process, port, what, log)
    return process


@pytest.fixture(scope="session")
def memory_server() -> Path:
    return npm_server_entry("memory")


@pytest.fixture
def memory_command(memory_server: Path, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """argv and env of server-memory with its store in a temporary file."""
    return ["node", str(memory_server)], {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}


@pytest.fixture
def filesystem_command(tmp_path: Path) -> Callable[[Path], list[str]]:
    """A function: allowed directory -> argv of server-filesystem."""
    entry = npm_server_entry("filesystem")
    return lambda directory: ["node", str(entry), str(directory)]


@pytest.fixture(scope="session")
def everything_command() -> list[str]:
    return ["node", str(npm_server_entry("everything")), "stdio"]


@pytest.fixture(scope="session")
def everything_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """server-everything over Streamable HTTP, bound to 127.0.0.1 on a free port: its URL."""
    entry = npm_server_entry("everything")
    port = free_port()
    process = _start_http_server(
        ["node", "--require", str(BIND_LOCALHOST), str(entry), "streamableHttp"],
        {**os.environ, "PORT": str(port)}, port, "server-everything (streamableHttp)",
        tmp_path_factory.mktemp("everything-http") / "server.log",
    )
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def py_modern_command() -> list[str]:
    return [sys.executable, str(PY_MODERN)]


@pytest.fixture(scope="session")
def py_modern_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Python SDK server over Streamable HTTP on 127.0.0.1: its URL."""
    port = free_port()
    process = _start_http_server(
        [sys.executable, str(PY_MODERN), "--http", "--port", str(port)], dict(os.environ), port,
        "py_modern_server (streamable-http)", tmp_path_factory.mktemp("py-modern-http") / "server.log",
    )
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        _stop(process)


@pytest.fixture
def misbehaving() -> Callable[[str], list[str]]:
    """A function: mode -> argv of our misbehaving server (see its docstring)."""
    return lambda mode: [sys.executable, str(MISBEHAVING), mode]


@pytest.fixture
def is_gone() -> Callable[[int], bool]:
    """A function: pid -> True when that process has ended within 5 s: reaped, or a zombie.

    A zombie has ended; only its parent can reap it, and a grandchild killed with its group
    is re-parented to PID 1, which in a container may reap it late or never."""

    def ended(pid: int) -> bool:
        deadline = time.monotonic() + 5.0
        while True:
            if process_gone(pid) or _is_zombie(pid):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    return ended


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat_file:
            return stat_file.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture
def probe_http() -> Iterator[tuple[object, str]]:
    """Our recording Streamable HTTP server (servers/http_probe_server.py) on 127.0.0.1:
    (server, url); ``server.seen`` holds every POST's headers and body."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("http_probe_server", SERVERS / "http_probe_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server, url = module.start_probe_server()
    try:
        yield server, url
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def unused_port() -> int:
    """A 127.0.0.1 port nothing listens on (connections to it are refused)."""
    return free_port()


# --- no process left behind -------------------------------------------------------------------


def tagged_processes() -> dict[int, str]:
    """pid -> command line of every live process this test session started (not zombies,
    not the session-scoped servers), found by the tag in their environment."""
    tag = f"{LEFTOVER_TAG}={os.environ[LEFTOVER_TAG]}".encode()
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as env_file:
                environ = env_file.read().split(b"\0")
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat_file:
                state = stat_file.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{entry}/cmdline", "rb") as cmd_file:
                command = cmd_file.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, IndexError):
            continue  # gone meanwhile, or not ours to read
        if tag in environ and f"{LONG_LIVED_TAG}=1".encode() not in environ and state != "Z":
            found[int(entry)] = command
    return found


@pytest.fixture(autouse=True, scope="module")
def no_process_left_behind() -> Iterator[None]:
    """After each test module, every server (and anything a server started) has ended.

    A leftover is a bug of the code under test (a close() that leaves a process group
    running) or of a test; either way it would pile up over a CI run. A few seconds of grace
    let processes that are being reaped finish."""
    if not os.path.isdir("/proc"):
        yield
        return
    before = set(tagged_processes())
    yield
    deadline = time.monotonic() + 5.0
    left = {pid: cmd for pid, cmd in tagged_processes().items() if pid not in before}
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = {pid: cmd for pid, cmd in tagged_processes().items() if pid not in before}
    assert not left, f"processes left running after this module: {left}"
