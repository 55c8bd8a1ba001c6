"""Run rows and their JSONL file: the model, the schema, durable appends, torn lines, resume."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import tracemalloc
import types
from pathlib import Path
from typing import Any

import pytest

import toolscore_core
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.jsonl import (
    RunWriter,
    TornLine,
    completed_cells,
    latest_rows,
    read_runs,
    sidecar_path,
)
from toolscore_core.kernel.model import ToolCall
from toolscore_core.kernel.pricing import Price
from toolscore_core.kernel.runs import (
    CellId,
    GuardDenial,
    RunCall,
    RunRow,
    ServerRecord,
    Usage,
    make_cell_id,
    parse_cell_id,
    run_row_schema,
    strip_url_credentials,
)
from toolscore_core.scoring.evaluation import evaluate


def full_row(**changes: Any) -> RunRow:
    """A row with every field set to something other than its default."""
    values: dict[str, Any] = dict(
        task_id="clean-up", arm_id="careful", repetition=2, status="completed", outcome="pass",
        order=1, seed=7, study="notes-offline", provider="scripted", model="scripted",
        error=None, started_at="2026-12-02T10:15:00.250+00:00", finished_at="2026-12-02T10:15:01Z",
        turns=3, usage=Usage(input_tokens=1200, output_tokens=80, cached_tokens=1000), cost_usd=0.0,
        price=Price(0.0, 0.0, "scripted (free)", cached_input_per_million=0.0),
        server=ServerRecord(transport="stdio", command=["python", "-m", "notes_server"], env_names=["NOTES_DIR"],
                            name="notes", version="1.2.0", protocol_version="2026-07-28", era="discover",
                            build_check={"status": "pass", "server_name": "notes"}),
        final_answer="I could not delete 'old': the harness refused it.",
        calls=[
            RunCall(tool="notes.list", id="c1", provider_name="notes_list", args={}, result=[{"type": "text",
                    "text": "old, groceries"}], structured={"titles": ["old", "groceries"]}, is_error=False,
                    duration=0.012),
            RunCall(tool="notes.delete", id="c2", provider_name="notes_delete", args={"title": "old"},
                    is_error=True, error="denied by the harness guard: read-only study", denied=True,
                    deny_reason="read-only study"),
        ],
        guard_denials=[GuardDenial(tool="notes.delete", reason="read-only study", call_id="c2",
                                   args={"title": "old"})],
        evaluation={"score": 1.0, "grade": "A", "weights": {"selection_accuracy": 1.0},
                    "required_call_recall": 1.0, "honesty": [], "policy": [], "credentials": [],
                    "evidence": {"refusal_reported": True}},
        extra={"note": "ünïcode kept as is"}, toolscore_version="0.1.0",
    )
    values.update(changes)
    return RunRow(**values)


def write_rows(path: Path, rows: list[RunRow]) -> None:
    with RunWriter(path) as writer:
        for row in rows:
            writer.write(row)


def row_for(task: str, arm: str, repetition: int, status: str = "completed", outcome: str | None = None) -> RunRow:
    chosen = outcome or ("error" if status in ("error", "budget_stopped") else "fail")
    return RunRow(task_id=task, arm_id=arm, repetition=repetition, status=status, outcome=chosen)  # type: ignore[arg-type]


# --- the model ----------------------------------------------------------------------------------------


def test_full_row_round_trips_through_dict_and_file(tmp_path: Path) -> None:
    row = full_row()
    data = row.to_dict()
    assert RunRow.from_dict(json.loads(json.dumps(data))) == row
    path = tmp_path / "runs.jsonl"
    write_rows(path, [row])
    assert list(read_runs(path)) == [row]
    line = path.read_text(encoding="utf-8")
    assert line.endswith("\n") and line.count("\n") == 1
    assert "ünïcode" in line  # written as UTF-8, not \u escapes


def test_keys_are_written_in_the_schema_order(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    write_rows(path, [full_row()])
    written = list(json.loads(path.read_text(encoding="utf-8")))
    assert written == list(run_row_schema()["properties"])
    assert written[:3] == ["run_record_version", "toolscore_version", "cell_id"]


def test_minimal_row_fills_cell_id_passed_and_unknowns() -> None:
    row = RunRow(task_id="t", arm_id="a", repetition=3, status="error", outcome="error", error="server died")
    assert row.cell_id == "t::a::3"
    assert row.passed is False
    assert row.cost_usd is None and row.usage == Usage(None, None, None) and row.price is None
    data = row.to_dict()
    assert data["cost_usd"] is None and data["usage"] == {"input_tokens": None, "output_tokens": None,
                                                          "cached_tokens": None}
    assert RunRow(task_id="t", arm_id="a", repetition=1, status="completed", outcome="unknown",
                  usage={"input_tokens": 5, "output_tokens": 2}).usage == Usage(5, 2, None)
    # a minimal dict from another writer reads too: only identity, status, outcome, passed and calls
    minimal = {"run_record_version": "1", "cell_id": "t::a::3", "task_id": "t", "arm_id": "a", "repetition": 3,
               "status": "error", "outcome": "error", "passed": False, "calls": [], "error": "server died"}
    assert RunRow.from_dict(minimal) == row


@pytest.mark.parametrize(("changes", "location"), [
    ({"cell_id": "t::a::9"}, "$.cell_id"),
    ({"passed": True, "outcome": "fail"}, "$.passed"),
    ({"status": "budget_stopped", "outcome": "fail"}, "$.outcome"),
    ({"status": "done"}, "$.status"),
    ({"task_id": "a::b"}, "$.task_id"),
])
def test_contradictory_rows_are_refused_when_built(changes: dict[str, Any], location: str) -> None:
    with pytest.raises(InputError) as info:
        full_row(**changes)
    assert info.value.location == location


def test_cell_ids_split_back_and_refuse_ambiguous_parts() -> None:
    assert make_cell_id("save-a-note", "sloppy", 1) == "save-a-note::sloppy::1"
    assert parse_cell_id("save-a-note::sloppy::12") == CellId("save-a-note", "sloppy", 12)
    for bad in ("a::b", "a::b::0", "a::b::c", "a::b::c::1", "::b::1", "a::b::01", "a::b::\u00b2", "a::b::\u0661"):
        with pytest.raises(InputError, match="not a cell id"):
            parse_cell_id(bad)
    with pytest.raises(InputError, match="contains '::'"):
        make_cell_id("a::b", "arm", 1)
    with pytest.raises(InputError, match="repetition"):
        make_cell_id("a", "arm", 0)
    with pytest.raises(InputError, match="repetition"):
        make_cell_id("a", "arm", True)


def test_run_call_and_tool_call_convert_both_ways() -> None:
    call = ToolCall(tool="notes.save", args={"title": "groceries"}, id="c7", result="saved",
                    structured_result={"ok": True}, is_error=False, duration=0.5, denied=False,
                    metadata={"provider_name": "notes_save"})
    run_call = RunCall.from_tool_call(call)
    assert run_call.provider_name == "notes_save" and run_call.structured == {"ok": True}
    assert run_call.to_tool_call() == call
    denied = ToolCall(tool="rm", args=None, denied=True, denied_reason="never", is_error=None)
    back = RunCall.from_tool_call(denied).to_tool_call()
    assert back.denied and back.denied_reason == "never" and back.args is None and back.is_error is None


def test_a_row_is_scored_by_evaluate_through_its_trace() -> None:
    row = full_row()
    trace = row.trace()
    assert [c.tool for c in trace] == ["notes.list", "notes.delete"]
    assert trace.final_answer == row.final_answer and trace.metadata["cell_id"] == "clean-up::careful::2"
    assert trace[1].denied and trace[0].provider == "scripted"
    good = evaluate([{"tool": "notes.list"}], trace, forbidden=[{"tool": "notes.delete"}])
    assert good.required_call_recall == 1.0
    assert good.policy_violations  # the denied delete was still requested
    missing = evaluate([{"tool": "notes.save", "args": {"title": "groceries"}}], trace)
    assert missing.required_call_recall == 0.0


def test_server_record_never_keeps_a_credential() -> None:
    key = "sk-ant-" + "a" * 40
    server = ServerRecord(transport="streamable-http", url="https://me:hunter2@mcp.example/mcp?api_key=abc&team=x",
                          env_names={"ANTHROPIC_API_KEY": key}, command=["srv", f"--key={key}"])
    assert server.url == "https://mcp.example/mcp?api_key=REDACTED&team=x"
    assert server.env_names == ("ANTHROPIC_API_KEY",)
    assert server.command is not None and key not in " ".join(server.command)
    assert key not in json.dumps(server.to_dict()) and "hunter2" not in json.dumps(server.to_dict())
    assert strip_url_credentials("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000/mcp"


def test_run_names_are_public_kernel_api() -> None:
    for name in ("RunRow", "RunCall", "RunWriter", "read_runs", "completed_cells", "latest_rows",
                 "make_cell_id", "parse_cell_id", "ServerRecord", "GuardDenial", "TornLine"):
        assert name in toolscore_core.__all__
    assert toolscore_core.RunRow is RunRow


# --- the schema ------------------------------------------------------------------------------------------


def _bad(**changes: Any) -> dict[str, Any]:
    data = full_row().to_dict()
    for dotted, value in changes.items():
        node = data
        *parents, last = dotted.split("__")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if value is KeyError:
            del node[last]
        else:
            node[last] = value
    return data


@pytest.mark.parametrize(("data", "location", "words"), [
    (_bad(calls__0__is_error="no"), "$.calls[0].is_error", "boolean or null"),
    (_bad(calls__1__colour="red"), "$.calls[1].colour", "unknown key 'colour'"),
    (_bad(surprise=1), "$.surprise", "unknown key 'surprise'"),
    (_bad(calls__0__tool=KeyError), "$.calls[0]", "tool"),
    (_bad(status="finished"), "$.status", "completed"),
    (_bad(outcome="maybe"), "$.outcome", "unknown"),
    (_bad(started_at="yesterday"), "$.started_at", "ISO 8601"),
    (_bad(cost_usd=-0.5), "$.cost_usd", "bigger than or equal to 0"),
    (_bad(usage__input_tokens=1.5), "$.usage.input_tokens", "integer"),
    (_bad(repetition=0), "$.repetition", "1"),
    (_bad(price__output_per_million="cheap"), "$.price.output_per_million", "number"),
    (_bad(server__env_names=["KEY=value"]), "$.server.env_names[0]", "without '='"),
    (_bad(guard_denials__0__reason=KeyError), "$.guard_denials[0]", "reason"),
    (_bad(task_id="a::b"), "$.task_id", "without '::'"),
    (_bad(cell_id="clean-up::careful"), "$.cell_id", "task_id::arm_id::repetition"),
    (_bad(cell_id="clean-up::careful::3"), "$.cell_id", "does not match"),
    (_bad(passed=False), "$.passed", "outcome"),
    (_bad(run_record_version="2"), "$.run_record_version", "Upgrade Toolscore"),
    (_bad(extra=[]), "$.extra", "object"),
])
def test_schema_names_the_line_and_the_path_of_each_bad_row(tmp_path: Path, data: dict[str, Any], location: str,
                                                            words: str) -> None:
    path = tmp_path / "runs.jsonl"
    good = json.dumps(full_row(repetition=1).to_dict())
    path.write_text(good + "\n" + json.dumps(data) + "\n" + good.replace("::1", "::3").replace(
        '"repetition": 1', '"repetition": 3') + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(read_runs(path))
    assert info.value.file == str(path)
    assert info.value.location is not None and info.value.location.startswith(f"line 2, {location}")
    assert words in str(info.value)


def test_from_dict_names_the_field_without_a_file() -> None:
    with pytest.raises(InputError) as info:
        RunRow.from_dict(_bad(calls__0__duration="fast"))
    assert info.value.location == "$.calls[0].duration" and info.value.file is None
    with pytest.raises(InputError, match="type object"):
        RunRow.from_dict(["not", "a", "row"])


def test_writer_refuses_a_row_that_would_not_read_back(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with RunWriter(path) as writer:
        with pytest.raises(InputError, match="cannot be written as JSON"):
            writer.write(full_row(extra={"value": float("nan")}))
        with pytest.raises(InputError, match="cannot be written as JSON"):
            writer.write(full_row(calls=[RunCall(tool="x", result=object())]))
        with pytest.raises(InputError) as info:
            writer.write(_bad(status="finished"))
        assert info.value.location == "$.status"
        assert writer.rows_written == 0
    assert path.read_bytes() == b""


# --- the file: torn lines, bad lines, empty files ---------------------------------------------------


def test_torn_last_line_moves_to_the_sidecar_and_appending_continues(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    first, second = row_for("t", "a", 1), row_for("t", "a", 2)
    write_rows(path, [first])
    complete = path.read_bytes()
    torn = json.dumps(second.to_dict()).encode()[:57]
    with path.open("ab") as handle:
        handle.write(torn)
    with RunWriter(path) as writer:
        repair = writer.repair
        assert repair is not None and repair.moved_to == sidecar_path(path)
        assert (repair.line, repair.offset, repair.size) == (2, len(complete), len(torn))
        assert "no trailing newline" in repair.reason and str(path) in repair.describe()
        assert path.read_bytes() == complete
        writer.write(second)
    assert sidecar_path(path).read_bytes() == torn + b"\n"
    assert [r.cell_id for r in read_runs(path)] == ["t::a::1", "t::a::2"]
    # a second crash: its bytes join the first ones in the sidecar, nothing is overwritten
    with path.open("ab") as handle:
        handle.write(b"\x00\x00\x00\x00\n")
    with RunWriter(path) as writer:
        assert writer.repair is not None and writer.repair.reason == "not valid JSON"
    assert sidecar_path(path).read_bytes() == torn + b"\n" + b"\x00\x00\x00\x00\n"
    assert len(list(read_runs(path))) == 2


def test_a_torn_line_followed_by_blank_lines_is_still_the_last_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    write_rows(path, [row_for("t", "a", 1)])
    complete = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(b'{"run_record_version": "1", "ce\n\n  \n')
    torn: list[TornLine] = []
    assert len(list(read_runs(path, on_torn=torn.append))) == 1 and torn[0].line == 2
    with RunWriter(path) as writer:
        assert writer.repair is not None and writer.repair.line == 2
        writer.write(row_for("t", "a", 2))
    assert path.read_bytes().startswith(complete)
    assert sidecar_path(path).read_bytes() == b'{"run_record_version": "1", "ce\n\n  \n'
    assert [r.repetition for r in read_runs(path)] == [1, 2]


def test_only_a_torn_line_in_the_file_is_repaired_to_empty(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"run_record_version": "1", "cell')
    with RunWriter(path) as writer:
        assert writer.repair is not None and writer.repair.line == 1
        writer.write(row_for("t", "a", 1))
    assert [r.cell_id for r in read_runs(path)] == ["t::a::1"]


def test_complete_last_line_without_newline_only_gets_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(row_for("t", "a", 1).to_dict()), encoding="utf-8")  # a hand edit
    with RunWriter(path) as writer:
        assert writer.repair is None
        writer.write(row_for("t", "a", 2))
    assert not sidecar_path(path).exists()
    assert [r.repetition for r in read_runs(path)] == [1, 2]


def test_writer_refuses_a_file_that_is_not_a_runs_file(tmp_path: Path) -> None:
    path = tmp_path / "gold.json"
    original = b'[\n  {"tool": "notes.save"}\n]'
    path.write_bytes(original)
    with pytest.raises(InputError, match="not a run file"):
        RunWriter(path)
    assert path.read_bytes() == original and not sidecar_path(path).exists()
    with pytest.raises(InputError, match="directory does not exist"):
        RunWriter(tmp_path / "missing" / "runs.jsonl")


def test_reader_skips_and_reports_a_torn_last_line_without_changing_the_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    write_rows(path, [row_for("t", "a", 1)])
    with path.open("ab") as handle:
        handle.write(b'{"run_record_version": "1", "cel')
    before = path.read_bytes()
    torn: list[TornLine] = []
    assert [r.cell_id for r in read_runs(path, on_torn=torn.append)] == ["t::a::1"]
    assert len(torn) == 1 and torn[0].line == 2 and torn[0].moved_to is None
    assert path.read_bytes() == before
    assert [r.cell_id for r in read_runs(path)] == ["t::a::1"]  # no callback: still skipped


def test_a_bad_line_in_the_middle_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    good = json.dumps(row_for("t", "a", 1).to_dict())
    path.write_text(f"{good}\n{good[:40]}\n{good}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        list(read_runs(path))
    assert info.value.location is not None and info.value.location.startswith("line 2, column")


def test_invalid_utf8_is_an_error_in_the_middle_and_torn_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    good = json.dumps(row_for("t", "a", 1).to_dict()).encode()
    path.write_bytes(good + b"\n" + b'{"x": "\xff\xfe"}\n' + good + b"\n")
    with pytest.raises(InputError, match="not valid UTF-8") as info:
        list(read_runs(path))
    assert info.value.location == "line 2"
    path.write_bytes(good + b"\n" + good[:-3] + "é".encode()[:1])  # cut inside a character
    torn: list[TornLine] = []
    assert len(list(read_runs(path, on_torn=torn.append))) == 1
    assert torn[0].reason == "no trailing newline, not valid UTF-8"


@pytest.mark.parametrize(("line", "kind"), [(b"[1, 2]", "an array"), (b'"text"', "a string"), (b"3", "a number"),
                                            (b"null", "null")])
def test_a_line_that_is_not_an_object_is_an_error(tmp_path: Path, line: bytes, kind: str) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(line + b"\n" + json.dumps(row_for("t", "a", 1).to_dict()).encode() + b"\n")
    with pytest.raises(InputError, match=f"line 1 is {kind}, not a run row"):
        list(read_runs(path))


def test_empty_and_blank_files_have_no_rows(tmp_path: Path) -> None:
    empty, blank = tmp_path / "empty.jsonl", tmp_path / "blank.jsonl"
    empty.write_bytes(b"")
    blank.write_bytes(b"\n  \n\n")
    assert list(read_runs(empty)) == [] and list(read_runs(blank)) == []
    with RunWriter(empty) as writer:
        assert writer.repair is None
    with pytest.raises(InputError, match="file not found"):
        list(read_runs(tmp_path / "nope.jsonl"))


# --- resume and duplicates -------------------------------------------------------------------------------


def test_resume_skips_cells_whose_latest_row_finished(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    write_rows(path, [
        row_for("t", "a", 1, "completed", "pass"),
        row_for("t", "a", 2, "limit_reached"),
        row_for("t", "a", 3, "error"),
        row_for("t", "a", 4, "budget_stopped"),
        row_for("t", "b", 1, "error"),
        row_for("t", "b", 1, "completed"),  # retried after an error: now done
        row_for("t", "b", 2, "completed"),
        row_for("t", "b", 2, "error"),  # its latest row failed: run it again
    ])
    assert completed_cells(path) == {"t::a::1", "t::a::2", "t::b::1"}
    assert completed_cells(tmp_path / "not-started.jsonl") == set()
    assert all(row.done == (row.cell_id in completed_cells(path)) for row in latest_rows(path).values())


def test_duplicate_cells_count_once_and_the_last_row_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_rows(first, [row_for("t", "a", 1, "error"), row_for("t", "a", 2, "completed", "pass"),
                       row_for("t", "a", 1, "completed", "fail")])
    write_rows(second, [row_for("t", "a", 2, "completed", "fail"), row_for("t", "a", 3)])
    latest = latest_rows([first, second])
    assert list(latest) == ["t::a::1", "t::a::2", "t::a::3"]
    assert latest["t::a::1"].outcome == "fail" and latest["t::a::2"].outcome == "fail"
    assert list(latest_rows(first)) == ["t::a::2", "t::a::1"]  # ordered by where the winner was written
    assert latest_rows(first)["t::a::2"].outcome == "pass"


# --- processes ------------------------------------------------------------------------------------------------

_CHILD = textwrap.dedent("""
    import json, os, sys, time
    from toolscore_core.kernel.jsonl import RunWriter
    from toolscore_core.kernel.runs import RunCall, RunRow
    path, prefix, count, size, tear = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    def row(n):
        return RunRow(task_id=prefix, arm_id="arm", repetition=n, status="completed", outcome="fail",
                      calls=[RunCall(tool="echo", result="x" * size)])
    with RunWriter(path) as writer:
        n = 0
        while count == 0 or n < count:
            n += 1
            writer.write(row(n))
            print(n, flush=True)  # only after write() returned: the row is fsynced
    if tear == "tear":  # the state a crash inside write() leaves: part of the next line
        data = json.dumps(row(n + 1).to_dict()).encode()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, data[: len(data) // 2])
        os.fsync(fd)
        print("torn", flush=True)
        time.sleep(120)
""")


def _child(path: Path, prefix: str, count: int, size: int, tear: str = "") -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _CHILD, str(path), prefix, str(count), str(size), tear or "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("tear", ["", "tear"])
def test_rows_of_a_writer_killed_mid_stream_are_all_there(tmp_path: Path, tear: str) -> None:
    """Killed at any moment while streaming, or right after it left half a line behind."""
    path = tmp_path / "runs.jsonl"
    child = _child(path, "killed", 25 if tear else 0, 300_000, tear)  # big rows: more time inside write()
    assert child.stdout is not None
    acknowledged = 0
    for line in child.stdout:
        if line.strip() == "torn":
            break
        acknowledged = int(line)
        if not tear and acknowledged >= 40:
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    torn: list[TornLine] = []
    rows = list(read_runs(path, on_torn=torn.append))
    assert [r.repetition for r in rows] == list(range(1, len(rows) + 1))
    assert len(rows) >= acknowledged
    if tear:
        assert len(rows) == acknowledged == 25 and len(torn) == 1 and torn[0].line == 26
    size_before = path.stat().st_size
    with RunWriter(path) as writer:  # the next study resumes: whatever was torn is kept aside
        assert (writer.repair is None) == (not torn)
        if writer.repair is not None:
            assert sidecar_path(path).stat().st_size == writer.repair.size + 1
            assert path.stat().st_size == size_before - writer.repair.size
        writer.write(RunRow(task_id="killed", arm_id="arm", repetition=len(rows) + 1, status="completed",
                            outcome="fail"))
    assert len(list(read_runs(path))) == len(rows) + 1
    assert completed_cells(path) >= {f"killed::arm::{n}" for n in range(1, acknowledged + 1)}


def test_two_processes_appending_at_once_never_mix_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    children = [_child(path, name, 150, 5_000) for name in ("left", "right")]
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    cells = [row.cell_id for row in read_runs(path)]
    assert len(cells) == 300
    assert {c for c in cells if c.startswith("left")} == {f"left::arm::{n}" for n in range(1, 151)}
    assert [c for c in cells if c.startswith("right")] == [f"right::arm::{n}" for n in range(1, 151)]


def test_reading_twenty_thousand_rows_streams_in_constant_memory(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    template = json.dumps(row_for("t", "a", 1).to_dict())
    with path.open("w", encoding="utf-8") as handle:
        for n in range(1, 20_001):
            handle.write(template.replace("t::a::1", f"t::a::{n}").replace('"repetition": 1', f'"repetition": {n}'))
            handle.write("\n")
    rows = read_runs(path)
    assert isinstance(rows, types.GeneratorType)
    # Traced over the first thousand rows (tracing all of them is slow): a reader that loaded
    # the file (11 MB) or kept its rows (about 600 bytes each) would pass the bound many times.
    tracemalloc.start()
    try:
        first = [row.cell_id for row in itertools.islice(rows, 1000)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first[0] == "t::a::1" and first[-1] == "t::a::1000"
    assert peak < 200_000
    assert 1000 + sum(1 for _ in rows) == 20_000
    assert path.stat().st_size > 10_000_000
