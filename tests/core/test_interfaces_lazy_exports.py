"""kernel.interfaces re-exports Executor, Guard, GuardDecision and Provider lazily (issue 12).

Why: every adapter, metric and exporter imports ``interfaces``; importing the executors',
guards' and providers' modules with it cost each ``toolscore eval`` about 7 ms, for names
nothing there uses. The names must still be importable from it exactly as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolscore_core.kernel import executors, guards, interfaces, providers

LAZY = {"Executor": executors, "Guard": guards, "GuardDecision": guards, "Provider": providers}
ELSEWHERE = ("toolscore_core.kernel.executors", "toolscore_core.kernel.guards", "toolscore_core.kernel.providers")


def _fresh_modules(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    done = subprocess.run([sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
                          capture_output=True, text=True, timeout=120, check=True)
    return set(done.stdout.split())


def test_importing_interfaces_imports_none_of_the_re_exported_modules() -> None:
    modules = _fresh_modules("import toolscore_core.kernel.interfaces")
    assert "toolscore_core.kernel.interfaces" in modules
    assert sorted(set(ELSEWHERE) & modules) == []


def test_eval_of_a_list_of_calls_imports_none_of_them_either(tmp_path: Path) -> None:
    """The trace is a plain list of calls, read by the kernel's own adapter: an installed
    plugin's adapter (which may well register a provider) is then never loaded."""
    calls = [{"tool": name, "args": {"q": "x"}, "result": "ok", "is_error": False, "duration": 0.01}
             for name in ("search", "book")]
    gold, trace = tmp_path / "gold.json", tmp_path / "trace.json"
    gold.write_text(json.dumps(calls))
    trace.write_text(json.dumps(calls[:1]))
    code = ("import contextlib, io\nfrom toolscore_core.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            f"    main(['eval', {str(gold)!r}, {str(trace)!r}])")
    modules = _fresh_modules(code)
    assert "toolscore_core.kernel.interfaces" in modules
    assert sorted(set(ELSEWHERE) & modules) == []


@pytest.mark.parametrize("name", sorted(LAZY))
def test_a_lazy_name_is_the_class_of_its_own_module(name: str) -> None:
    assert getattr(interfaces, name) is getattr(LAZY[name], name)
    assert name in interfaces.__all__ and name in dir(interfaces)


def test_from_import_and_star_import_still_give_every_public_name() -> None:
    code = ("from toolscore_core.kernel.interfaces import Executor, Guard, GuardDecision, Provider\n"
            "from toolscore_core.kernel.interfaces import *\n"
            "assert Guard.__module__ == 'toolscore_core.kernel.guards'")
    assert set(ELSEWHERE) <= _fresh_modules(code)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NotAThing'"):
        interfaces.NotAThing  # noqa: B018
