"""Finding credentials inside tool-call arguments, and hiding them.

Why only distinctive formats: a detector that flags every long random-looking string
(UUIDs, content hashes, order ids) buries the one real leak under noise, so people stop
reading it. Each pattern here is a format a vendor chose to be recognisable (a fixed
prefix and a fixed alphabet or length): OpenAI, Anthropic, GitHub, AWS access key ids,
Google API keys, Slack tokens, Stripe keys and PEM private-key blocks.

A secret is never stored or printed whole: :func:`preview` keeps the first four and the
last two characters (``AKIA…LE``) and :func:`redact` returns a deep copy of a value with
every secret replaced by its preview. The MCP recorder and every report use these two.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import attrs

# (kind, anchors, pattern matched AT an anchor). Anchors are literal prefixes found with
# str.find, which is far faster on a 10 MB value than letting a regex scan every position.
# Order matters where prefixes overlap: Anthropic before OpenAI.
_SPECS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("pem_private_key", ("-----BEGIN ",),
     r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\s\S]{0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?"),
    ("anthropic_api_key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])"),
    ("openai_api_key", ("sk-",),
     r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])"),
    ("github_token", ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
     r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?![A-Za-z0-9_\-])"),
    ("aws_access_key_id", ("AKIA", "ASIA"), r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("google_api_key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])"),
    ("slack_token", ("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"), r"xox[abprs]-[A-Za-z0-9\-]{10,}(?![A-Za-z0-9_\-])"),
    ("stripe_key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
     r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}(?![A-Za-z0-9_\-])"),
)
_COMPILED: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (kind, anchors, re.compile(pattern)) for kind, anchors, pattern in _SPECS
)
# A key must start a token: the character before it may not continue a word or id.
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

KINDS: tuple[str, ...] = tuple(kind for kind, _, _ in _SPECS)


@attrs.frozen
class SecretHit:
    """One credential found: where (``body.text``), what kind, and a safe preview."""

    path: str
    kind: str
    preview: str


def preview(secret: str) -> str:
    """A recognisable but useless form of ``secret``: first 4 + ``…`` + last 2 characters.

    PEM blocks keep only their header line (the base64 body is the secret). Strings too
    short to hide anything after trimming come back as ``…`` alone.
    """
    if secret.startswith("-----BEGIN"):
        header = secret.split("-----", 2)[1] if secret.count("-----") >= 2 else "PRIVATE KEY"
        return f"-----{header}-----…"
    if len(secret) < 12:
        return "…"
    return f"{secret[:4]}…{secret[-2:]}"


def _plausible(kind: str, text: str) -> bool:
    """Reject lookalikes of the loose ``sk-`` format (slugs such as ``sk-my-long-task-name``)."""
    if kind != "openai_api_key":
        return True
    body = text[3:]
    has_digit = any(c.isdigit() for c in body)
    has_upper = any(c.isupper() for c in body)
    has_lower = any(c.islower() for c in body)
    return has_digit and has_upper and has_lower


# Shorter than the shortest format we detect (a Slack token: "xoxb-" + 10): nothing to find.
_MIN_LENGTH = 15
# Short strings (most argument values) are ruled out by one regex pass; long ones use
# str.find per anchor, which stays fast on a 10 MB value where a regex alternation is not.
_QUICK = re.compile("|".join(re.escape(a) for _, anchors, _ in _SPECS for a in anchors))
_QUICK_LIMIT = 4096


def scan_text(text: str) -> list[tuple[str, int, int]]:
    """Every credential in ``text`` as ``(kind, start, end)``, left to right, not overlapping."""
    if len(text) < _MIN_LENGTH or (len(text) <= _QUICK_LIMIT and _QUICK.search(text) is None):
        return []
    found: list[tuple[str, int, int]] = []
    for kind, anchors, pattern in _COMPILED:
        for anchor in anchors:
            pos = text.find(anchor)
            while pos != -1:
                match = pattern.match(text, pos) if pos == 0 or text[pos - 1] not in _WORD_CHARS else None
                if match is not None and _plausible(kind, match.group()):
                    start, end = match.span()
                    if not any(s < end and start < e for _, s, e in found):
                        found.append((kind, start, end))
                pos = text.find(anchor, pos + 1)
    found.sort(key=lambda hit: hit[1])
    return found


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    key = str(key)
    return f"{path}.{key}" if path else key


def _walk(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Yield ``(path, string)`` for every string inside ``value`` (dict keys included)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield _join(path, "<key>"), key
            yield from _walk(item, _join(path, key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _walk(item, _join(path, index))


def find_secrets(value: Any, path: str = "") -> list[SecretHit]:
    """Every credential inside ``value`` (nested dicts, lists, strings), with its path.

    Paths use dots for keys and brackets for list items (``body.items[0].text``); the
    path of a bare string is ``path`` itself (empty by default). Paths are only built for
    hits, so scanning the arguments of 100k clean calls stays cheap.
    """
    hits: list[SecretHit] = []
    _find(value, (path,) if path else (), hits, 0)
    return hits


def _path_text(parts: tuple[Any, ...]) -> str:
    text = ""
    for part in parts:
        text = _join(text, part)
    return text


def _find(value: Any, parts: tuple[Any, ...], hits: list[SecretHit], depth: int) -> None:
    kind = type(value)
    if kind is str or isinstance(value, str):
        if len(value) >= _MIN_LENGTH:
            for secret_kind, start, end in scan_text(value):
                hits.append(SecretHit(path=_path_text(parts), kind=secret_kind, preview=preview(value[start:end])))
    elif isinstance(value, dict):
        for key, item in value.items():
            if type(key) is str and len(key) >= _MIN_LENGTH:
                _find(key, (*parts, "<key>"), hits, depth + 1)
            if type(item) not in _SKIP:
                _find(item, (*parts, key), hits, depth + 1)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if type(item) not in _SKIP:
                _find(item, (*parts, index), hits, depth + 1)


_SKIP = frozenset({int, float, bool, type(None)})


def redact_text(text: str) -> str:
    """``text`` with every credential replaced by its preview."""
    hits = scan_text(text)
    if not hits:
        return text
    parts: list[str] = []
    last = 0
    for _kind, start, end in hits:
        parts.append(text[last:start])
        parts.append(preview(text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def redact_head(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``redact_text(text)``, without scanning all of a
    10 MB value.

    Only a head of the text is scanned. Redaction never lengthens text, so the shown
    characters come from the head's start; the head is long enough that a key cut in two
    at its end cannot reach the shown part. When the head is full of keys (the output
    shrank a lot) or holds a PEM block (which can be long), the whole text is redacted.
    """
    head_size = limit + 1024
    if len(text) <= head_size:
        return redact_text(text)[:limit]
    head = text[:head_size]
    cleaned = redact_text(head)
    if len(head) - len(cleaned) > 512 or "-----BEGIN" in head:
        return redact_text(text)[:limit]
    return cleaned[:limit]


def redact(value: Any) -> Any:
    """A deep copy of ``value`` with every credential replaced by its preview.

    Dicts, lists and tuples are rebuilt; other objects are returned as they are (they are
    not strings, so they hold no text we could scan).
    """
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(item) for item in value]
    if isinstance(value, tuple):
        return tuple(redact(item) for item in value)
    return value


def contains_secret(value: Any) -> bool:
    """True when any string inside ``value`` holds a credential."""
    return any(scan_text(text) for _, text in _walk(value, ""))


__all__ = ["KINDS", "SecretHit", "contains_secret", "find_secrets", "preview", "redact", "redact_head", "redact_text",
           "scan_text"]
