"""``toolscore approve``: by name, --all, unknown names, nothing pending, hostile names."""

from __future__ import annotations

CALLS = [{"tool": "search", "args": {"q": "flights"}}]


def test_approve_by_name_marks_only_that_snapshot(cli, store, add_snapshot):
    add_snapshot("tests/test_a.py::test_one", CALLS)
    add_snapshot("tests/test_a.py::test_two", CALLS)
    result = cli("approve", "tests/test_a.py::test_one")
    assert result.exit_code == 0, result.output
    assert "approved 'tests/test_a.py::test_one'" in result.output
    assert store.load("tests/test_a.py::test_one").approved
    assert not store.load("tests/test_a.py::test_two").approved


def test_approve_all_approves_every_pending_one(cli, store, add_snapshot):
    add_snapshot("a", CALLS)
    add_snapshot("b", CALLS)
    add_snapshot("c", CALLS, approved=True)
    result = cli("approve", "--all")
    assert result.exit_code == 0, result.output
    assert "Approved 2 snapshot(s)" in result.output
    assert store.pending() == []


def test_nothing_pending_says_so_and_exits_0(cli, add_snapshot):
    add_snapshot("a", CALLS, approved=True)
    result = cli("approve", "--all")
    assert result.exit_code == 0
    assert "No pending snapshots" in result.output
    again = cli("approve", "a")
    assert again.exit_code == 0
    assert "already approved 'a'" in again.output


def test_unknown_name_exits_2_suggests_close_names_and_approves_nothing(cli, store, add_snapshot):
    add_snapshot("test_books_a_flight", CALLS)
    result = cli("approve", "test_books_a_flight", "test_book_a_flight")
    assert result.exit_code == 2
    assert "no snapshot named 'test_book_a_flight'" in result.output
    assert "Did you mean 'test_books_a_flight'" in result.output
    assert "Traceback" not in result.output
    assert not store.load("test_books_a_flight").approved  # the list is checked before any change


def test_no_name_and_no_all_is_a_usage_error(cli, project):
    result = cli("approve")
    assert result.exit_code == 2
    assert "--all" in result.output


def test_dir_option_reads_another_store(cli, tmp_path):
    from toolscore_pytest.store import Snapshot, SnapshotStore

    other = SnapshotStore(tmp_path / "elsewhere")
    other.save(Snapshot(name="x", calls=tuple(CALLS)))
    result = cli("approve", "--all", "--dir", str(tmp_path / "elsewhere"))
    assert result.exit_code == 0, result.output
    assert other.load("x").approved


def test_hostile_names_are_printed_visibly(cli, add_snapshot):
    add_snapshot("evil\x1b[2J\u202ename", CALLS)
    result = cli("approve", "--all")
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert "\\x1b[2J\\u202ename" in result.output


def test_subfolder_finds_the_project_store(cli, project, store, add_snapshot, monkeypatch):
    add_snapshot("a", CALLS)
    (project / "tests" / "deep").mkdir(parents=True)
    monkeypatch.chdir(project / "tests" / "deep")
    result = cli("approve", "a")
    assert result.exit_code == 0, result.output
    assert store.load("a").approved
