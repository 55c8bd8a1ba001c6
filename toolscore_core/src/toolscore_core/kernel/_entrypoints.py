"""A fast scan of installed entry points, without importlib.metadata.

``importlib.metadata`` parses every distribution's METADATA (through the email package)
and costs 60-200 ms in a venv of a few hundred packages: more than the whole budget of
``toolscore --help``. Toolscore needs only the ``toolscore.*`` groups, so this module lists
the ``*.dist-info`` / ``*.egg-info`` folders on ``sys.path`` and reads their
``entry_points.txt`` alone; name and version come from the folder name, as the wheel spec
lays it out (``{name}-{version}.dist-info``).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from typing import Any

_NORMALIZE = re.compile(r"[-_.]+")


def normalize(name: str) -> str:
    """PEP 503 normalisation: ``Toolscore_Core`` -> ``toolscore-core``."""
    return _NORMALIZE.sub("-", name).lower()


class EntryPoint:
    """One entry point: ``name = module[:attr]`` in ``group``, from distribution ``dist``."""

    __slots__ = ("dist", "group", "name", "value", "version")

    def __init__(self, name: str, value: str, group: str, dist: str, version: str) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist = dist
        self.version = version

    def load(self) -> Any:
        module_name, _, attr = self.value.partition(":")
        obj: Any = importlib.import_module(module_name.strip())
        for part in filter(None, attr.strip().split(".")):
            obj = getattr(obj, part)
        return obj

    def __repr__(self) -> str:
        return f"EntryPoint({self.group}: {self.name} = {self.value} [{self.dist} {self.version}])"


def parse_entry_points(text: str, dist: str, version: str, prefix: str) -> list[EntryPoint]:
    """Parse an ``entry_points.txt`` (INI), keeping groups that start with ``prefix``."""
    found: list[EntryPoint] = []
    group: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
            continue
        if group is None or not group.startswith(prefix) or "=" not in line:
            continue
        name, _, value = line.partition("=")
        value = value.split("[", 1)[0].strip()  # drop "[extras]"
        found.append(EntryPoint(name.strip(), value, group, dist, version))
    return found


def _dist_name_version(folder: str) -> tuple[str, str]:
    stem = folder.rsplit(".", 1)[0]  # strip .dist-info / .egg-info
    name, _, version = stem.partition("-")
    return normalize(name), version.split("-", 1)[0] or "?"


def scan(prefix: str, paths: list[str] | None = None) -> list[EntryPoint]:
    """Every entry point in a group starting with ``prefix``, from the distributions on
    ``paths`` (default ``sys.path``). A distribution found twice counts once: the first on
    the path wins, as it does for imports."""
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for entry in paths if paths is not None else sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in sorted(names):
            if not folder.endswith((".dist-info", ".egg-info")):
                continue
            dist, version = _dist_name_version(folder)
            if dist in seen:
                continue
            seen.add(dist)
            path = os.path.join(entry, folder, "entry_points.txt")
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            if prefix in text:
                found.extend(parse_entry_points(text, dist, version, prefix))
    return found
