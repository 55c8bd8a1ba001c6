"""run_study: the plan (cells, order, prices, worst case, resume), the rows, workers, budget.

The plan tests build an AgentSpec directly; the study tests run the real loop, the real
scripted provider and the bundled sample server (one fresh process per run).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent.model import AgentSpec, Arm, BudgetSpec, Limits, ScriptStep, ServerSpec, Task
from toolscore_agent.study import (
    StudyResult,
    plan_cells,
    plan_study,
    run_worst_case_usd,
)
from toolscore_core import Contract, ExpectedCall, InputError, Price, RunRow, RunWriter, read_runs

SAMPLE = (sys.executable, "-m", "toolscore_mcp.sample_server")


def spec_of(**changes: Any) -> AgentSpec:
    """The offline example's shape: two tasks, two scripted arms, three repetitions, seed 7."""
    note = Task(id="save-a-note", prompt="Save a note titled groceries.",
                contract=Contract(expected=(ExpectedCall(tool="create_note"),)),
                default_script=(ScriptStep(calls=({"tool": "create_note",
                                                   "args": {"title": "groceries", "body": "milk"}},)),
                                ScriptStep(text="Saved the note 'groceries'.")))
    clean = Task(id="clean-up", prompt="Delete the note called old.",
                 contract=Contract(expected=(ExpectedCall(tool="list_notes"),)),
                 default_script=(ScriptStep(calls=({"tool": "list_notes", "args": {}},)),
                                 ScriptStep(text="Listed the notes.")))
    values: dict[str, Any] = {
        "name": "notes-offline", "server": ServerSpec(command=SAMPLE),
        "arms": (Arm(id="careful", provider="scripted", model="scripted"),
                 Arm(id="sloppy", provider="scripted", model="scripted")),
        "tasks": (note, clean), "repetitions": 3, "seed": 7, "limits": Limits(max_turns=6, max_calls=10),
    }
    values.update(changes)
    return AgentSpec(**values)


# --- cells and order --------------------------------------------------------------------------


def test_cells_are_every_task_arm_and_repetition_in_the_seeded_order_of_the_docs() -> None:
    cells = plan_cells(spec_of())
    assert len(cells) == 12
    assert len({c.cell_id for c in cells}) == 12
    assert [c.order for c in cells] == list(range(1, 13))
    # the documented offline example (seed 7) starts with these three runs
    assert [c.cell_id for c in cells[:3]] == ["clean-up::careful::2", "clean-up::sloppy::3",
                                              "save-a-note::sloppy::1"]
    assert {c.repetition for c in cells} == {1, 2, 3}


def test_another_seed_gives_another_order_and_the_same_seed_the_same_one() -> None:
    first = [c.cell_id for c in plan_cells(spec_of(seed=7))]
    assert first == [c.cell_id for c in plan_cells(spec_of(seed=7))]
    assert first != [c.cell_id for c in plan_cells(spec_of(seed=8))]


def test_only_task_and_only_arm_keep_the_order_numbers_of_the_whole_study() -> None:
    whole = {c.cell_id: c.order for c in plan_cells(spec_of())}
    plan = plan_study(spec_of(), only_tasks=["clean-up"], only_arms=["sloppy"])
    assert [c.cell_id for c in plan.cells] == sorted((c for c in whole if c.startswith("clean-up::sloppy")),
                                                     key=whole.__getitem__)
    assert all(whole[c.cell_id] == c.order for c in plan.cells)


def test_an_unknown_only_task_names_the_known_ones() -> None:
    with pytest.raises(InputError) as caught:
        plan_study(spec_of(), only_tasks=["clean_up"])
    assert "clean_up" in caught.value.message and "save-a-note, clean-up" in (caught.value.expected or "")


# --- prices and the worst case ---------------------------------------------------------------


