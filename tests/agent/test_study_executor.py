"""``toolscore agent run --executor NAME``: a study's cells through the kernel's executor kind.

The offline example (scripted provider, the bundled sample server, real subprocesses) must
give the same rows through ``--executor thread`` and through a plugin's in-process executor
as through the study's own pool, and through ``--executor local``, whose worker processes all
reserve in one budget ledger held by the executor's server process: there a priced study
stops with its total spent within ``max_usd`` and no cell twice in the file, and a rerun
resumes. Unknown names, and executors that cannot share a budget, are exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError, read_runs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent_harness" / "offline.yaml"
ENV = {**os.environ, "COLUMNS": "100"}
ENV.pop("TOOLSCORE_DEBUG", None)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", "agent", "run", *args],
                          capture_output=True, text=True, env=ENV, timeout=240, cwd=cwd)


def _comparable(path: Path) -> dict[str, dict[str, Any]]:
    """Rows by cell id without what differs between two identical runs (times, durations)."""
    rows: dict[str, dict[str, Any]] = {}
    for row in read_runs(path):
        data = row.to_dict()
        for key in ("started_at", "finished_at"):
            data.pop(key)
        for call in data.get("calls") or []:
            call.pop("duration", None)
        rows[data["cell_id"]] = data
    return rows


def test_executor_thread_gives_the_same_rows_as_before(tmp_path: Path) -> None:
    before = _run(str(EXAMPLE), "-o", str(tmp_path / "a.jsonl"), cwd=tmp_path)
    after = _run(str(EXAMPLE), "-o", str(tmp_path / "b.jsonl"), "--executor", "thread", "--workers", "2", cwd=tmp_path)
    assert before.returncode == after.returncode == 1, (before.stderr, after.stderr)  # sloppy's runs fail
    rows = _comparable(tmp_path / "a.jsonl")
    assert len(rows) == 12
    assert rows == _comparable(tmp_path / "b.jsonl")
    assert after.stdout.splitlines()[-7:] == before.stdout.splitlines()[-7:]  # the same outcomes table


def test_unknown_executors_are_refused(tmp_path: Path) -> None:
    # local is no longer refused: tests/agent/test_study_local_executor.py runs studies on it
    unknown = _run(str(EXAMPLE), "-o", str(tmp_path / "r.jsonl"), "--executor", "nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown executor 'nope'" in unknown.stderr and "thread" in unknown.stderr
    assert not (tmp_path / "r.jsonl").exists()  # refused before anything ran


def test_a_plugins_in_process_executor_runs_the_study(tmp_path: Path, installed_plugin_manager: Any) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import run_study

    spec = load_agent_spec(EXAMPLE)
    pytest.importorskip("toolscore_example_plugin")
    plugin = run_study(spec, tmp_path / "p.jsonl", executor="example-in-order", pm=installed_plugin_manager)
    own = run_study(spec, tmp_path / "o.jsonl")
    assert len(plugin.rows) == 12 and plugin.exit_code == own.exit_code == 1
    assert _comparable(tmp_path / "p.jsonl") == _comparable(tmp_path / "o.jsonl")


def test_a_run_that_raises_stops_the_study_with_its_own_error(tmp_path: Path) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import run_study

    def broken(arm: Any, task: Any) -> Any:
        raise InputError(f"no provider for {arm.id}")

    with pytest.raises(InputError, match="no provider for"):
        run_study(load_agent_spec(EXAMPLE), tmp_path / "r.jsonl", executor="thread", workers=2,
                  provider_factory=broken)


# --- out-of-process executors: cells in worker processes, one budget ledger ------------------

PRICED = """\
spec_version: 1
name: notes-priced
server:
  command: "python -m toolscore_mcp.sample_server"
  timeout: 30
provider: scripted
arms:
  - {id: careful, model: scripted-priced, max_output_tokens: 50}
  - {id: sloppy, model: scripted-priced, max_output_tokens: 50}
pricing:
  scripted-priced: {input_per_million: 1000, output_per_million: 1000}
