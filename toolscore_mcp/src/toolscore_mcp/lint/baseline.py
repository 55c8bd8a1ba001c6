"""A baseline: the findings a team has accepted, so CI fails only on new ones.

``toolscore mcp lint TARGET --baseline lint-baseline.json --update-baseline`` writes the
current findings; later runs with ``--baseline lint-baseline.json`` set the known ones
aside (they are still listed as known, and still count in the lint score) and exit 1
only for new errors.

A finding is recognised by its fingerprint: the rule id, the tool and the finding's
stable subject (``details["key"]``: a parameter path, a referenced name), not its
message, so rewording a message or reordering tools does not turn old findings into
new ones. The file is sorted JSON, one entry per finding, readable in a code review::

    {"toolscore_lint_baseline": 1,
     "findings": [{"fingerprint": "3f2a…", "rule": "reference-unknown-tool",
                   "tool": "label_write", "message": "refers to tool 'update_issue', …"}]}
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import Finding

FORMAT_KEY = "toolscore_lint_baseline"
FORMAT_VERSION = 1


def fingerprint(finding: Finding) -> str:
    """Stable id of a finding across runs (16 hex digits)."""
    key = finding.details.get("key") if isinstance(finding.details, dict) else None
    subject = str(key) if key is not None else finding.message
    raw = "\x1f".join((finding.code, finding.tool or "", subject))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def load_baseline(path: str | Path) -> set[str]:
    """The fingerprints in a baseline file."""
    from toolscore_core.kernel.files import parse_json_text, read_text

    p = Path(path)
    if not p.exists():
        raise InputError("baseline file not found", file=p,
                         hint="Create it with --update-baseline (it records the current findings)")
    text = read_text(p)
    if not text.strip():
        raise InputError("baseline file is empty", file=p, hint="Recreate it with --update-baseline")
    data = parse_json_text(text, file=p)
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != FORMAT_VERSION:
        raise InputError("is not a toolscore lint baseline", file=p, location="$",
                         expected=f'an object with "{FORMAT_KEY}": {FORMAT_VERSION}',
                         hint="Recreate it with --update-baseline")
    entries = data.get("findings")
    if not isinstance(entries, list):
        raise InputError("'findings' must be a list", file=p, location="$.findings")
    prints = set()
    for i, entry in enumerate(entries):
        value = entry.get("fingerprint") if isinstance(entry, dict) else None
        if not isinstance(value, str) or not value:
            raise InputError("entry has no 'fingerprint' string", file=p, location=f"$.findings[{i}]")
        prints.add(value)
    return prints


def write_baseline(path: str | Path, findings: Iterable[Finding], *, server: str | None = None) -> int:
    """Write every finding to ``path`` (replacing it); returns how many entries."""
    entries = {}
    for finding in findings:
        fp = fingerprint(finding)
        entries[fp] = {"fingerprint": fp, "rule": finding.code, "tool": finding.tool, "message": finding.message}
    ordered = sorted(entries.values(), key=lambda e: (e["rule"], e["tool"] or "", e["fingerprint"]))
    document = {FORMAT_KEY: FORMAT_VERSION, "server": server, "findings": ordered}
    from toolscore_core.kernel.files import write_atomic

    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the baseline ({exc.strerror})", file=p) from None
    write_atomic(p, json.dumps(document, indent=2, ensure_ascii=False) + "\n", what="the baseline")  # never half a file
    return len(ordered)


def split_known(findings: Iterable[Finding], known: set[str]) -> tuple[list[Finding], list[Finding]]:
    """(new findings, findings already in the baseline)."""
    new: list[Finding] = []
    old: list[Finding] = []
    for finding in findings:
        (old if fingerprint(finding) in known else new).append(finding)
    return new, old
