"""Whether two paths name the same file, by the export's rule (equal ``Path.resolve()``), resolving few paths.

Why: an export checks each source against the output and against every earlier source, and
``resolve()`` costs an ``lstat`` and some Python per part of the path (about 25 us), twice per
source: a twelfth of the driver's time on an export of many small trace files. Two paths
whose ``resolve()`` are equal name one file, so they have the same device and inode; paths
whose device and inode differ (one ``stat``, about 3 us) need no resolving. A path that
cannot be ``stat``-ed (missing, a symlink loop) is resolved and compared as before.
"""

from __future__ import annotations

import os
from pathlib import Path

FileId = tuple[int, int]


def file_id(path: Path) -> FileId | None:
    """The device and inode of the file ``path`` names (symlinks followed); None when it cannot be read."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def may_be(path: Path, target: FileId | None) -> bool:
    """False only when ``path`` surely resolves to another path than the file ``target`` (None: unknown)."""
    return target is None or file_id(path) in (None, target)


class SeenPaths:
    """Paths met so far, to find the earlier one that resolves to the same path as a new one."""

    def __init__(self) -> None:
        self._paths: list[Path] = []
        self._keys: list[Path | None] = []  # each path's resolve(), once needed
        self._by_id: dict[FileId, list[int]] = {}

    def earlier(self, path: Path) -> Path | None:
        """The earlier path whose ``resolve()`` equals ``path.resolve()``, or None; then ``path`` is met.

        Raises what ``path.resolve()`` raises (a symlink loop) whenever that could matter.
        """
        ident = file_id(path)
        places = range(len(self._paths)) if ident is None else self._by_id.get(ident, [])
        found = None
        if ident is None or places:
            key = path.resolve()
            found = next((self._paths[i] for i in places if self._key(i) == key), None)
        if ident is not None:
            self._by_id.setdefault(ident, []).append(len(self._paths))
        self._paths.append(path)
        self._keys.append(None)
        return found

    def _key(self, place: int) -> Path:
        key = self._keys[place]
        if key is None:
            key = self._keys[place] = self._paths[place].resolve()
        return key


__all__ = ["FileId", "SeenPaths", "file_id", "may_be"]