def test_an_unknown_price_is_refused_naming_the_arm_and_the_fix() -> None:
    spec = spec_of(arms=(Arm(id="mystery", provider="openai", model="gpt-nobody-knows"),))
    with pytest.raises(InputError) as caught:
        plan_study(spec)
    error = caught.value
    assert "arm 'mystery'" in error.message and error.location == "$.arms[0].model"
    assert "allow_unknown_price" in (error.hint or "") and "pricing" in (error.hint or "")
    allowed = plan_study(spec, allow_unknown_price=True)
    assert allowed.prices == {"mystery": None} and allowed.worst_case_usd is None
    assert plan_study(spec_of(arms=spec.arms, budget=BudgetSpec(allow_unknown_price=True))).prices == {
        "mystery": None}


def test_spec_pricing_wins_over_the_table_and_scripted_is_free() -> None:
    own = Price(1.0, 2.0, "pricing in the spec")
    spec = spec_of(arms=(Arm(id="a", provider="anthropic", model="claude-haiku-5-5", price=own),
                         Arm(id="b", provider="anthropic", model="claude-haiku-5-5"),
                         Arm(id="c", provider="scripted", model="scripted")))
    prices = plan_study(spec).prices
    assert prices["a"] is own
    assert prices["b"] is not None and prices["b"].input_per_million == 0.10
    assert prices["c"] == Price(0.0, 0.0, "scripted (free)")


def test_the_worst_case_grows_with_turns_and_is_unbounded_without_max_turns() -> None:
    price = Price(1.0, 10.0, "test")
    arm = Arm(id="a", provider="openai", model="m", max_output_tokens=100, price=price)
    task = spec_of().tasks[0]
    two = run_worst_case_usd(spec_of(limits=Limits(max_turns=2)), arm, task, price)
    three = run_worst_case_usd(spec_of(limits=Limits(max_turns=3)), arm, task, price)
    assert two is not None and three is not None and 0 < two < three
    # each turn pays at least its full answer of 100 output tokens at $10 per million
    assert three >= 3 * 100 * 10 / 1e6
    assert run_worst_case_usd(spec_of(limits=Limits()), arm, task, price) == math.inf
    assert run_worst_case_usd(spec_of(), arm, task, Price(0.0, 0.0)) == 0.0
    assert run_worst_case_usd(spec_of(), Arm(id="a", provider="openai", model="m"), task, price) is None


# --- resume, read from the file ----------------------------------------------------------------


def _row(cell_id: str, status: str = "completed", study: str = "notes-offline") -> RunRow:
    task, arm, rep = cell_id.split("::")
    outcome = "pass" if status in ("completed", "limit_reached") else "error"
    return RunRow(task_id=task, arm_id=arm, repetition=int(rep), status=status, outcome=outcome,  # type: ignore[arg-type]
                  study=study)


