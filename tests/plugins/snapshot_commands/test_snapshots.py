"""``toolscore snapshots list | show | diff | rm`` on a real store in a temporary project."""

from __future__ import annotations

import json

CALLS = [{"tool": "search_flights", "args": {"to": "NYC"}}, {"tool": "book", "args": {"flight": "UA1"}}]


def _trace(path, calls):
    path.write_text(json.dumps([{"tool": c["tool"], "args": c["args"]} for c in calls]), encoding="utf-8")
    return str(path)


def test_list_shows_state_calls_source_and_file(cli, add_snapshot):
    add_snapshot("tests/test_a.py::test_one", CALLS, approved=True)
    add_snapshot("rec", CALLS[:1], source="record")
    result = cli("snapshots", "list")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["STATE", "NAME", "CALLS", "SOURCE", "FILE"]
    row = next(line for line in lines if "rec " in line).split()
    assert row[:4] == ["pending", "rec", "1", "record"]
    assert row[4].startswith(".toolscore/snapshots/rec-") and row[4].endswith(".json")
    assert "2 snapshot(s), 1 pending approval." in result.output


def test_list_pending_and_json(cli, add_snapshot):
    add_snapshot("done", CALLS, approved=True)
    add_snapshot("todo", CALLS)
    result = cli("snapshots", "list", "--pending", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [(r["name"], r["state"], r["calls"], r["source"]) for r in rows] == [("todo", "pending", 2, "pytest")]


def test_list_of_an_empty_store(cli, project):
    result = cli("snapshots", "list")
    assert result.exit_code == 0
    assert "No snapshots in" in result.output


def test_show_prints_the_calls_as_a_table(cli, add_snapshot):
    add_snapshot("flight", CALLS)
    result = cli("snapshots", "show", "flight")
    assert result.exit_code == 0, result.output
    assert "Snapshot: flight  (pending)" in result.output
    assert "Calls:    2" in result.output
    assert any(line.split()[:2] == ["1", "search_flights"] and '{"to": "NYC"}' in line
               for line in result.output.splitlines())
    assert "toolscore approve flight" in result.output
    data = json.loads(cli("snapshots", "show", "flight", "--json").output)
    assert data["calls"] == CALLS and data["state"] == "pending"


def test_show_unknown_name_suggests(cli, add_snapshot):
    add_snapshot("flight", CALLS)
    result = cli("snapshots", "show", "flihgt")
    assert result.exit_code == 2
    assert "Did you mean 'flight'" in result.output


def test_show_makes_hostile_args_visible(cli, add_snapshot):
    add_snapshot("x", [{"tool": "t\x1b]52;c;AAAA\x07", "args": {"q": "\u202eevil\x1b[2J"}}])
    result = cli("snapshots", "show", "x")
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\u202e" not in result.output and "\x07" not in result.output
    as_json = cli("snapshots", "show", "x", "--json").output
    assert "\x1b" not in as_json and "\u202e" not in as_json
    assert json.loads(as_json)["calls"][0]["args"]["q"] == "\u202eevil\x1b[2J"  # same data, escaped


def test_diff_same_trace_exits_0(cli, add_snapshot, tmp_path):
    add_snapshot("flight", CALLS, approved=True)
    result = cli("snapshots", "diff", "flight", "--against", _trace(tmp_path / "t.json", CALLS))
    assert result.exit_code == 0, result.output
    assert "No difference" in result.output


def test_diff_shows_wrong_arg_and_missing_call_and_exits_1(cli, add_snapshot, tmp_path):
    add_snapshot("flight", CALLS, approved=True)
    drifted = [{"tool": "search_flights", "args": {"to": "LAX"}}]
    result = cli("snapshots", "diff", "flight", "--against", _trace(tmp_path / "t.json", drifted))
    assert result.exit_code == 1, result.output
    rows = result.output.splitlines()
    assert any("search_flights" in r and "LAX" in r and r.rstrip().endswith("args differ") for r in rows)
    assert any(r.split()[:2] == ["2", "book"] and r.rstrip().endswith("missing") for r in rows)
    assert "differs" in result.output


def test_diff_needs_against_and_a_good_trace(cli, add_snapshot, tmp_path):
    add_snapshot("flight", CALLS)
    missing = cli("snapshots", "diff", "flight")
    assert missing.exit_code == 2 and "--against FILE" in missing.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    broken = cli("snapshots", "diff", "flight", "--against", str(bad))
    assert broken.exit_code == 2
    assert "bad.json" in broken.output and "Traceback" not in broken.output


def test_rm_by_name_and_all_pending(cli, store, add_snapshot):
    add_snapshot("keep", CALLS, approved=True)
    add_snapshot("p1", CALLS)
    add_snapshot("p2", CALLS)
    add_snapshot("gone", CALLS, approved=True)
    result = cli("snapshots", "rm", "gone", "--yes")
    assert result.exit_code == 0, result.output
    assert store.load("gone") is None and "deleted 'gone'" in result.output
    result = cli("snapshots", "rm", "--all-pending", "--yes")
    assert result.exit_code == 0, result.output
    assert [s.name for s in store.list()] == ["keep"]


def test_rm_unknown_name_deletes_nothing(cli, store, add_snapshot):
    add_snapshot("a", CALLS)
    result = cli("snapshots", "rm", "a", "b", "--yes")
    assert result.exit_code == 2
    assert "no snapshot named 'b'" in result.output
    assert store.load("a") is not None


def test_rm_without_yes_and_without_a_terminal_refuses(cli, store, add_snapshot):
    add_snapshot("a", CALLS)
    result = cli("snapshots", "rm", "a", input="")
    assert result.exit_code == 2
    assert "--yes" in result.output
    assert store.load("a") is not None


def test_reads_a_tool_scorer_110_snapshot_file(cli, store):
    # The file tool-scorer 1.10.0 writes (with its timestamps and version fields).
    path = store.path_for("my_snap")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "schema_version": 1, "name": "my_snap", "created_at": "2026-01-01T00:00:00+00:00",
        "updated_at": "2026-01-01T00:00:00+00:00", "toolscore_version": "1.10.0", "approved": False,
        "source": "trace", "calls": [{"tool": "get_weather", "args": {"city": "Paris"}}]}), encoding="utf-8")
    listed = cli("snapshots", "list")
    assert "pending  my_snap  1" in listed.output
    assert cli("approve", "my_snap").exit_code == 0
    assert store.load("my_snap").approved


def test_malformed_snapshot_file_is_exit_2_naming_it(cli, store):
    store.root.mkdir(parents=True)
    (store.root / "broken-00000000.json").write_text("{", encoding="utf-8")
    result = cli("snapshots", "list")
    assert result.exit_code == 2
    assert "broken-00000000.json" in result.output
