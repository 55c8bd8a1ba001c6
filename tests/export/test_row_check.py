"""The structural fast path of row validation never accepts what the run-row schema refuses.

Differential: the realistic rows of the export tests, each mutated at every key of every
level (removed, replaced by values of every JSON type and the awkward ones: bool for int,
1.0, -1, NaN, "", "a::b", a bad timestamp, an unknown key), are checked by both
``surely_valid`` and the kernel's ``validate_run_row``. Whenever the fast path says valid,
the validator must agree; and the rows the harness writes must take the fast path, or it
would buy nothing.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from toolscore_core import InputError, validate_run_row
from toolscore_export import export_runs
from toolscore_export.canonical import loads_prepared
from toolscore_export.row_check import surely_valid

from .conftest import row

ODD_VALUES: tuple[Any, ...] = (None, True, False, 0, -1, 1, 2, 1.0, 1.5, -0.5, float("nan"), "", "x", "a::b",
                               "t::a::1", "t::a::0", "t::a::1\n", "2026-12-02T10:15:00+00:00", "2026-13-02T10:15:00Z",
                               "completed", "pass", "=X", [], ["x"], [1], {}, {"k": 1}, {"tool": "t"}, ("x",))


def _base_rows() -> list[dict[str, Any]]:
    full = row().to_dict()
    bare = row(server=None, price=None, started_at=None, finished_at=None, guard_denials=(), usage={},
               evaluation=None).to_dict()
    return [loads_prepared(json.dumps(full)), loads_prepared(json.dumps(bare)), full]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(_paths(item, (*prefix, index)))
    return out


def _mutants(base: dict[str, Any], odd_values: tuple[Any, ...] = ODD_VALUES) -> list[dict[str, Any]]:
    """``base`` with each field, at every level, replaced by each of ``odd_values``, removed, or (an
    object) given a key no schema names."""
    out = []
    for path in _paths(base):
        parent_path, last = path[:-1], path[-1]
        for value in (*odd_values, "<removed>", "<extra key>"):
            mutant = copy.deepcopy(base)
            parent: Any = mutant
            for part in parent_path:
                parent = parent[part]
            if value == "<removed>":
                if isinstance(parent, dict):
                    del parent[last]
                else:
                    parent.pop(last)
            elif value == "<extra key>":
                target = parent[last]
                if not isinstance(target, dict):
                    continue
                target["unexpected"] = 1
            else:
                parent[last] = copy.deepcopy(value)
            out.append(mutant)
    return out


def _schema_accepts(data: Any) -> bool:
    try:
        validate_run_row(data)
    except InputError:
        return False
    return True


def test_rows_the_harness_writes_take_the_fast_path() -> None:
    for base in _base_rows():
        assert surely_valid(base)
        assert _schema_accepts(base)


@pytest.mark.parametrize("which", [0, 1])
def test_the_fast_path_never_accepts_a_row_the_schema_refuses(which: int) -> None:
    accepted = refused = 0
    for mutant in _mutants(_base_rows()[which]):
        fast = surely_valid(mutant)
        exact = _schema_accepts(mutant)
        assert not (fast and not exact), f"fast path accepted a row the schema refuses: {mutant}"
        accepted += fast
        refused += not exact
    assert accepted > 200 and refused > 200  # both sides are really exercised


def test_the_root_keys_and_top_level_shapes() -> None:
    base = _base_rows()[0]
    assert not surely_valid([base])
    assert not surely_valid({**base, "unexpected": 1})
    for key in ("cell_id", "task_id", "calls", "passed"):
        assert not surely_valid({k: v for k, v in base.items() if k != key})


def test_a_bad_row_still_gets_the_kernels_error_naming_line_and_field(tmp_path) -> None:
    good = json.dumps(row().to_dict())
    bad = row(repetition=2).to_dict()
    bad["calls"][0]["duration"] = -1
    source = tmp_path / "runs.jsonl"
    source.write_text(good + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        export_runs([source], tmp_path / "out.jsonl")
    assert "line 2" in str(caught.value)
    assert "$.calls[0].duration" in str(caught.value) or "calls" in str(caught.value.location)
