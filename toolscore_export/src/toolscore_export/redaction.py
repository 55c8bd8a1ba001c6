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
(_BEARER,) = CASELESS_ANCHORS  # one: has_anchor searches for it alone, with no generator around it
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
    ("_pat_", ("github_pat_",)),
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
_LOOKED_AT = 8  # occurrences of a key looked at one by one; past them, a search of the whole text


def _key_groups() -> tuple[tuple[Callable[[str], Any], tuple[str, ...]], ...]:
    """The keys of two or more characters, one regex per first character (``_pat_``, ``_live_``
    and ``_test_`` are one search, which the regex engine factors as ``_(?:pat_|live_|test_)``),
    each with the anchors of its keys.

    Why the regex engine: it jumps to each place the key's first character is, where str's
    own search for a needle of two to six characters steps through the line (two to three
    times slower on a run row), and one search of a group costs half of its keys' own.
    """
    groups: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for key, anchors in KEYED_ANCHORS:
        if len(key) > 1:
            groups.setdefault(key[0], []).append((key, anchors))
    return tuple((re.compile("|".join(re.escape(key) for key, _ in keyed)).search,
                  tuple(anchor for _, anchors in keyed for anchor in anchors)) for keyed in groups.values())


_GROUP_SEARCHES = _key_groups()
# Single characters but the dash: (key, anchor, the key's first place in the anchor), one per anchor.
_CHAR_KEYS = tuple((key, anchor, anchor.index(key)) for key, anchors in KEYED_ANCHORS
                   if len(key) == 1 and key != "-" for anchor in anchors)
_DASH_ANCHORS = next(anchors for key, anchors in KEYED_ANCHORS if key == "-")
_DASH_HEADS = tuple(anchor[:-1] for anchor in _DASH_ANCHORS)  # each ends in the dash its key is
_DASHES_LOOKED_AT = _LOOKED_AT


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


def _char_anchor(text: str, key: str, anchor: str, offset: int) -> bool:
    """``anchor in text``, from the places of ``key`` (one character, first at ``offset`` in the
    anchor): does the anchor start ``offset`` before one of them?

    Why: a text holding the key (a path's ``/``, a capital ``I``) paid for a search of the
    whole text for the anchor, twice a memchr's cost and more; the key's few places cost
    less. Past :data:`_LOOKED_AT` of them, the whole text is searched after all.
    """
    find = text.find
    at = find(key, offset)  # a key before ``offset`` cannot be the anchor's
    for _ in range(_LOOKED_AT):
        if at < 0:
            return False
        if text.startswith(anchor, at - offset):
            return True
        at = find(key, at + 1)
    return at >= 0 and anchor in text


def has_anchor(text: str) -> bool:
    """True when ``text`` holds any anchor a credential pattern starts with."""
    if "-" in text and _dash_anchor(text):  # the dash group, by its own search
        return True
    for key, anchor, offset in _CHAR_KEYS:
        if key in text and _char_anchor(text, key, anchor, offset):
            return True
    for search, anchors in _GROUP_SEARCHES:
        if search(text) is not None and any(a in text for a in anchors):
            return True
    return _BEARER in text.lower()


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


def shown_text(text: str) -> str:
    """``text`` with any credential in it hidden (``toolscore_core.redact_text``): a file's path or
    name as a manifest lists it, hidden as the records hide it. Most texts are looked at once for
    an anchor and kept as they are."""
    if not may_hold_a_secret(text):
        return text
    from toolscore_core import redact_text

    return redact_text(text)


__all__ = ["ANCHORS", "CASELESS_ANCHORS", "KEYED_ANCHORS", "can_skip_redaction", "has_anchor", "may_hold_a_secret", "shown_text"]
