"""Every hook has at least one test named ``test_hook_<hook name>...`` (datasette's meta-test)."""

from __future__ import annotations

import re
from pathlib import Path

from toolscore_core.kernel import hookspecs

ROOT = Path(__file__).resolve().parents[2]


def test_every_hook_has_a_test():
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(re.findall(r"def (test_hook_\w+)", path.read_text(encoding="utf-8")))
    for hook in (n for n in dir(hookspecs) if n.startswith("toolscore_")):
        assert any(t.startswith(f"test_hook_{hook}") for t in names), f"no test_hook_{hook}* test"