budget: {max_usd: MAX}
repetitions: 4
seed: 7
limits: {max_turns: 6, max_calls: 10}
tasks:
  - id: save-a-note
    prompt: "Save a note titled 'groceries' with the body 'milk, eggs'."
    expected:
      - {tool: create_note, args: {title: groceries}}
    script:
      - calls: [{tool: create_note, args: {title: groceries, body: "milk, eggs"}}]
      - text: "Saved the note 'groceries'."
"""


def test_local_executor_gives_the_same_rows_as_threads(tmp_path: Path) -> None:
    threads = _run(str(EXAMPLE), "-o", str(tmp_path / "t.jsonl"), "--executor", "thread", "--workers", "2",
                   cwd=tmp_path)
    local = _run(str(EXAMPLE), "-o", str(tmp_path / "l.jsonl"), "--executor", "local", "--workers", "2",
                 cwd=tmp_path)
    assert threads.returncode == local.returncode == 1, (threads.stderr, local.stderr)  # sloppy's runs fail
    assert "Traceback" not in local.stderr
    rows = _comparable(tmp_path / "l.jsonl")
    assert len(rows) == 12
    assert rows == _comparable(tmp_path / "t.jsonl")
    assert local.stdout.splitlines()[-7:] == threads.stdout.splitlines()[-7:]  # the same outcomes table


def _priced(tmp_path: Path, max_usd: float) -> Path:
    path = tmp_path / "priced.yaml"
    path.write_text(PRICED.replace("MAX", str(max_usd)), encoding="utf-8")
    return path


def test_a_priced_study_on_worker_processes_stops_within_the_cap_and_resumes(tmp_path: Path) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import plan_study, run_study

    out = tmp_path / "runs.jsonl"
    spec = load_agent_spec(_priced(tmp_path, 2.5))
    result = run_study(spec, out, executor="local", workers=2)
    assert result.budget_stopped and result.exit_code == 3
    rows = list(read_runs(out))
    ids = [r.cell_id for r in rows]
    assert len(ids) == len(set(ids)) < 8  # every cell at most once; the cap stopped it early
    assert any(r.status == "budget_stopped" for r in rows)
    paid = sum(r.cost_usd or 0.0 for r in rows)
    assert 0 < paid <= result.spent_usd <= 2.5 + 1e-9  # spent read from the one shared ledger
    # a rerun with a larger cap resumes: only the cells not done run, each once in the file
    bigger = load_agent_spec(_priced(tmp_path, 1000))
    done = len(rows) - sum(r.status == "budget_stopped" for r in rows)
    assert plan_study(bigger, out).skipped == done
    more = run_study(bigger, out, executor="local", workers=2)
    assert not more.budget_stopped and more.skipped == done
    latest = {r.cell_id: r for r in read_runs(out)}
    assert len(latest) == 8 and all(r.done for r in latest.values())


def _unpicklable_factory() -> Any:
    return lambda arm, task: None


def test_a_provider_factory_that_cannot_travel_is_an_input_error(tmp_path: Path) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import run_study

    with pytest.raises(InputError, match="cannot be sent to the worker processes of executor local") as caught:
        run_study(load_agent_spec(EXAMPLE), tmp_path / "r.jsonl", executor="local", workers=2,
                  provider_factory=_unpicklable_factory())
    assert "executor='thread'" in (caught.value.hint or "")
    assert not (tmp_path / "r.jsonl").exists() or not (tmp_path / "r.jsonl").read_text()


def test_an_executor_that_cannot_share_a_budget_is_refused(plugin_manager: Any, register_plugin: Any) -> None:
    from toolscore_agent.study import study_executor
    from toolscore_core import Executor, hookimpl

    class Elsewhere(Executor):
        name = "elsewhere"

    class Plugin:
        @hookimpl
        def toolscore_register_executors(self) -> list[type[Executor]]:
            return [Elsewhere]

    register_plugin(Plugin())
    with pytest.raises(InputError, match="executor elsewhere cannot share a budget across its workers"):
        study_executor("elsewhere", 2, plugin_manager)
    local = study_executor("local", 2, plugin_manager)
    assert local.in_process is False
    local.close()
