"""Judgments on disk: a small SQLite file, so a rerun asks the model nothing and scores the same.

Each answer is stored under the sha256 of (model, prompt version, the question as sent), so
a different model, a changed prompt or a changed question never reuses an answer. Modes:
``write`` (the default) reads stored answers and stores new ones; ``read`` only reads (a CI
replay that must not grow the file); ``off`` neither reads nor writes.

The default file is ``judge.sqlite`` in the user's cache directory: ``$XDG_CACHE_HOME`` (or
``~/.cache``) on Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows, each
under ``toolscore/``; ``TOOLSCORE_CACHE_DIR`` overrides the directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from toolscore_core import InputError, JudgeAnswer
from toolscore_judge.defaults import CACHE_MODES, DEFAULT_MODE, CacheMode


def default_cache_path() -> Path:
    """The platform's user cache directory, ``toolscore/judge.sqlite`` in it."""
    override = os.environ.get("TOOLSCORE_CACHE_DIR")
    if override:
        return Path(override) / "judge.sqlite"
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "toolscore" / "judge.sqlite"


def cache_key(model: str, prompt_version: str, payload: Any) -> str:
    """sha256 of the model, the prompt version and the question, as canonical JSON."""
    text = json.dumps([model, prompt_version, payload], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class JudgeCache:
    """The answer store; opened on first use, so ``off`` never touches the disk."""

    def __init__(self, path: str | Path | None = None, mode: str = DEFAULT_MODE) -> None:
        if mode not in CACHE_MODES:
            raise InputError(f"judge cache mode {mode!r} is unknown", expected="off, read or write")
        self.mode = mode
        self.path = Path(path) if path is not None else default_cache_path()
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None:
            if self.mode == "read" and not self.path.exists():
                return None
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=10)
                db.execute("CREATE TABLE IF NOT EXISTS judgments (key TEXT PRIMARY KEY, model TEXT, "
                           "prompt_version TEXT, equivalent INTEGER, reason TEXT, confidence REAL, created REAL)")
            except (OSError, sqlite3.Error) as exc:
                raise InputError(f"cannot open the judge cache {self.path}: {exc}",
                                 hint="Give another file with --llm-judge-cache-path, or --llm-judge-cache off") from None
            self._db = db
        return self._db

    def get(self, key: str) -> JudgeAnswer | None:
        if self.mode == "off":
            return None
        db = self._connect()
        if db is None:
            return None
        row = db.execute("SELECT equivalent, reason, confidence FROM judgments WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return JudgeAnswer(equivalent=bool(row[0]), reason=row[1], confidence=row[2])

    def put(self, key: str, model: str, prompt_version: str, answer: JudgeAnswer) -> None:
        if self.mode != "write":
            return
        db = self._connect()
        assert db is not None  # write mode always connects
        with db:
            db.execute("INSERT OR REPLACE INTO judgments VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (key, model, prompt_version, int(answer.equivalent), answer.reason, answer.confidence,
                        time.time()))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


__all__ = ["CACHE_MODES", "DEFAULT_MODE", "CacheMode", "JudgeCache", "cache_key", "default_cache_path"]
