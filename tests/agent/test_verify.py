"""Build verification: serverInfo checks (exact or /regex/), the version command (no shell,
a timeout, output made safe), the row's build_check and the doctor's wording, against the
real sample server and the real pinned npm memory server; a mismatch stops a study before
any model call."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent.model import VerifySpec
from toolscore_agent.spec import load_agent_spec
from toolscore_agent.verify import (
    OUTPUT_LIMIT,
    BuildMismatch,
    check_build,
    run_version_command,
    verify_server,
)
from toolscore_core import ToolscoreError

ROOT = Path(__file__).resolve().parents[2]
PY = shlex.quote(sys.executable)
MEMORY_INFO = {"name": "memory-server", "version": "2.0.1"}


def printing(text: str) -> str:
    """A version command that prints ``text`` (run without a shell, by our interpreter)."""
    return f"{PY} -c {shlex.quote(f'print({text!r})')}"


# --- serverInfo ----------------------------------------------------------------------------------


def test_exact_name_and_version_read_as_the_doctor_prints_them() -> None:
    result = check_build(VerifySpec(server_name="memory-server", server_version="2.0.1"), MEMORY_INFO)
    assert result.ok
    assert result.describe() == "server_name 'memory-server' matches; server_version '2.0.1'"
    assert result.as_dict() == {
        "server_name": {"expected": "memory-server", "actual": "memory-server", "ok": True},
        "server_version": {"expected": "2.0.1", "actual": "2.0.1", "ok": True},
    }


def test_a_value_written_between_slashes_is_a_searched_regex() -> None:
    result = check_build(VerifySpec(server_name="/^memory-/", server_version="/^2\\./"), MEMORY_INFO)
    assert result.ok and result.lines() == ["server_name 'memory-server' matches /^memory-/",
                                            "server_version '2.0.1' matches /^2\\./"]
    assert not check_build(VerifySpec(server_version="/^3\\./"), MEMORY_INFO, raise_on_mismatch=False).ok
    # exact means exact: a prefix is not a match
    assert not check_build(VerifySpec(server_version="2.0"), MEMORY_INFO, raise_on_mismatch=False).ok


def test_a_mismatch_raises_build_mismatch_naming_expected_and_actual() -> None:
    with pytest.raises(BuildMismatch) as caught:
        check_build(VerifySpec(server_name="memory-server", server_version="2.0.1"),
                    {"name": "memory-server", "version": "2.0.2"}, "2025-11-25", "handshake")
    error = caught.value
    assert isinstance(error, ToolscoreError) and error.exit_code == 2
    assert "server_version expected '2.0.1', the server said '2.0.2'" in str(error)
    assert "no model was called" in str(error)
    assert error.check is not None and error.check.protocol_version == "2025-11-25"
    assert error.check.as_dict()["server_version"] == {"expected": "2.0.1", "actual": "2.0.2", "ok": False}
    assert error.check.as_dict()["server_name"]["ok"] is True


def test_a_server_that_reports_nothing_fails_the_check_and_says_so() -> None:
    result = check_build(VerifySpec(server_name="memory-server"), {}, raise_on_mismatch=False)
    assert not result.ok and result.lines() == ["server_name expected 'memory-server', the server said nothing "
                                                "(no serverInfo)"]
    assert result.as_dict()["server_name"]["actual"] is None


def test_hostile_server_info_is_made_visible_and_bounded() -> None:
    info = {"name": "memory-server\x1b[2J\r\n", "version": "9" * 1000}
    result = check_build(VerifySpec(server_name="memory-server", server_version="2.0.1"), info,
                         raise_on_mismatch=False)
    name, version = result.checks
    assert name.actual == "memory-server\\x1b[2J\\r\\n" and "\x1b" not in result.describe()
    assert version.actual is not None and len(version.actual) <= 200


def test_nothing_to_verify_is_no_check_at_all() -> None:
    assert check_build(None, MEMORY_INFO).checks == ()
    assert check_build(VerifySpec(), MEMORY_INFO).describe() == "nothing to verify"
    assert verify_server(None, object()) is None


# --- the version command ------------------------------------------------------------------------


def test_the_command_output_is_trimmed_and_matched_against_expect() -> None:
    ok, output = run_version_command(VerifySpec(command=printing("  2.0.1\n"), expect="^2\\.0\\.1$"))
    assert (ok, output) == (True, "2.0.1")
    ok, output = run_version_command(VerifySpec(command=printing("2.0.10"), expect="^2\\.0\\.1$"))
    assert (ok, output) == (False, "2.0.10")
    # searched, like grep: without anchors a part of the output is enough
    assert run_version_command(VerifySpec(command=printing("v2.0.1-beta"), expect="2\\.0\\.1"))[0]


def test_the_command_runs_without_a_shell() -> None:
    ok, output = run_version_command(VerifySpec(command="echo $HOME; echo hacked", expect="^\\$HOME; echo hacked$"))
    assert ok, output  # echo got the text as one argument each: no expansion, no second command
    assert output == "$HOME; echo hacked"


def test_a_failing_missing_or_slow_command_is_not_ok_and_says_why() -> None:
    ok, output = run_version_command(VerifySpec(command=f"{PY} -c \"import sys; sys.exit('nope')\""))
    assert not ok and output == "exit code 1: nope"
    ok, output = run_version_command(VerifySpec(command="a2-no-such-program --version"))
    assert not ok and output == "'a2-no-such-program' was not found"
    ok, output = run_version_command(VerifySpec(command=f"{PY} -c \"import time; time.sleep(5)\""), timeout=0.5)
    assert not ok and output == "no answer within 0.5 s"


def test_command_output_is_bounded_visible_and_redacted() -> None:
    ok, output = run_version_command(VerifySpec(command=printing("\x1b[31m2.0.1\x1b[0m\x07")))
    assert ok and output == "\\x1b[31m2.0.1\\x1b[0m\\x07"
    ok, output = run_version_command(VerifySpec(command=printing("x" * 10_000)))
    assert ok and len(output) == OUTPUT_LIMIT and output.endswith("...")
    key = "sk-ant-api03-" + "a1B2c3D4e5" * 6
    ok, output = run_version_command(VerifySpec(command=printing(key)))
    assert ok and key not in output


def test_the_command_check_joins_the_build_check() -> None:
    spec = VerifySpec(server_name="memory-server", command=printing("2.0.1"), expect="^2\\.0\\.1$")
    result = check_build(spec, MEMORY_INFO)
    assert result.as_dict()["command"] == {"expected": "^2\\.0\\.1$", "actual": "2.0.1", "ok": True}
    assert result.lines()[1] == f"{spec.command!r} printed '2.0.1'"
    with pytest.raises(BuildMismatch, match=re.escape("gave '2.0.2', expected")):
        check_build(VerifySpec(command=printing("2.0.2"), expect="^2\\.0\\.1$"), MEMORY_INFO)
    # a result the caller already has is used as it is (the doctor runs the command once)
    given = check_build(VerifySpec(command="never run"), {}, command_result=(True, "7.0"))
    assert given.as_dict()["command"] == {"expected": "exit code 0", "actual": "7.0", "ok": True}


# --- real servers ---------------------------------------------------------------------------------


def _started(argv: list[str]) -> Any:
    from toolscore_mcp.client import MCPStdioClient

    client = MCPStdioClient(argv)
    client.start()
    client.initialize()
    return client


def test_the_offline_example_verifies_the_bundled_sample_server() -> None:
    spec = load_agent_spec(ROOT / "examples" / "agent_harness" / "offline.yaml")
    client = _started([sys.executable, "-m", "toolscore_mcp.sample_server"])
    try:
        build = verify_server(spec.verify, client)
    finally:
        client.close()
    assert build == {"server_name": {"expected": "notes-server", "actual": "notes-server", "ok": True},
                     "server_version": {"expected": "/^1\\./", "actual": "1.0.0", "ok": True}}


def test_the_pinned_memory_server_is_the_build_the_paid_example_names() -> None:
    """serverInfo from the real npm server, and a version command reading the installed
    package (the example's `npm view` needs the network, which tests never use)."""
    servers = Path(os.environ.get("TOOLSCORE_MCP_SERVERS") or ROOT / ".cache" / "mcp-servers")
    package = servers / "node_modules" / "@modelcontextprotocol" / "server-memory"
    if not (package / "dist" / "index.js").is_file():
        pytest.fail(f"the pinned memory server is not installed at {package}: run `make servers`", pytrace=False)
    pinned = json.loads((ROOT / "tests" / "servers" / "package.json").read_text())["dependencies"][
        "@modelcontextprotocol/server-memory"]
    example = load_agent_spec(ROOT / "examples" / "agent_harness" / "memory-anthropic.yaml")
    assert example.verify is not None and example.verify.expect is not None
    local = VerifySpec(server_name=example.verify.server_name, server_version=example.verify.server_version,
                       command=f"node -p {shlex.quote('require(' + json.dumps(str(package / 'package.json')) + ').version')}",
                       expect=example.verify.expect)
    client = _started(["node", str(package / "dist" / "index.js")])
    try:
        build = verify_server(local, client)
        wrong = VerifySpec(server_name="memory-server", server_version="2.0.1")
        with pytest.raises(BuildMismatch, match=re.escape("server_version expected '2.0.1', the server said '0.6.3'")):
            verify_server(wrong, client)
    finally:
        client.close()
    assert build is not None and all(check["ok"] for check in build.values()), build
    assert build["command"]["actual"] == pinned
    assert build["server_name"]["actual"] == "memory-server"


def test_a_study_whose_build_does_not_match_stops_before_any_model_call(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    spec = load_agent_spec({
        "name": "wrong-build", "server": {"command": [sys.executable, "-m", "toolscore_mcp.sample_server"]},
        "verify": {"server_name": "memory-server"}, "provider": "scripted", "arms": [{"id": "a"}],
        "tasks": [{"id": "t", "prompt": "p", "expected": [{"tool": "list_notes"}], "script": [{"text": "x"}]}]})
    made: list[Any] = []

    def factory(arm: Any, task: Any) -> Any:
        made.append((arm, task))
        raise AssertionError("no provider may be made before the build is verified")

    with pytest.raises(BuildMismatch, match="server_name expected 'memory-server', the server said 'notes-server'"):
        run_study(spec, output=tmp_path / "runs.jsonl", provider_factory=factory)
    assert made == []
    assert not (tmp_path / "runs.jsonl").exists() or (tmp_path / "runs.jsonl").read_text() == ""
