"""``toolscore.cases``: one test, many prompts, from a list or a YAML/JSON file of case dicts.

Each case dict becomes one parametrized test; its keys are the test's arguments. The
test id (and so the snapshot's file name) comes from the case's ``id``, else ``name``,
else ``input`` (tool-scorer 1.10.0's default key), else its position. The ``id`` and ``name`` keys are passed to
the test only if it has a parameter of that name: they are labels, not inputs.

Call forms of tool-scorer 1.10.0 keep working: ``cases([...])`` and
``cases([...], id_key="input")``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_ID_KEYS = ("id", "name", "input")
LABEL_KEYS = frozenset({"id", "name"})


def _read(path: Path) -> Any:
    from toolscore_core import InputError, load_data_file

    if not path.is_file():
        raise InputError("no such cases file", file=path, hint="give a YAML or JSON file of case dicts, "
                         "relative to the test module or the current directory")
    data = load_data_file(path)
    if isinstance(data, Mapping) and "cases" in data:
        data = data["cases"]
    if not isinstance(data, list):
        raise InputError("a cases file holds a list of case dicts", file=path, location="$",
                         expected='a list such as [{"id": "nyc", "input": "book a flight to NYC"}] '
                                  '(or {"cases": [...]})')
    return data


def _locate(path: str | Path, caller: str | None) -> Path:
    """``path`` as given if absolute; else next to the calling test module, else from the cwd
    (a test module's cases file must not depend on where pytest was started)."""
    given = Path(path)
    if given.is_absolute() or caller is None:
        return given
    beside = Path(caller).parent / given
    return beside if beside.is_file() else given


def cases(items_or_path: Sequence[Mapping[str, Any]] | str | Path, *, id_key: str | None = None) -> Any:
    """A ``pytest.mark.parametrize`` over ``items_or_path`` (case dicts, or a YAML/JSON file of them).

    :param id_key: the key whose value names each case; default ``id``, then ``name``,
        then ``input``, else the case's index.
    """
    import pytest

    from toolscore_core import InputError

    where: Path | None = None
    if isinstance(items_or_path, (str, Path)):
        frame = inspect.currentframe()
        caller = frame.f_back.f_code.co_filename if frame is not None and frame.f_back is not None else None
        where = _locate(items_or_path, caller)
        items: Any = _read(where)
    else:
        items = items_or_path
    if isinstance(items, Mapping) or not isinstance(items, Sequence) or not items:
        raise InputError("cases() needs a non-empty list of case dicts", file=where, location="$" if where else None,
                         expected='[{"input": "book a flight to NYC"}, ...] or the path of a YAML/JSON file of them')
    for index, case in enumerate(items):
        if not isinstance(case, Mapping) or not case:
            raise InputError("each case must be a non-empty mapping of argument name to value", file=where,
                             location=f"$[{index}]", expected='{"input": "...", ...}')
    keys = list(items[0])
    for index, case in enumerate(items):
        if set(case) != set(keys):
            raise InputError(f"case {index} has keys {sorted(case)}, the first case has {sorted(keys)}", file=where,
                             location=f"$[{index}]", hint="give every case the same keys (they are the test's arguments)")
        for key in case:
            if not isinstance(key, str) or not key.isidentifier():
                raise InputError(f"case key {key!r} cannot be a test argument", file=where,
                                 location=f"$[{index}]", expected="Python identifiers such as input, expected")
    ids = [_case_id(case, index, id_key) for index, case in enumerate(items)]

    def parametrize(test: Any) -> Any:
        """Apply the mark with the keys ``test`` takes (labels it does not take are left out)."""
        try:
            accepted = inspect.signature(test).parameters
        except (TypeError, ValueError):
            accepted = None
        wanted = [k for k in keys if k not in LABEL_KEYS or accepted is None or k in accepted]
        mark = pytest.mark.parametrize(wanted, [tuple(case[k] for k in wanted) for case in items], ids=ids)
        return mark(test)

    return parametrize


def _case_id(case: Mapping[str, Any], index: int, id_key: str | None) -> str:
    for key in (id_key,) if id_key is not None else DEFAULT_ID_KEYS:
        if key in case and case[key] is not None:
            return str(case[key])
    return str(index)
