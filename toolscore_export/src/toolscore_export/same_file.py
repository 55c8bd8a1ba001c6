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
    info = file_info(path)
    return None if info is None else (info.st_dev, info.st_ino)


def file_info(path: Path) -> os.stat_result | None:
    """``os.stat(path)``, or None when it cannot be read (missing, a symlink loop, a null byte)."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


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

        A symbolic link that loops is an InputError naming it, whenever that could matter.
        """
        return self.earlier_info(path)[0]

    def earlier_info(self, path: Path, info: os.stat_result | None = None) -> tuple[Path | None, os.stat_result | None]:
        """:meth:`earlier`, and the ``os.stat`` of ``path`` it used (None: it could not be made).

        Why: the export looks at each source's size and kind right after this check; handing
        it this ``stat`` saves it a second one (about 2 us a source). ``info``: that ``stat``
        when the caller made it already (the output check does), else it is made here.
        """
        if info is None:
            info = file_info(path)
        ident = None if info is None else (info.st_dev, info.st_ino)
        places = range(len(self._paths)) if ident is None else self._by_id.get(ident, [])
        found = None
        if ident is None or places:
            key = _resolved(path)
            found = next((self._paths[i] for i in places if self._key(i) == key), None)
        if ident is not None:
            self._by_id.setdefault(ident, []).append(len(self._paths))
        self._paths.append(path)
        self._keys.append(None)
        return found, info

    def _key(self, place: int) -> Path:
        key = self._keys[place]
        if key is None:
            key = self._keys[place] = _resolved(self._paths[place])
        return key


def _resolved(path: Path) -> Path:
    """``path.resolve()``, or an InputError naming it when it is a symbolic link that loops."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop: RuntimeError before Python 3.13, OSError from it
        from toolscore_core.kernel.files import symlink_loop

        raise symlink_loop(path) from None


__all__ = ["FileId", "SeenPaths", "file_id", "file_info", "may_be"]
