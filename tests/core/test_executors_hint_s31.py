"""The hint for a script that starts its work at import: given for a worker that exited 1 (the
bootstrapping error) or 255 (the forkserver lost its real status, as it did on a loaded CI
machine), never for another status, and never when the main module is a console script."""

from __future__ import annotations

import multiprocessing
import os
import sys
import types

import pytest

from toolscore_core.builtin.executors import _unguarded_script_hint


def _ended(status: int) -> multiprocessing.process.BaseProcess:
    """A real worker process that exited with ``status``."""
    process = multiprocessing.get_context("fork").Process(target=os._exit, args=(status,))
    process.start()
    process.join(30)
    assert process.exitcode == status
    return process


@pytest.fixture
def main_is(monkeypatch):
    def set_main(path: str) -> None:
        module = types.ModuleType("__main__")
        module.__file__ = path
        monkeypatch.setitem(sys.modules, "__main__", module)

    return set_main


@pytest.mark.parametrize(("status", "hinted"), [(1, True), (255, True), (3, False), (0, False)])
def test_a_scripts_workers_that_died_at_once_get_the_hint(main_is, status, hinted):
    main_is("/home/someone/score_all.py")
    hint = _unguarded_script_hint([_ended(status)])
    assert ('if score_all.py starts this work when it is imported, put that under `if __name__ == "__main__":`'
            in hint) is hinted
    assert hinted or hint == ""


@pytest.mark.parametrize("status", [1, 255])
def test_a_console_script_is_never_told_to_guard_itself(main_is, status):
    main_is("/venv/bin/toolscore")
    assert _unguarded_script_hint([_ended(status)]) == ""
