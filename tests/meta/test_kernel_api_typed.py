"""Every public kernel name is visible to type checkers, not only at run time.

``toolscore_core`` resolves its names lazily (``__getattr__``), which mypy and IDEs cannot
follow: without the ``if TYPE_CHECKING:`` imports every name a plugin author uses would be
``Any``. This keeps the two lists the same, so a name added to ``_LAZY`` without its typed
import fails here instead of silently losing its type.
"""

from __future__ import annotations

import ast
from pathlib import Path

INIT = Path(__file__).resolve().parents[2] / "toolscore_core" / "src" / "toolscore_core" / "__init__.py"


def _lazy_and_typed() -> tuple[dict[str, str], dict[str, str]]:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    lazy: dict[str, str] = {}
    typed: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_LAZY":
            assert isinstance(node.value, ast.Dict)
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                assert isinstance(key, ast.Constant) and isinstance(value, ast.Constant)
                lazy[key.value] = value.value
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom) and sub.module:
                    for alias in sub.names:
                        typed[alias.asname or alias.name] = sub.module
    return lazy, typed


def test_every_lazy_name_has_a_typed_import_from_the_same_module() -> None:
    lazy, typed = _lazy_and_typed()
    assert lazy, "no _LAZY map found"
    missing = sorted(set(lazy) - set(typed))
    stray = sorted(set(typed) - set(lazy))
    moved = sorted(n for n in set(lazy) & set(typed) if lazy[n] != typed[n])
    assert not missing, f"add these to the TYPE_CHECKING block of {INIT.name}: {missing}"
    assert not stray, f"typed but not public (not in _LAZY): {stray}"
    assert not moved, f"the typed import and _LAZY name different modules for: {moved}"
