"""A quick "could this line hold a credential?" test, so clean rows skip per-string redaction.

Why: the kernel's scanner (``toolscore_core.scoring.secrets``) finds every credential by a
literal anchor first (a vendor prefix such as ``ghp_``, ``eyJ`` for a JWT, ``://`` for a URL
password, ``=`` for ``?key=``, ``Bearer``). A line that holds none of those anchors cannot
hold a credential in any of its strings, and ``in`` over a line is far cheaper than a
regular expression scan of it. A line that holds an anchor is scanned by the kernel itself,
and only a real hit sends it to the slow path (every string redacted on its own). A test
checks that :data:`ANCHORS` covers every anchor the kernel's scanner knows, so a vendor added
there cannot slip past here.

The scanner reads JSON-escaped text (a ``\\n`` before a key starts a token), so one scan of
the raw line stands for a scan of every string in it. Lines with ``\\u`` or ``\\/`` escapes,
which could spell a key or a URL differently from its string, always take the slow path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ANCHORS: tuple[str, ...] = (
    "sk-", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "AKIA", "ASIA", "AIza",
    "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "sk_live_", "rk_live_", "sk_test_", "rk_test_",
    "eyJ", "-----BEGIN ", "://", "=",
)
CASELESS_ANCHORS: tuple[str, ...] = ("bearer ",)
ESCAPES: tuple[str, ...] = ("\\u", "\\/")


# Each anchor under a "key", a substring of it that is rare in JSON rows: a search for a
# single character is a memchr (about twenty times cheaper than a search for a short string
# over a long line), and a line without the key cannot hold the anchor, so most anchors
# cost one memchr on a clean line. Anchors sharing a rare character share its key (a line
# with a dash, a timestamp say, then pays for their own searches, as it would without the
# key). A test checks that every anchor is under a key it holds.
KEYED_ANCHORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("-", ("sk-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-")),
    ("gh", ("ghp_", "gho_", "ghs_", "ghu_", "ghr_")),
    ("pat_", ("github_pat_",)),
    ("K", ("AKIA",)),
    ("I", ("ASIA",)),  # a capital S starts many a sentence; a capital I fewer
    ("z", ("AIza",)),
    ("_live_", ("sk_live_", "rk_live_")),  # not "k_": every run row has it ("task_id")
    ("_test_", ("sk_test_", "rk_test_")),
    ("J", ("eyJ",)),
    ("B", ("-----BEGIN ",)),
    ("/", ("://",)),
    ("=", ("=",)),
)


def _key_search(key: str) -> Callable[[str], Any] | None:
    """How a key is looked for: None for one character (``in``, a memchr); else the regex
    engine's literal search, which jumps to each place the key's first character is (str's
    own search for a needle of two to six characters steps through the line: two to three
    times slower on a run row)."""
    return None if len(key) == 1 else re.compile(re.escape(key)).search


_KEY_SEARCHES = tuple((key, _key_search(key), anchors) for key, anchors in KEYED_ANCHORS if key != "-")
_DASH_ANCHORS = next(anchors for key, anchors in KEYED_ANCHORS if key == "-")
_DASH_HEADS = tuple(anchor[:-1] for anchor in _DASH_ANCHORS)  # each ends in the dash its key is
_DASHES_LOOKED_AT = 8


def _dash_anchor(text: str) -> bool:
    """``any(a in text for a in _DASH_ANCHORS)``, from the dashes of ``text``: is one of them the
    end of an anchor (``endswith`` of the text before it)?

    Why: a line with a date holds dashes, and then six searches of the whole line for the
    dash anchors cost more than the rest of its test. A line with more dashes than
    :data:`_DASHES_LOOKED_AT` takes the six searches after all (a test checks both ways).
    """
    find = text.find
    at = find("-")
    for _ in range(_DASHES_LOOKED_AT):
        if at < 0:
            return False
        if text.endswith(_DASH_HEADS, 0, at):
            return True
        at = find("-", at + 1)
    return at >= 0 and any(anchor in text for anchor in _DASH_ANCHORS)


def has_anchor(text: str) -> bool:
    """True when ``text`` holds any anchor a credential pattern starts with."""
    if "-" in text and _dash_anchor(text):  # the dash group, by its own search
        return True
    for key, search, anchors in _KEY_SEARCHES:
        if (key in text if search is None else search(text) is not None) and any(a in text for a in anchors):
            return True
    lowered = text.lower()
    return any(anchor in lowered for anchor in CASELESS_ANCHORS)


def can_skip_redaction(written: bytes) -> bool:
    """True when ``written``, the JSON text of prepared values, holds no escape and no anchor.

    Then no string in it (a part of its text: an anchor has no character JSON escapes) can
    hold a credential, and redacting each would change nothing. The test of
    :func:`~toolscore_export.record.redacted_calls`, shared by its callers.
    """
    whole = written.decode("utf-8", "surrogatepass")
    return not (("\\" in whole and any(escape in whole for escape in ESCAPES)) or has_anchor(whole))


def may_hold_a_secret(raw_line: str) -> bool:
    """False only when no string parsed from this raw JSON line can hold a credential.

    The escapes are looked for only in a line with a backslash (a memchr), since each is a
    two-character search of the whole line.
    """
    if "\\" in raw_line and any(escape in raw_line for escape in ESCAPES):
        return True
    if not has_anchor(raw_line):
        return False
    from toolscore_core.scoring.secrets import scan_text

    return bool(scan_text(raw_line))


__all__ = ["ANCHORS", "CASELESS_ANCHORS", "KEYED_ANCHORS", "can_skip_redaction", "has_anchor", "may_hold_a_secret"]
