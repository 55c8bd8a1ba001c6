"""Print the third-party requirements of some of this repository's distributions, one a line.

Why: the packaging test installs ``toolscore`` into a clean virtual environment with no index
(``pip install --no-index``), so every third-party wheel it needs must already be on disk.
``make wheelhouse`` feeds this list to ``pip wheel``. The list is computed from the
pyproject.toml files, following the first-party pins (``toolscore-core==0.1.0`` ...) to the
folder that builds each one, so a dependency added to any pyproject reaches the wheelhouse
without anyone editing a hand-kept list.

Usage: ``python scripts/wheelhouse_requirements.py toolscore toolscore-agent``
(names of distributions built from this repository, extras allowed: ``toolscore[export]``).
Standard library only: it runs before anything else is installed.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# "name[extra1,extra2] >=1.0; marker" -> name, extras
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")


def refuse(message: str) -> SystemExit:
    """Bad input (a Makefile without DISTS, an unknown name): one line on stderr, exit code 2."""
    print(f"wheelhouse_requirements: {message}", file=sys.stderr)
    return SystemExit(2)


def canonical(name: str) -> str:
    """PEP 503 form, so ``Toolscore_Core`` and ``toolscore-core`` are one distribution."""
    return re.sub(r"[-_.]+", "-", name).lower()


def makefile_dists(root: Path = ROOT) -> list[str]:
    """The folders the Makefile's ``DISTS`` line names: the one list of distributions kept by hand."""
    text = (root / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^DISTS\s*:?=\s*(.+)$", text, re.MULTILINE)
    if match is None:
        raise refuse("Makefile: no DISTS line; it lists the distribution folders")
    return match.group(1).split()


def distribution_folders(root: Path = ROOT) -> list[Path]:
    """Every folder that builds a distribution: the root metapackage, DISTS, and each plugin.

    Plugins are discovered (``plugins/*/pyproject.toml``) so one whose author has not yet
    added it to DISTS is still built and checked.
    """
    folders = [root, *(root / d for d in makefile_dists(root))]
    folders += sorted(p.parent for p in (root / "plugins").glob("*/pyproject.toml"))
    unique: list[Path] = []
    for folder in folders:
        if (folder / "pyproject.toml").is_file() and folder.resolve() not in {u.resolve() for u in unique}:
            unique.append(folder)
    return unique


def projects(root: Path = ROOT) -> dict[str, dict]:
    """Canonical distribution name -> its ``[project]`` table."""
    found: dict[str, dict] = {}
    for folder in distribution_folders(root):
        project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        found[canonical(project["name"])] = project
    return found


def _parse(requirement: str) -> tuple[str, set[str]]:
    match = REQUIREMENT.match(requirement)
    if match is None:
        raise refuse(f"cannot read the requirement {requirement!r}")
    extras = {e.strip() for e in (match.group(2) or "").split(",") if e.strip()}
    return canonical(match.group(1)), extras


def third_party(wanted: Iterable[str], root: Path = ROOT) -> list[str]:
    """The third-party requirements (as written, markers kept) that installing ``wanted`` pulls in."""
    known = projects(root)
    seen: set[tuple[str, str]] = set()
    out: set[str] = set()
    queue = [_parse(w) for w in wanted]
    while queue:
        name, extras = queue.pop()
        if name not in known:
            raise refuse(f"{name}: no distribution of that name is built from this repository")
        for extra in ["", *sorted(extras)]:
            if (name, extra) in seen:
                continue
            seen.add((name, extra))
            project = known[name]
            deps = project.get("dependencies", []) if not extra else project.get(
                "optional-dependencies", {}).get(extra, [])
            for dep in deps:
                dep_name, dep_extras = _parse(dep)
                if dep_name in known:
                    queue.append((dep_name, dep_extras))
                else:
                    out.add(dep.strip())
    return sorted(out, key=str.lower)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for line in third_party(argv):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
