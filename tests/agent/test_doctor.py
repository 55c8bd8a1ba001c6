"""``toolscore doctor`` through the real command line, against real servers: the paid memory
example with its key missing (fails on the key alone), a server that does not start, a
version command that prints another version, a model with no price, a key that is set (its
value appears nowhere), hostile server strings, and the JSON and plain layouts."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import load_data_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "agent_harness"
SAMPLE = [sys.executable, "-m", "toolscore_mcp.sample_server"]
ESCAPE_SERVER = ROOT / "tests" / "mcp" / "servers" / "escape_server.py"
#: Looks like nothing a redactor knows: if it shows up, the doctor printed it, not a leak filter's miss.
PLAIN_VALUE = "zebra-violet-lantern-40917"


def toolscore(*args: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "COLUMNS": "200", **(env or {})}
    for name in ("TOOLSCORE_DEBUG", *drop):
        full.pop(name, None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          env=full, timeout=120, cwd=ROOT)


def doctor_json(*args: str, **kwargs: Any) -> tuple[int, dict[str, dict[str, str]], subprocess.CompletedProcess[str]]:
    proc = toolscore("doctor", *args, "--json", **kwargs)
    rows = json.loads(proc.stdout)
    assert all(set(row) == {"check", "status", "detail"} for row in rows), rows
    return proc.returncode, {row["check"]: row for row in rows}, proc


def write_spec(path: Path, **changes: Any) -> Path:
    spec: dict[str, Any] = {
        "spec_version": 1, "name": "doctor-study", "server": {"command": SAMPLE},
        "provider": "scripted", "model": "scripted", "arms": [{"id": "one"}],
        "limits": {"max_turns": 4},
        "tasks": [{"id": "note", "prompt": "Save a note.", "expected": [{"tool": "create_note"}],
                   "script": [{"text": "done"}]}],
    }
    spec.update(changes)
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _memory_package() -> Path:
    servers = Path(os.environ.get("TOOLSCORE_MCP_SERVERS") or ROOT / ".cache" / "mcp-servers")
    package = servers / "node_modules" / "@modelcontextprotocol" / "server-memory"
    if not (package / "dist" / "index.js").is_file():
        pytest.fail(f"the pinned memory server is not installed at {package} (run `make servers`)", pytrace=False)
    return package


def local_memory_spec(tmp_path: Path) -> Path:
    """The paid example as it is, except that the server and the version command are the
    installed npm package (``npx -y`` and ``npm view`` would need the network)."""
    package = _memory_package()
    data = json.loads(json.dumps(load_data_file(EXAMPLES / "memory-anthropic.yaml")))
    data["server"]["command"] = ["node", str(package / "dist" / "index.js")]
    reader = "require(" + json.dumps(str(package / "package.json")) + ").version"
    data["verify"]["command"] = f"node -p {shlex.quote(reader)}"
    path = tmp_path / "memory-anthropic.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# --- the paid example -------------------------------------------------------------------------


def test_the_paid_example_fails_on_the_missing_key_alone(tmp_path: Path) -> None:
    code, checks, proc = doctor_json("--spec", str(local_memory_spec(tmp_path)), drop=("ANTHROPIC_API_KEY",))
    assert code == 1, proc.stderr
    assert checks["key ANTHROPIC_API_KEY"] == {"check": "key ANTHROPIC_API_KEY", "status": "fail", "detail": "not set"}
    assert checks["package anthropic"]["status"] == ("pass" if _importable("anthropic") else "fail")
    failed = {name for name, row in checks.items() if row["status"] == "fail"}
    assert failed <= {"key ANTHROPIC_API_KEY", "package anthropic"}, checks
    assert checks["price haiku"]["status"] == "pass"
    assert checks["price haiku"]["detail"].startswith("claude-haiku-5-5: $0.1 in / $0.5 out per 1M (toolscore price")
    assert checks["price sonnet"]["status"] == "pass"
    assert checks["budget"]["status"] == "pass"
    assert checks["budget"]["detail"].startswith("10 run(s); worst case $")
    assert checks["budget"]["detail"].endswith("(max_usd 2.0)")
    assert checks["server"]["status"] == "pass"
    assert checks["server"]["detail"].startswith("memory-server 0.6.3 started; 9 tool(s); MCP ")
    assert checks["build"] == {"check": "build", "status": "pass",
                               "detail": "server_name 'memory-server' matches; server_version '0.6.3'"}
    pinned = json.loads((ROOT / "tests" / "servers" / "package.json").read_text())["dependencies"][
        "@modelcontextprotocol/server-memory"]
    assert checks["version command"]["status"] == "pass"
    assert checks["version command"]["detail"].endswith(f"printed '{pinned}'")
    assert [name for name in checks][:4] == ["python", "toolscore", "spec", "contract"]


def test_the_worst_case_is_the_one_agent_run_dry_run_prints(tmp_path: Path) -> None:
    spec = str(local_memory_spec(tmp_path))
    _, checks, _ = doctor_json("--spec", spec, drop=("ANTHROPIC_API_KEY",))
    dry = toolscore("agent", "run", spec, "--dry-run", "-o", str(tmp_path / "runs.jsonl"))
    assert dry.returncode == 0, dry.stderr
    worst = checks["budget"]["detail"].split("worst case ")[1].split(" ")[0]
    assert f"worst case {worst} (max_turns 8, budget max_usd 2.0)" in dry.stdout


def test_plain_output_is_aligned_lines_without_colour(tmp_path: Path) -> None:
    proc = toolscore("doctor", "--spec", str(local_memory_spec(tmp_path)), drop=("ANTHROPIC_API_KEY",))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    key = next(line for line in lines if line.startswith("key ANTHROPIC_API_KEY"))
    assert key.split() == ["key", "ANTHROPIC_API_KEY", "fail", "not", "set"]
    # the status column starts at the same place on every line
    columns = {line.index(status) for line in lines
               for status in (" pass ", " fail ", " skip ", " warn ") if status in line[:40]}
    assert len(columns) == 1, lines
    assert "\x1b[" not in proc.stdout


# --- the server -------------------------------------------------------------------------------


def test_a_server_that_does_not_start_fails(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.json", server={"command": [sys.executable, "-c", "import sys; sys.exit(3)"],
                                                   "timeout": 10},
                      verify={"server_name": "notes-server"})
    code, checks, _ = doctor_json("--spec", str(spec))
    assert code == 1
    assert checks["server"]["status"] == "fail" and checks["server"]["detail"].startswith("did not start")
    assert checks["build"]["status"] == "skip"
    missing = write_spec(tmp_path / "m.json", server={"command": ["no-such-program-toolscore-doctor"]})
    code, checks, _ = doctor_json("--spec", str(missing))
    assert code == 1 and checks["server"]["status"] == "fail"
    assert "no-such-program-toolscore-doctor" in checks["server"]["detail"]


def test_a_version_command_that_prints_another_version_fails(tmp_path: Path) -> None:
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote('print(chr(50) + chr(46) + chr(48) + chr(46) + chr(50))')}"
    spec = write_spec(tmp_path / "s.json", verify={"server_name": "notes-server", "command": command,
                                                   "expect": "^2\\.0\\.1$"})
    code, checks, _ = doctor_json("--spec", str(spec))
    assert code == 1
    assert checks["version command"]["status"] == "fail"
    assert "gave '2.0.2', expected '^2\\\\.0\\\\.1$'" in checks["version command"]["detail"]
    assert checks["server"]["status"] == "pass" and checks["build"]["status"] == "pass"


def test_a_build_that_is_not_the_one_the_spec_names_fails(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.json", verify={"server_name": "memory-server"})
    code, checks, _ = doctor_json("--spec", str(spec))
    assert code == 1 and checks["build"]["status"] == "fail"
    assert checks["build"]["detail"] == "server_name expected 'memory-server', the server said 'notes-server'"


def test_a_bare_server_is_started_and_described() -> None:
    code, checks, _ = doctor_json("--server", shlex.join(SAMPLE))
    assert code == 0
    assert checks["spec"]["status"] == "skip" and "build" not in checks
    assert checks["server"]["detail"].startswith("notes-server 1.0.0 started; 5 tool(s); MCP ")
    code, checks, _ = doctor_json("--server", "http://127.0.0.1:9/mcp")
    assert code == 1 and checks["server"]["status"] == "fail"


def test_hostile_server_strings_are_escaped_in_every_layout() -> None:
    server = f"{shlex.quote(sys.executable)} {shlex.quote(str(ESCAPE_SERVER))}"
    for args in (("--json",), ()):
        proc = toolscore("doctor", "--server", server, *args)
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout and "\x9b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "\\x1b[2J" in proc.stdout


# --- prices, keys, files ----------------------------------------------------------------------


def test_a_model_with_no_price_fails_unless_unknown_prices_are_allowed(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.json", provider="openai-chat", model="my-local-model-9",
                      base_url="http://127.0.0.1:9/v1", max_output_tokens=100,
                      tasks=[{"id": "note", "prompt": "Save a note.", "expected": [{"tool": "create_note"}]}])
    code, checks, _ = doctor_json("--spec", str(spec))
    assert code == 1
    assert checks["price one"]["status"] == "fail"
    assert checks["price one"]["detail"].startswith("my-local-model-9: no known price; add pricing:")
    assert checks["budget"]["status"] == "unknown"
    code, checks, _ = doctor_json("--spec", str(spec), "--allow-unknown-price")
    assert checks["price one"]["status"] == "warn" and checks["budget"]["status"] == "unknown"
    assert code == 0, checks


def test_a_key_that_is_set_passes_and_its_value_is_never_shown(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.json", provider="anthropic", model="claude-haiku-5-5",
                      api_key_env="DOCTOR_TEST_KEY", max_output_tokens=100,
                      tasks=[{"id": "note", "prompt": "Save a note.", "expected": [{"tool": "create_note"}]}])
    secret = "sk-ant-api03-" + "Zq7Wm2Kp9Xr4" * 6
    env = {"DOCTOR_TEST_KEY": secret, "OTHER_TOKEN": PLAIN_VALUE}
    code, checks, proc = doctor_json("--spec", str(spec), "--key", "OTHER_TOKEN", env=env)
    assert checks["key DOCTOR_TEST_KEY"]["status"] == "pass" and checks["key DOCTOR_TEST_KEY"]["detail"] == "set"
    assert checks["key OTHER_TOKEN"]["detail"] == "set"
    assert code == (0 if _importable("anthropic") else 1), checks
    plain = toolscore("doctor", "--spec", str(spec), "--key", "OTHER_TOKEN", env=env)
    for output in (proc.stdout, proc.stderr, plain.stdout, plain.stderr):
        for value in (secret, PLAIN_VALUE):
            assert value not in output
            assert value[:8] not in output  # not even a prefix


def test_a_value_given_where_a_key_name_belongs_is_not_echoed() -> None:
    code, checks, proc = doctor_json("--key", PLAIN_VALUE)
    assert code == 1 and checks["key"]["status"] == "fail"
    assert "NAME of the variable" in checks["key"]["detail"]
    assert PLAIN_VALUE not in proc.stdout + proc.stderr


def test_a_spec_error_fails_with_its_key_path(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.json", repetitions="three")
    code, checks, proc = doctor_json("--spec", str(spec))
    assert code == 1, proc.stderr
    assert checks["spec"]["status"] == "fail"
    assert "s.json" in checks["spec"]["detail"] and "$.repetitions" in checks["spec"]["detail"]
    assert "Traceback" not in proc.stderr and "server" in checks  # the other checks still ran


def test_the_contract_file_is_checked(tmp_path: Path) -> None:
    good = tmp_path / "gold.json"
    good.write_text(json.dumps([{"tool": "create_note", "args": {"title": "x"}}]), encoding="utf-8")
    code, checks, _ = doctor_json("--contract", str(good))
    assert code == 0 and checks["contract"]["status"] == "pass"
    assert checks["contract"]["detail"].endswith("1 expected call(s), 0 forbidden rule(s)")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"tool": "create_note", "args": "not-a-mapping"}]), encoding="utf-8")
    code, checks, _ = doctor_json("--contract", str(bad))
    assert code == 1 and checks["contract"]["status"] == "fail"
    assert "bad.json" in checks["contract"]["detail"] and "$[0]" in checks["contract"]["detail"]


# --- the Python API ---------------------------------------------------------------------------


def test_run_doctor_is_importable_and_structured(tmp_path: Path) -> None:
    from toolscore.mcp.agent import run_doctor as facade
    from toolscore_agent import run_doctor

    assert facade is run_doctor
    report = run_doctor(write_spec(tmp_path / "s.json"), keys=["NEEDED_TOKEN"], environ={})
    assert report.exit_code == 1 and report.by_name("key NEEDED_TOKEN").status == "fail"
    assert report.by_name("server").status == "pass"
    assert report.as_list()[0] == {"check": "python", "status": "pass", "detail": report.checks[0].detail}
    assert run_doctor(write_spec(tmp_path / "t.json"), environ={}).exit_code == 0


def test_the_terminal_table_shows_markup_as_text() -> None:
    import io

    from rich.console import Console

    from toolscore_agent.doctor_cmd import table_of

    out = io.StringIO()
    Console(file=out, force_terminal=True, width=120).print(
        table_of([{"check": "server", "status": "pass", "detail": "[bold red]loud[/] 1.0 started"}]))
    text = out.getvalue()
    assert "[bold red]loud[/]" in text and "Toolscore doctor" in text
