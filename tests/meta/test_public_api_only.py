"""plugins/ and examples/ use only Toolscore's public API, as outside authors must.

Allowed: ``from toolscore_core import NAME`` with NAME in ``toolscore_core.__all__``,
``from toolscore import NAME`` with NAME in ``toolscore.__all__``, and the documented
``toolscore_core.testing`` fixtures module. Anything else (a private module, a feature
distribution's internals) fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toolscore
import toolscore_core

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_MODULES = {"toolscore_core.testing"}
FIRST_PARTY = ("toolscore", "toolscore_core", "toolscore_adapters", "toolscore_mcp", "toolscore_agent",
               "toolscore_export")


def violations(path: Path) -> list[str]:
    problems = []
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in FIRST_PARTY and alias.name not in {"toolscore", "toolscore_core", *PUBLIC_MODULES}:
                    problems.append(f"{path}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top not in FIRST_PARTY:
                continue
            if node.module in PUBLIC_MODULES:
                continue
            if node.module == "toolscore_core":
                bad = [a.name for a in node.names if a.name not in toolscore_core.__all__]
            elif node.module == "toolscore":
                bad = [a.name for a in node.names if a.name not in toolscore.__all__]
            else:
                bad = [f"{node.module} (not a public module)"]
            problems += [f"{path}:{node.lineno}: from {node.module} import {b}" for b in bad]
    return problems


def python_files() -> list[Path]:
    return sorted(p for base in ("plugins", "examples") for p in (ROOT / base).rglob("*.py")
                  if ".venv" not in p.parts)


def test_there_is_something_to_check():
    assert any("third_party_plugin" in str(p) for p in python_files())


def test_plugins_and_examples_import_only_public_names():
    problems = [v for path in python_files() for v in violations(path)]
    assert problems == []


def test_the_checker_catches_a_private_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from toolscore_core.kernel.registry import collect\nfrom toolscore_core import _LAZY\n")
    assert len(violations(bad)) == 2
