"""Every hook is documented in docs/plugins/hooks.md with its exact signature (datasette's
docs meta-test): a hook added without docs, or docs left behind by a rename, fails here."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from toolscore_core.kernel import hookspecs

ROOT = Path(__file__).resolve().parents[2]
HOOKS_DOC = ROOT / "docs" / "plugins" / "hooks.md"


def spec_names() -> list[str]:
    return sorted(name for name in dir(hookspecs) if name.startswith("toolscore_"))


def documented() -> dict[str, str]:
    """heading name -> the argument list written in the heading."""
    found = {}
    for match in re.finditer(r"^## (toolscore_\w+)\(([^)]*)\)", HOOKS_DOC.read_text(), re.M):
        found[match.group(1)] = match.group(2)
    return found


def test_every_hook_is_documented_with_its_signature():
    docs = documented()
    for name in spec_names():
        assert name in docs, f"{name} is missing from docs/plugins/hooks.md"
        params = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        assert docs[name] == params, f"{name}: documented ({docs[name]}) but the spec takes ({params})"


def test_no_documented_hook_is_stale():
    assert sorted(documented()) == spec_names()


def test_every_hook_has_a_group_named_in_the_doc():
    text = HOOKS_DOC.read_text()
    from toolscore_core.kernel.plugins import GROUPS

    for kind in GROUPS:
        assert f"`toolscore.{kind}`" in text