def test_resume_skips_done_cells_and_runs_errored_and_budget_stopped_ones_again(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with RunWriter(out) as writer:
        writer.write(_row("clean-up::careful::2"))
        writer.write(_row("clean-up::sloppy::3", "error"))
        writer.write(_row("save-a-note::sloppy::1", "budget_stopped"))
        writer.write(_row("save-a-note::careful::1", "limit_reached"))
    plan = plan_study(spec_of(), out)
    pending = {c.cell_id for c in plan.pending}
    assert plan.skipped == 2 and len(pending) == 10
    assert "clean-up::careful::2" not in pending and "save-a-note::careful::1" not in pending
    assert {"clean-up::sloppy::3", "save-a-note::sloppy::1"} <= pending


def test_a_torn_last_line_is_reported_by_the_plan_and_never_changed_by_it(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with RunWriter(out) as writer:
        writer.write(_row("clean-up::careful::2"))
    with out.open("ab") as handle:
        handle.write(b'{"run_record_version": "1", "cell_id": "clean-')
    before = out.read_bytes()
    plan = plan_study(spec_of(), out)
    assert plan.skipped == 1 and plan.torn is not None and plan.torn.line == 2
    assert out.read_bytes() == before


def test_a_file_of_another_study_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with RunWriter(out) as writer:
        writer.write(_row("clean-up::careful::2", study="someone-else"))
    with pytest.raises(InputError) as caught:
        plan_study(spec_of(), out)
    assert "someone-else" in caught.value.message and "-o" in (caught.value.hint or "")


# --- the result -------------------------------------------------------------------------------


def test_exit_codes_and_outcome_counts_of_a_result() -> None:
    plan = plan_study(spec_of())
    rows = (_row("clean-up::careful::2"), _row("clean-up::sloppy::3", "error"))
    result = StudyResult(plan=plan, rows=rows, skipped=0, spent_usd=0.0)
    assert result.outcomes == {"careful": {"pass": 1, "fail": 0, "error": 0, "unknown": 0},
                               "sloppy": {"pass": 0, "fail": 0, "error": 1, "unknown": 0}}
    assert result.exit_code == 1
    assert StudyResult(plan=plan, rows=rows[:1], skipped=0, spent_usd=0.0).exit_code == 0
    assert StudyResult(plan=plan, rows=rows, skipped=0, spent_usd=0.0, budget_stopped=True).exit_code == 3


def test_a_dry_run_plans_and_starts_nothing(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    spec = spec_of(server=ServerSpec(command=("definitely-not-a-command-xyz",)))
    out = tmp_path / "runs.jsonl"
    result = run_study(spec, out, dry_run=True)
    assert result.dry_run and result.rows == () and len(result.plan.pending) == 12
    assert not out.exists()


def _rows(path: Path) -> list[RunRow]:
    return list(read_runs(path))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- running studies (the real loop, scripted provider and sample server) ----------------------


def test_every_cell_runs_once_against_the_sample_server_into_one_row_each(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    seen: list[tuple[str, int, int]] = []
    result = run_study(spec_of(), out, on_run=lambda row, p: seen.append((row.cell_id, p.done, p.total)))
    rows = _rows(out)
    assert [r.cell_id for r in rows] == [r.cell_id for r in result.rows] == [c.cell_id for c in plan_cells(spec_of())]
    assert [(done, total) for _, done, total in seen] == [(n, 12) for n in range(1, 13)]
    assert {r.outcome for r in rows} == {"pass"} and result.exit_code == 0
    first = rows[0]
    assert (first.order, first.seed, first.study, first.provider, first.model) == (
        1, 7, "notes-offline", "scripted", "scripted")
    assert first.server is not None and first.server.name == "notes-server" and first.server.transport == "stdio"
    assert first.server.command is not None and "toolscore_mcp.sample_server" in first.server.command
    assert first.cost_usd == 0.0 and first.price == Price(0.0, 0.0, "scripted (free)")
    assert first.toolscore_version == "0.1.0" and first.started_at and first.finished_at
    note = next(r for r in rows if r.task_id == "save-a-note")
    assert [c.tool for c in note.calls] == ["create_note"] and note.calls[0].is_error is False
    assert note.final_answer == "Saved the note 'groceries'."
    assert result.outcomes == {"careful": {"pass": 6, "fail": 0, "error": 0, "unknown": 0},
                               "sloppy": {"pass": 6, "fail": 0, "error": 0, "unknown": 0}}


def test_provider_factory_is_asked_per_run_with_the_arm_and_the_task(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study
    from toolscore_providers import ScriptedProvider

    asked: list[tuple[str, str]] = []

    def factory(arm: Arm, task: Task) -> Any:
        asked.append((arm.id, task.id))
        return ScriptedProvider(script=[{"text": f"{arm.id} did nothing"}])

    result = run_study(spec_of(repetitions=1), None, provider_factory=factory)
    assert sorted(asked) == sorted((a.id, t.id) for t in spec_of().tasks for a in spec_of().arms)
    assert {r.final_answer for r in result.rows} == {"careful did nothing", "sloppy did nothing"}
    assert {r.outcome for r in result.rows} == {"fail"}  # the expected call was never made
    assert result.exit_code == 1


def _memory_entry() -> Path:
    import os

    root = Path(os.environ.get("TOOLSCORE_MCP_SERVERS", Path(__file__).resolve().parents[2] / ".cache" / "mcp-servers"))
    entry = root / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    if not entry.is_file():
        pytest.fail(f"the pinned memory server is not installed at {entry} (run `make servers`)")
    return entry


def test_each_run_gets_a_fresh_server_and_run_dir_so_no_state_leaks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from toolscore_agent.study import run_study

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    create = Task(id="create", prompt="Create Ada.", contract=Contract(expected=(ExpectedCall(tool="create_entities"),)),
                  default_script=(ScriptStep(calls=({"tool": "create_entities", "args": {"entities": [
                      {"name": "Ada", "entityType": "person", "observations": ["wrote programs"]}]}},)),
                      ScriptStep(text="Created Ada.")))
    read = Task(id="read", prompt="What is stored?", contract=Contract(expected=(ExpectedCall(tool="read_graph"),)),
                default_script=(ScriptStep(calls=({"tool": "read_graph", "args": {}},)), ScriptStep(text="Read it.")))
    spec = spec_of(server=ServerSpec(command=("node", str(_memory_entry())),
                                     env={"MEMORY_FILE_PATH": "{run_dir}/memory.jsonl"}),
                   tasks=(create, read), arms=(Arm(id="s", provider="scripted", model="scripted"),), repetitions=3)
    result = run_study(spec, tmp_path / "runs.jsonl")
    reads = [r for r in result.rows if r.task_id == "read"]
    creates = [r for r in result.rows if r.task_id == "create"]
    assert len(reads) == 3 and len(creates) == 3
    assert all(r.calls[0].is_error is False for r in creates)
    # a run that read after another run created Ada still sees an empty graph
    assert all("Ada" not in json.dumps(r.calls[0].to_dict()) for r in reads)
    order = [r.task_id for r in result.rows]
    assert order.index("create") < max(i for i, t in enumerate(order) if t == "read")
    assert reads[0].server is not None and reads[0].server.env_names == ("MEMORY_FILE_PATH",)
    assert list((tmp_path / "tmp").glob("toolscore-run-*")) == []  # every run_dir was removed


def test_resume_runs_only_the_missing_cells_and_never_writes_a_row_twice(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    first = run_study(spec_of(), out, only_tasks=["clean-up"])
    assert len(first.rows) == 6 and first.skipped == 0
    second = run_study(spec_of(), out)
    assert second.skipped == 6 and len(second.rows) == 6
    assert {r.task_id for r in second.rows} == {"save-a-note"}
    ids = [r.cell_id for r in _rows(out)]
    assert len(ids) == len(set(ids)) == 12
    third = run_study(spec_of(), out)
    assert third.rows == () and third.skipped == 12 and len(_rows(out)) == 12


def test_a_torn_last_line_is_repaired_and_its_cell_run_again(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    run_study(spec_of(), out, only_arms=["careful"])
    data = out.read_bytes()
    cut = data.rstrip(b"\n").rfind(b"\n") + 1
    torn_cell = json.loads(data[cut:])["cell_id"]
    out.write_bytes(data[: cut + 40])  # the last row, half written
    result = run_study(spec_of(), out, only_arms=["careful"])
    assert result.repair is not None and result.repair.line == 6
    assert [r.cell_id for r in result.rows] == [torn_cell]
    assert (tmp_path / "runs.jsonl.torn").read_bytes() == data[cut: cut + 40] + b"\n"
    ids = [r.cell_id for r in _rows(out)]
    assert len(ids) == len(set(ids)) == 6


def _priced(max_usd: float, repetitions: int = 3) -> AgentSpec:
    """Scripted arms with a made-up high price, so the scripted usage costs real dollars."""
    price = Price(1000.0, 1000.0, "test price")
    arms = (Arm(id="careful", provider="scripted", model="scripted-priced", price=price, max_output_tokens=50),
            Arm(id="sloppy", provider="scripted", model="scripted-priced", price=price, max_output_tokens=50))
    return spec_of(arms=arms, repetitions=repetitions, budget=BudgetSpec(max_usd=max_usd))


def test_the_budget_stops_the_study_before_the_call_that_would_cross_it(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    result = run_study(_priced(max_usd=5.0), out)
    assert result.budget_stopped and result.exit_code == 3
    assert 0 < result.spent_usd <= 5.0
    rows = _rows(out)
    assert 1 < len(rows) < 12
    assert rows[-1].status == "budget_stopped" and rows[-1].outcome == "error"  # no run started after it
    assert all(r.status == "completed" for r in rows[:-1])
    assert "budget" in (rows[-1].error or "")
    known = sum(r.cost_usd or 0.0 for r in rows)
    assert known == pytest.approx(result.spent_usd)
    # resumed with the same cap, what the file's rows cost still counts: it stops at once
    assert plan_study(_priced(max_usd=5.0), out).spent_before_usd == pytest.approx(known)
    again = run_study(_priced(max_usd=5.0), out)
    assert again.budget_stopped and [r.status for r in again.rows] == ["budget_stopped"]
    assert again.spent_usd == pytest.approx(known) and again.rows[0].turns == 0
    # a larger cap resumes where it stopped
    more = run_study(_priced(max_usd=1000.0), out)
    assert not more.budget_stopped and more.skipped == len(rows) - 1
    assert sorted(r.cell_id for r in _rows(out) if r.done) == sorted(c.cell_id for c in plan_cells(_priced(1.0)))


def test_four_workers_share_one_budget_and_never_overspend(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    result = run_study(_priced(max_usd=8.0, repetitions=6), out, workers=4)
    assert result.budget_stopped and result.spent_usd <= 8.0
    rows = _rows(out)
    assert sum(r.cost_usd or 0.0 for r in rows) <= 8.0
    ids = [r.cell_id for r in rows]
    assert len(ids) == len(set(ids)) < 24
    assert any(r.status == "budget_stopped" for r in rows)


def test_four_workers_write_every_row_once(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    result = run_study(spec_of(repetitions=5), out, workers=4)
    ids = [r.cell_id for r in _rows(out)]
    assert len(ids) == len(set(ids)) == 20 == len(result.rows)
    assert all(len(line) > 0 for line in _lines(out))


def test_a_server_that_does_not_start_refuses_the_study_before_any_row(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    spec = spec_of(server=ServerSpec(command=("definitely-not-a-command-xyz",)))
    with pytest.raises(InputError):
        run_study(spec, out)
    assert not out.exists() or out.read_bytes() == b""


def test_a_scripted_arm_without_a_script_is_refused_before_anything_starts(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    out = tmp_path / "runs.jsonl"
    spec = spec_of(tasks=(*spec_of().tasks, Task(id="bare", prompt="Do something.")))
    with pytest.raises(InputError) as caught:
        run_study(spec, out)
    assert "'bare'" in caught.value.message and caught.value.location == "$.tasks[2].script"
    assert not out.exists()


def test_an_unknown_provider_is_refused_naming_the_arm(tmp_path: Path) -> None:
    from toolscore_agent.study import run_study

    spec = spec_of(arms=(Arm(id="x", provider="scriptd", model="scripted"),))
    with pytest.raises(InputError) as caught:
        run_study(spec, tmp_path / "runs.jsonl", allow_unknown_price=True)
    assert "arm 'x'" in caught.value.message and caught.value.location == "$.arms[0].provider"
    assert "scripted" in (caught.value.expected or "")


def test_a_bare_python_in_the_server_command_is_the_python_toolscore_runs_in():
    import sys

    from toolscore_agent.study import server_argv

    assert server_argv("python -m toolscore_mcp.sample_server") == [sys.executable, "-m", "toolscore_mcp.sample_server"]
    assert server_argv(("python3", "server.py")) == [sys.executable, "server.py"]
    assert server_argv("npx -y @modelcontextprotocol/server-memory") == ["npx", "-y", "@modelcontextprotocol/server-memory"]
    assert server_argv(None) == []
