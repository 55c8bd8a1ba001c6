"""SnapshotStore: file names compatible with tool-scorer 1.10.0, stable bytes, safe names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolscore_pytest.store import Snapshot, SnapshotStore, find_root, sanitize

from toolscore_core import InputError

CALLS = ({"tool": "search", "args": {"q": "NYC", "n": 3}},)


def test_file_names_are_1_10_0_names(tmp_path):
    store = SnapshotStore(tmp_path)
    # the names tool-scorer 1.10.0 gives these node ids (checked against its release)
    assert store.path_for("tests/test_a.py::test_x[a-b]").name == "tests__test_a.py__test_x__a-b__-7385b786.json"
    assert store.path_for("test_legacy.py::test_books[nyc]").name == "test_legacy.py__test_books__nyc__-aa995ce1.json"


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "..", ".", "a/../../b", "..\\..\\x",
                                  "C:\\evil", "x" * 500, "\x00nul", "sub/dir/name"])
def test_no_name_escapes_the_directory(tmp_path, name):
    store = SnapshotStore(tmp_path / "snaps")
    path = store.path_for(name)
    assert path.parent == store.root
    assert len(path.name) <= 100 + len("-12345678.json")
    store.save(Snapshot(name=name, calls=CALLS))
    assert [p.parent for p in (tmp_path / "snaps").iterdir()] == [store.root]
    assert list(tmp_path.iterdir()) == [tmp_path / "snaps"]
    assert store.load(name).name == name


def test_control_characters_never_reach_a_file_name(tmp_path):
    name = "test_x.py::test_\x1b[2J\u202eevil"
    stem = sanitize(name)
    assert "\x1b" not in stem and "\u202e" not in stem
    store = SnapshotStore(tmp_path)
    store.save(Snapshot(name=name, calls=CALLS))
    assert store.load(name).name == name  # the name itself is kept, only the file name is cleaned
    with pytest.raises(InputError) as info:
        store.approve("test_x.py::test_\x1b[2J\u202eevi")
    assert "\x1b" not in str(info.value) and "\u202e" not in str(info.value)


def test_saving_twice_is_byte_identical_sorted_plain_json(tmp_path):
    store = SnapshotStore(tmp_path)
    snapshot = Snapshot(name="t::x", calls=({"tool": "s", "args": {"b": 1, "a": "é"}},))
    path = store.save(snapshot)
    first = path.read_bytes()
    assert store.save(snapshot) == path and path.read_bytes() == first
    text = first.decode("utf-8")
    assert "é" in text and text.endswith("\n")
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_approve_pending_list_delete(tmp_path):
    store = SnapshotStore(tmp_path)
    assert store.list() == [] and store.pending() == []
    store.save(Snapshot(name="b", calls=CALLS))
    store.save(Snapshot(name="a", calls=CALLS))
    assert [s.name for s in store.pending()] == ["a", "b"]
    assert store.approve("a").approved is True
    assert [s.name for s in store.pending()] == ["b"]
    assert [s.name for s in store.approve_all()] == ["b"]
    assert store.pending() == [] and [s.name for s in store.list()] == ["a", "b"]
    store.delete("a")
    store.delete("a")  # absent: nothing happens
    assert [s.name for s in store.list()] == ["b"]


def test_approving_an_unknown_name_suggests_close_names(tmp_path):
    store = SnapshotStore(tmp_path)
    store.save(Snapshot(name="tests/test_agent.py::test_books", calls=CALLS))
    with pytest.raises(InputError, match=r"did you mean 'tests/test_agent.py::test_books'"):
        store.approve("tests/test_agent.py::test_book")


@pytest.mark.parametrize(("text", "place"), [
    ("{not json", "line 1, column 2"),
    ("[]", "$"),
    ('{"calls": []}', "$.name"),
    ('{"name": "t::x"}', "$.calls"),
    ('{"name": "t::x", "calls": [{"tool": 3}]}', "$.calls[0].tool"),
    ('{"name": "t::x", "calls": [{"tool": "a", "args": [1]}]}', "$.calls[0].args"),
    ('{"name": "t::x", "calls": [], "approved": "yes"}', "$.approved"),
])
def test_a_malformed_file_names_the_file_and_place(tmp_path, text, place):
    store = SnapshotStore(tmp_path)
    path = store.path_for("t::x")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        store.load("t::x")
    message = str(info.value)
    assert str(path) in message and place in message and "delete it" in message
    with pytest.raises(InputError):
        store.list()


def test_unserialisable_calls_are_an_input_error_and_leave_no_file(tmp_path):
    store = SnapshotStore(tmp_path)
    with pytest.raises(InputError, match="not plain JSON"):
        store.save(Snapshot(name="t::x", calls=({"tool": "a", "args": {"when": object()}},)))
    assert list(tmp_path.iterdir()) == []


def test_a_1_10_0_file_is_read_unchanged(tmp_path):
    store = SnapshotStore(tmp_path)
    legacy = {  # as tool-scorer 1.10.0 writes it
        "schema_version": 1, "name": "test_legacy.py::test_books[nyc]",
        "created_at": "2026-01-03T08:31:18.699268+00:00", "updated_at": "2026-01-03T08:31:18.699298+00:00",
        "toolscore_version": "1.10.0", "approved": True, "source": "pytest",
        "calls": [{"tool": "search_flights", "args": {"destination": "NYC"}}],
    }
    path = tmp_path / "test_legacy.py__test_books__nyc__-aa995ce1.json"
    path.write_text(json.dumps(legacy, indent=2), encoding="utf-8")
    before = path.read_bytes()
    snapshot = store.load("test_legacy.py::test_books[nyc]")
    assert snapshot.approved and snapshot.calls == ({"tool": "search_flights", "args": {"destination": "NYC"}},)
    assert path.read_bytes() == before and store.approve(snapshot.name) == snapshot  # already approved: no write
    assert path.read_bytes() == before


def test_find_root_walks_up_to_the_project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_root(deep) == tmp_path
    (tmp_path / "a" / ".toolscore").mkdir()
    assert find_root(deep) == tmp_path / "a"
    assert find_root(Path(deep)) == find_root(str(deep))
