"""Warm start: a forked ``python -m`` server sees what a freshly started one sees.

Every comparison here runs the same probe both ways (a real ``subprocess.Popen`` and a
child of the zygote) and checks the two agree, so the warm path cannot drift from what
Python itself does. The zygote is real: a second interpreter, real fork, real pipes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from toolscore_mcp.warm_start import WarmLauncher, WarmProcess, warm_module

SERVERS = Path(__file__).parent / "servers"
PROBE = [sys.executable, "-m", "warm_probe"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def launcher():
    with WarmLauncher() as started:
        yield started


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _talk(process, stdin: bytes = b"hello\n", timeout: float = 10.0) -> tuple[dict, bytes, int]:
    process.stdin.write(stdin)
    process.stdin.close()
    report = json.loads(process.stdout.readline())
    code = process.wait(timeout)
    stderr = process.stderr.read()
    for stream in (process.stdout, process.stderr):
        stream.close()
    return report, stderr, code


def _fresh(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(PROBE + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=SERVERS, env=env, start_new_session=True)


def test_which_commands_qualify():
    assert warm_module(["python", "-m", "pkg.server", "--flag"], None) == "pkg.server"
    assert warm_module([sys.executable, "-m", "srv"], None) == "srv"
    assert warm_module(["node", "-m", "srv"], None) is None
    assert warm_module(["python", "-X", "dev", "-m", "srv"], None) is None  # an interpreter option
    assert warm_module(["python", "server.py"], None) is None
    assert warm_module(["python", "-m"], None) is None
    changed = {**os.environ, "PYTHONPATH": "/elsewhere"}
    assert warm_module(["python", "-m", "srv"], changed) is None  # read before any code runs
    assert warm_module(["python", "-m", "srv"], dict(os.environ)) == "srv"


def test_a_warm_child_sees_what_a_fresh_interpreter_sees(launcher):
    env = {**os.environ, "TOOLSCORE_PROBE": "ünïcode value"}
    for args in ([], ["exit", "3"], ["raise"]):
        fresh = _talk(_fresh(args, env))
        warm_process = launcher.spawn(PROBE + args, env=env, cwd=str(SERVERS))
        assert isinstance(warm_process, WarmProcess)
        warm = _talk(warm_process)
        assert warm[0] == fresh[0]  # argv, cwd, env, session, sys.path[0], __name__, stdin
        assert warm[2] == fresh[2], args  # the exit code
        assert warm[1].splitlines()[0] == fresh[1].splitlines()[0] == b"probe stderr"
        if args == ["raise"]:
            assert b"RuntimeError: the probe crashed on purpose" in warm[1]
    assert fresh[0]["leads_session"] and fresh[0]["name"] == "__main__" and fresh[0]["path0"] == str(SERVERS)


def test_signals_reach_the_child_and_its_group(launcher):
    process = launcher.spawn([*PROBE, "wait"], cwd=str(SERVERS))
    assert json.loads(process.stdout.readline())["leads_session"]
    assert os.getpgid(process.pid) == process.pid
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(0.1)
    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait(10) == -signal.SIGKILL
    assert _gone(process.pid)
    process.kill()  # after the exit: a no-op, never a signal to a reused pid


def test_the_sample_server_through_the_stdio_client(launcher):
    from toolscore_mcp.client import MCPStdioClient

    for _ in range(3):  # three fresh servers from one zygote: no state carried over
        with MCPStdioClient([sys.executable, "-m", "toolscore_mcp.sample_server"], launcher=launcher) as client:
            assert isinstance(client.process, WarmProcess)
            assert client.server_info["name"] == "notes-server"
            created = client.call_tool("create_note", {"title": "t", "body": "b"})
            assert created.is_error is False
            listed = client.call_tool("list_notes", {}).result
            assert listed["structuredContent"]["total"] == 1, listed
            pid = client.process.pid
        assert _gone(pid)


def test_many_threads_spawn_at_once(launcher):
    results: list[tuple[str, int]] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        for rep in range(4):
            process = launcher.spawn([*PROBE, "exit", str(index)], cwd=str(SERVERS))
            report, _, code = _talk(process, f"w{index}r{rep}\n".encode())
            with lock:
                results.append((report["stdin"], code))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == sorted((f"w{i}r{r}", i) for i in range(6) for r in range(4))


def test_a_dead_zygote_costs_speed_not_runs(launcher):
    launcher._zygote.kill()
    launcher._zygote.wait(10)
    deadline = time.monotonic() + 10
    while launcher.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    process = launcher.spawn([*PROBE, "exit", "5"], cwd=str(SERVERS))
    assert isinstance(process, subprocess.Popen)
    report, _, code = _talk(process)
    assert code == 5 and report["stdin"] == "hello"


def test_a_child_outlives_a_zygote_that_dies(launcher):
    process = launcher.spawn([*PROBE, "wait"], cwd=str(SERVERS))
    process.stdout.readline()
    launcher._zygote.kill()
    launcher._zygote.wait(10)
    assert process.poll() is None and not _gone(process.pid)
    process.stdin.close()  # the server still answers to its own pipes and ends
    assert process.wait(10) in (0, -signal.SIGKILL)


def test_a_study_gives_the_same_rows_warm_and_cold(tmp_path):
    import attrs

    from toolscore_agent import load_agent_spec, run_study
    from toolscore_core import read_runs

    spec = load_agent_spec(ROOT / "examples" / "agent_harness" / "offline.yaml")
    rows = {}
    for warm in (True, False):
        variant = attrs.evolve(spec, server=attrs.evolve(spec.server, warm_start=warm))
        output = tmp_path / f"warm-{warm}.jsonl"
        result = run_study(variant, output=output, workers=2)
        assert result.outcomes == {"careful": {"pass": 6, "fail": 0, "error": 0, "unknown": 0},
                                 "sloppy": {"pass": 0, "fail": 6, "error": 0, "unknown": 0}}
        rows[warm] = {row.cell_id: (row.outcome, row.final_answer, [(c.tool, c.result) for c in row.calls])
                      for row in read_runs(output)}
    assert rows[True] == rows[False]


def test_the_spec_switch_and_where_it_may_appear(tmp_path):
    from toolscore_agent.spec import load_agent_spec
    from toolscore_core import InputError

    def spec(server: dict) -> Path:
        path = tmp_path / "study.json"
        path.write_text(json.dumps({
            "spec_version": 1, "name": "s", "server": server, "provider": "scripted", "arms": [{"id": "a"}],
            "tasks": [{"id": "t", "prompt": "p", "expected": [], "script": [{"text": "done"}]}]}), encoding="utf-8")
        return path

    command = "python -m toolscore_mcp.sample_server"
    assert load_agent_spec(spec({"command": command})).server.warm_start is True
    assert load_agent_spec(spec({"command": command, "warm_start": False})).server.warm_start is False
    with pytest.raises(InputError) as caught:
        load_agent_spec(spec({"url": "http://127.0.0.1:9/mcp", "warm_start": True}))
    assert caught.value.location == "$.server.warm_start"
    with pytest.raises(InputError):
        load_agent_spec(spec({"command": command, "warm_start": "yes"}))


def test_a_large_environment_reaches_the_child_whole(launcher):
    """The spawn request carries the whole env, larger than a socket buffer here."""
    big = "x" * 600_000
    process = launcher.spawn([*PROBE], env={**os.environ, "TOOLSCORE_PROBE": big}, cwd=str(SERVERS))
    assert isinstance(process, WarmProcess)
    report, _, code = _talk(process)
    assert code == 0 and report["probe_env"] == big
