"""No credential from a server's command line, URL, stderr or schema reaches our output.

Real processes end to end: ``toolscore mcp list / lint / test`` run as subprocesses against
a server of ours that dies at start-up quoting its secret-laden argv on stderr, against an
HTTP URL with a password and a ``?key=`` on a closed port, both given directly and through
``--config``; and ``mcp test`` against a server whose schema holds keys in ``const`` /
``enum`` / ``default``, in every report format, while the calls still carry the real values.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
TOOLSCORE = [sys.executable, "-c", "from toolscore_core.cli import main; main()"]
SECRET_ARGV_SERVER = SERVERS / "secret_argv_server.py"
SECRET_SCHEMA_SERVER = SERVERS / "secret_schema_server.py"

# Fake but format-valid credentials, built by concatenation (no key-shaped literal here).
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PLAIN_KEY = "plain" + "secret99"
PASSWORD = "hunter" + "2pw"
QUERY_KEY = "qk3y" + "value"


def free_port() -> int:
    """A port nothing listens on (bound, read, released): connecting to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def toolscore(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOOLSCORE, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def server_argv() -> list[str]:
    return [sys.executable, str(SECRET_ARGV_SERVER), "--token", GITHUB, f"--api-key={PLAIN_KEY}",
            "--password", PASSWORD]


def assert_nothing_leaked(done: subprocess.CompletedProcess[str], *secrets: str) -> str:
    shown = done.stdout + done.stderr
    for secret in secrets:
        assert secret not in shown, shown
    return shown


@pytest.mark.parametrize("command", ["list", "lint", "test"])
def test_a_server_dying_with_secrets_on_its_command_line_and_stderr(command: str) -> None:
    done = toolscore("mcp", command, "--timeout", "20", "--", *server_argv())
    assert done.returncode == 2
    shown = assert_nothing_leaked(done, GITHUB, PLAIN_KEY, PASSWORD)
    assert "exited with code 3" in shown
    assert "ghp_…R8" in shown  # the redacted preview names which key it was
    assert "--api-key=…" in shown and "?key=…&page=1" in shown  # from argv and from stderr


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    command, *args = server_argv()
    path.write_text(json.dumps({"mcpServers": {
        "dies": {"command": command, "args": args},
        "web": {"url": f"http://bob:{PASSWORD}@127.0.0.1:{free_port()}/mcp?key={QUERY_KEY}&x=1"},
    }}), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["list", "lint", "test"])
def test_the_same_server_through_a_config_file(command: str, config_file: Path) -> None:
    done = toolscore("mcp", command, "--config", str(config_file), "--server", "dies", "--timeout", "20")
    assert done.returncode == 2
    shown = assert_nothing_leaked(done, GITHUB, PLAIN_KEY, PASSWORD)
    assert "ghp_…R8" in shown


@pytest.mark.parametrize("command", ["list", "lint", "test"])
def test_a_refused_http_url_is_named_without_its_password_or_key(command: str, config_file: Path) -> None:
    url = f"http://bob:{PASSWORD}@127.0.0.1:{free_port()}/mcp?key={QUERY_KEY}&access_token={PLAIN_KEY}"
    for args in ([url], ["--config", str(config_file), "--server", "web"]):
        done = toolscore("mcp", command, *args, "--timeout", "5")
        assert done.returncode == 2
        shown = assert_nothing_leaked(done, PASSWORD, QUERY_KEY, PLAIN_KEY)
        assert "connection refused" in shown
        assert "http://bob:…@127.0.0.1:" in shown and "?key=…" in shown


SCHEMA_SECRETS = ("Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2", "ZZZZQQQQ7EXAMPLE", "pa55w0rd", "k3yv4lu3")


@pytest.mark.parametrize("report", ["console", "json", "md", "html"])
def test_scenario_arguments_from_a_schema_are_redacted_in_every_report(report: str, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    args = ["mcp", "test", "--timeout", "20"]
    output = tmp_path / f"card.{report}"
    if report != "console":
        args += ["--report", report, "-o", str(output)]
    done = toolscore(*args, "--", sys.executable, str(SECRET_SCHEMA_SERVER), env={"SECRET_SCHEMA_LOG": str(log)})
    assert done.returncode in (0, 1), done.stderr
    written = done.stdout + done.stderr + (output.read_text(encoding="utf-8") if report != "console" else "")
    for secret in SCHEMA_SECRETS:
        assert secret not in written, (secret, report)
    if report == "json":
        record = json.loads(output.read_text(encoding="utf-8"))
        shown_args = [r["scenario"]["args"] for r in record["results"]]
        assert {"token": "ghp_…8B"}.items() <= shown_args[0].items()
    # the server itself received the real const value: redaction is for the report only
    sent = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert any(call.get("token", "").startswith("ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2") for call in sent)
