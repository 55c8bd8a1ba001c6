"""The gold file's fingerprint in a baseline, so ``regression`` can tell it changed.

Why: a regression check compares a new score with a saved one; if the gold file was
edited in between (an expected call added, an argument loosened), the two scores answer
different questions and "no regression" means nothing. The digest is of the file's
*content* (parsed, then canonical JSON), so re-indenting a JSON file or re-ordering keys
does not count as a change, while any change of meaning does.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

DIGEST_KEY = "gold_digest"


def gold_digest(path: str | Path) -> str | None:
    """``"sha256:<hex>"`` of the gold file's content, or None when ``path`` is not a
    readable data file (``gold_file`` may be only a label, which must not stop a save)."""
    from toolscore_core.kernel.errors import InputError
    from toolscore_core.kernel.files import load_data_file

    file = Path(path)
    try:
        if not file.is_file():
            return None
        data = load_data_file(file)
    except (OSError, ValueError, InputError):
        return None
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def bytes_md5(path: str | Path) -> str | None:
    """``"md5:<hex>"`` of the file's bytes, the digest tool-scorer 1.10.0 baselines hold
    (None when it cannot be read). Not for security: only to tell whether a file changed."""
    try:
        return "md5:" + hashlib.md5(Path(path).read_bytes(), usedforsecurity=False).hexdigest()
    except OSError:
        return None


def gold_change(baseline: dict[str, Any], gold_path: str | Path) -> tuple[bool, str | None]:
    """(changed, message): whether GOLD differs from the baseline's, and what to tell the user.

    ``changed`` is True only for a known difference; a baseline saved before digests were
    kept gives ``(False, message)`` saying it cannot be checked.
    """
    saved = baseline.get(DIGEST_KEY)
    if not isinstance(saved, str) or not saved:
        origin = baseline.get("source") or "an older Toolscore"
        return False, (f"the baseline records no gold-file digest (saved by {origin}), so a changed "
                       f"gold file cannot be detected; re-save it with `toolscore eval {gold_path} TRACE "
                       "--save-baseline FILE`")
    by_bytes = saved.startswith("md5:")  # a tool-scorer 1.10.0 baseline
    current = bytes_md5(gold_path) if by_bytes else gold_digest(gold_path)
    if current is None or current == saved:  # unreadable: scoring it names the problem
        return False, None
    was = baseline.get("gold_file")
    origin = f" ({was})" if isinstance(was, str) and was else ""
    how = (" (this tool-scorer 1.10.0 baseline holds an MD5 of the file's bytes, so re-formatting it counts "
           "too)") if by_bytes else ""
    return True, (f"{gold_path} differs from the gold file the baseline was saved with{origin}{how}: the scores "
                  "may not be comparable; re-save the baseline if the change was intended")


__all__ = ["DIGEST_KEY", "bytes_md5", "gold_change", "gold_digest"]
