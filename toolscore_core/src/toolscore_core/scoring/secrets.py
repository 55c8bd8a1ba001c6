"""Finding credentials inside tool-call arguments, and hiding them.

Why only distinctive formats: a detector that flags every long random-looking string
(UUIDs, content hashes, order ids) buries the one real leak under noise, so people stop
reading it. Each pattern here is a format a vendor chose to be recognisable (a fixed
prefix and a fixed alphabet or length): OpenAI, Anthropic, GitHub, AWS access key ids,
Google API keys, Slack tokens, Stripe keys, JWTs, PEM and PGP private-key blocks. Three
shapes are recognised by where a value sits rather than by what it looks like, because
their place says "secret" as clearly as a vendor prefix does: the password in
``scheme://user:password@host``, the value of a query or assignment named like a secret
(``?key=``, ``&sig=``, ``access_token=``, ``api_key=``, ``password=``) and the token
after ``Bearer``.

A key must start a token: the character before it may not go on a word (``xghp_…`` is not a
key). A hyphen ends a word for every format but the loose ``sk-``: ``deploy-ghp_…`` and
``task-AKIA…`` are keys glued to a slug, but ``task-sk-notes-for-the-sprint`` is a slug, so
after a hyphen an ``sk-`` counts only in the shapes OpenAI issues (``sk-`` and 32 letters and
digits, or ``sk-proj-``, ``sk-svcacct-``, ``sk-admin-`` and 32 more). Text is often encoded on
its way to us, so a key right after ``_`` (``TOKEN_ghp_…``), a percent escape
(``Bearer%20sk-…``, ``%22``, ``%3D``) or a backslash escape (a literal ``\\n`` or
``\\u0022`` in JSON-escaped text) starts a token too.

Why it stays linear on a 10 MB value: every pattern starts with a literal anchor that the
regex engine finds with a fast substring search, and matches a bounded number of
characters there; only a candidate that passes is extended to the end of its run, and the
scan then goes on after that run. Nothing is tried twice at the same place, so no input
makes the scan quadratic (tests feed it adversarial near-misses).

A secret is never stored or printed whole: :func:`preview` keeps the first four and the
last two characters (``AKIA…LE``) and :func:`redact` returns a deep copy of a value with
every secret replaced by its preview; a password or a secret-named value, whose format we
do not know, is replaced by ``…`` alone. The MCP recorder and every report use these, and
:func:`redact_command` cleans a server command line, URL or stderr text before it is shown;
:func:`strip_url_credentials` builds on it for URLs kept in records (study rows).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from itertools import chain
from typing import Any, overload
from urllib.parse import unquote_plus, urlsplit, urlunsplit

import attrs

# A candidate is found with `find` (a literal anchor + a bounded body), then extended with
# `run` (the rest of the token's alphabet). Order gives priority where hits overlap.
_VENDOR: tuple[tuple[str, str, str, str | None], ...] = (
    ("anthropic_api_key", "sk-ant-", r"[A-Za-z0-9_\-]{20}", r"[A-Za-z0-9_\-]*"),
    ("openai_api_key", "sk-", r"(?!ant-)[A-Za-z0-9_\-]{20}", r"[A-Za-z0-9_\-]*"),
    *(("github_token", prefix, r"[A-Za-z0-9]{36}", r"[A-Za-z0-9]*") for prefix in ("ghp_", "gho_", "ghs_", "ghu_", "ghr_")),
    ("github_token", "github_pat_", r"[A-Za-z0-9_]{22}", r"[A-Za-z0-9_]*"),
    *(("aws_access_key_id", prefix, r"[A-Z0-9]{16}(?![A-Za-z0-9])", None) for prefix in ("AKIA", "ASIA")),
    # 39 characters in all, but the alphabet has "_" and "-": a key glued to more of them
    # ("AIza…Q_suffix") is hidden with the whole run rather than left whole.
    ("google_api_key", "AIza", r"[0-9A-Za-z_\-]{35}", r"[0-9A-Za-z_\-]*"),
    *(("slack_token", prefix, r"[A-Za-z0-9\-]{10}", r"[A-Za-z0-9\-]*") for prefix in ("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-")),
    *(("stripe_key", prefix, r"[A-Za-z0-9]{16}", r"[A-Za-z0-9]*")
      for prefix in ("sk_live_", "rk_live_", "sk_test_", "rk_test_")),
)


# Every regex is compiled on first use, by a cached function per group: compiling them all
# was most of this module's import time, paid by every `toolscore eval` even on a trace
# whose strings hold no anchor (then calls_to_scan rules every call out and none is used).
# Their old module-level names still resolve, through the module's __getattr__.
_Pattern = re.Pattern[str]


@cache
def _vendor_compiled() -> tuple[tuple[str, _Pattern, _Pattern | None], ...]:
    return tuple((kind, re.compile(re.escape(anchor) + body), re.compile(run) if run else None)
                 for kind, anchor, body, run in _VENDOR)


@cache
def _blocks() -> tuple[_Pattern, _Pattern, _Pattern, _Pattern]:
    """PEM header and END line, PGP header and END line."""
    # Header, then the block runs to its END line, or to the end of the text when there is none
    # (a cut-off key is still a key): no length limit, so a 30,000-character body is hidden whole.
    return (re.compile(r"-----BEGIN (?:(?!PGP )[A-Z0-9]{1,20} ){0,8}PRIVATE KEY-----"),
            re.compile(r"-----END (?:[A-Z0-9]{1,20} ){0,8}PRIVATE KEY-----"),
            re.compile(r"-----BEGIN PGP PRIVATE KEY BLOCK-----"),
            re.compile(r"-----END PGP PRIVATE KEY BLOCK-----"))


@cache
def _jwt() -> tuple[_Pattern, _Pattern, _Pattern]:
    """Where a JWT may start, the rest of its first part, and a whole JWT."""
    # Where a JWT may start: "eyJ" (base64 of '{"') and the first part of its header, read up to
    # 64 characters so the scan learns where a short first part ends without reading a long run.
    # The whole token is header.payload.signature (and the two more parts of an encrypted token);
    # the signature of an unsigned ("alg": "none") token is empty but the claims are still a
    # bearer credential.
    return (re.compile(r"eyJ[A-Za-z0-9_\-]{5,64}+"),
            re.compile(r"[A-Za-z0-9_\-]*"),
            re.compile(r"eyJ[A-Za-z0-9_\-]{5,}+\.[A-Za-z0-9_\-]{2,}+\.[A-Za-z0-9_\-]*+(?:\.[A-Za-z0-9_\-]++){0,2}"))


@cache
def _placed() -> tuple[_Pattern, _Pattern, _Pattern, _Pattern]:
    """URL password, a value after "=", a secret name read backwards, a bearer token."""
    # The password of scheme://user:password@host (user may be empty, as in redis://:pw@host).
    # Names are searched in ASCII-lowercased text (same length, so positions carry over). Short
    # ambiguous names (key, sig, auth...) count only as query parameters; names that say
    # "secret" count anywhere (``GITHUB_TOKEN=…``, ``--api-key=…``, ``password=…`` in a log line).
    return (re.compile(r"://[^\s/?#@:\"'<>\\`]{0,256}:(?P<secret>[^\s/?#@\"'<>\\`]{1,256})@(?=[\w\[])"),
            re.compile(r"[^\s&#\"'<>\\;,)\]}`]+"),
            re.compile(
                "(?<=[^\\s&#\"'<>\\\\;,)\\]}`])="  # a value follows the "=" (it comes before it here)
                "(?:(?:yek|gis|erutangis|htua|dwp|ssap)[?&]"
                "|nekot|terces|drowssap|dwssap|s?laitnederc|erutangis[_\\-]"
                "|yek[_\\-]?(?:ipa|ssecca|terces|etavirp|tneilc|retsam|gningis|noitpircsbus|tnuocca))"),
            re.compile(r"bearer (?P<secret>[a-z0-9._~+/\-]{16,}=*)"))

_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

#: Kinds whose format we do not know: the preview shows nothing of them.
_OPAQUE_KINDS = frozenset({"url_password", "secret_value"})
KINDS: tuple[str, ...] = (
    "pem_private_key", "pgp_private_key",
    *dict.fromkeys(kind for kind, _, _, _ in _VENDOR), "jwt",
    "url_password", "secret_value", "bearer_token",
)
_PRIORITY = {kind: index for index, kind in enumerate(KINDS)}

# A key must start a token: the character before it may not continue a word or id.
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_HEX = frozenset("0123456789abcdefABCDEF")


@attrs.frozen
class SecretHit:
    """One credential found: where (``body.text``), what kind, and a safe preview."""

    path: str
    kind: str
    preview: str


def preview(secret: str) -> str:
    """A recognisable but useless form of ``secret``: first 4 + ``…`` + last 2 characters.

    PEM and PGP blocks keep only their header line (the base64 body is the secret).
    Strings too short to hide anything after trimming come back as ``…`` alone.
    """
    if secret.startswith("-----BEGIN"):
        header = secret.split("-----", 2)[1] if secret.count("-----") >= 2 else "PRIVATE KEY"
        return f"-----{header}-----…"
    if len(secret) < 12:
        return "…"
    return f"{secret[:4]}…{secret[-2:]}"


def _shown(kind: str, secret: str) -> str:
    return "…" if kind in _OPAQUE_KINDS else preview(secret)


@cache
def _mixed() -> tuple[_Pattern, _Pattern, _Pattern]:
    return re.compile("[0-9]"), re.compile("[A-Z]"), re.compile("[a-z]")


def _plausible(kind: str, text: str) -> bool:
    """Reject lookalikes of the loose ``sk-`` format (slugs such as ``sk-my-long-task-name``).

    The test only gets harder to pass on a shorter string, which is what lets the scan skip
    a rejected run whole (an ``sk-`` inside it is a suffix of it)."""
    if kind != "openai_api_key":
        return True
    return all(pattern.search(text, 3) is not None for pattern in _mixed())


def _starts_token(text: str, index: int) -> bool:
    """True when a key may start at ``index``: at a word boundary, after ``_``, or right
    after a percent escape (``%20``) or a backslash escape (``\\n``, ``\\u0022``, ``\\x22``)."""
    if index == 0:
        return True
    before = text[index - 1]
    if before not in _WORD_CHARS or before == "_":
        return True
    if index >= 3 and text[index - 3] == "%" and text[index - 2] in _HEX and before in _HEX:
        return True
    if index >= 2 and text[index - 2] == "\\":
        return True
    if index >= 4 and text[index - 4] == "\\" and text[index - 3] == "x" and text[index - 2] in _HEX:
        return True
    return index >= 6 and text[index - 6] == "\\" and text[index - 5] in "uU" and all(
        c in _HEX for c in text[index - 4:index])


@cache
def _openai_issued() -> _Pattern:
    """The shapes of the keys OpenAI issues, read no further than they need (a bounded match)."""
    return re.compile(r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32}|[A-Za-z0-9]{32})")


def _after_hyphen(kind: str, text: str, index: int) -> bool:
    """True when the vendor key of ``kind`` at ``index`` comes right after a hyphen that ends a
    slug: always, but for the loose ``sk-``, which counts there only in an issued shape.

    Why: tool-scorer found a key at any word boundary, and a hyphen is one, so a token pasted
    after a name (``deploy-ghp_…``) was reported and hidden there; reading a hyphen as part of
    the word let it through whole. Only ``sk-`` has lookalikes that are slugs."""
    if index == 0 or text[index - 1] != "-":
        return False
    return kind != "openai_api_key" or _openai_issued().match(text, index) is not None


def _vendor_hits(text: str) -> Iterator[tuple[str, int, int]]:
    for kind, find, run in _vendor_compiled():
        pos = 0
        while (match := find.search(text, pos)) is not None:
            start = match.start()
            if not (_starts_token(text, start) or _after_hyphen(kind, text, start)):
                pos = start + 1  # the bounded body was all we read: cheap to try the next place
                continue
            end = match.end()
            if run is not None and (rest := run.match(text, end)) is not None:
                end = rest.end()
            if _plausible(kind, text[start:end]):
                yield kind, start, end
            pos = end


def _jwt_hits(text: str) -> Iterator[tuple[str, int, int]]:
    jwt_start, jwt_run, jwt = _jwt()
    pos = 0
    while (match := jwt_start.search(text, pos)) is not None:
        start, end = match.span()
        if end - start == 67 and (rest := jwt_run.match(text, end)) is not None:
            end = rest.end()  # a long first part: find where it ends once
        if end < len(text) and text[end] == "." and _starts_token(text, start):
            whole = jwt.match(text, start)
            if whole is not None:
                yield "jwt", start, whole.end()
                pos = whole.end()
                continue
        # Not a JWT here, and no "eyJ" later in this run can be one that starts a token
        # (its character before would be part of the run) unless it follows "_": rare
        # enough that skipping the run, which keeps the scan linear, is the better trade.
        pos = end


def _block_hits(text: str) -> Iterator[tuple[str, int, int]]:
    pem_header, pem_end, pgp_header, pgp_end = _blocks()
    for kind, header, footer in (("pem_private_key", pem_header, pem_end),
                                 ("pgp_private_key", pgp_header, pgp_end)):
        pos = 0
        while (match := header.search(text, pos)) is not None:
            end_line = footer.search(text, match.end())
            end = end_line.end() if end_line is not None else len(text)
            yield kind, match.start(), end
            pos = end


def _placed_hits(text: str) -> Iterator[tuple[str, int, int]]:
    """Secrets known by their place: URL passwords, secret-named values, bearer tokens."""
    url_password, value_at, name_backwards, bearer_token = _placed()
    if "://" in text:
        for match in url_password.finditer(text):
            yield "url_password", match.start("secret"), match.end("secret")
    named = "=" in text
    bearer = "earer " in text or "EARER " in text
    if not (named or bearer):
        return
    lowered = text.translate(_LOWER)
    if bearer:
        for match in bearer_token.finditer(lowered):
            yield "bearer_token", match.start("secret"), match.end("secret")
    if named:
        # Read backwards, so the search starts at a literal "=" (fast) instead of trying a
        # dozen names at every character; the value is then read forwards from the "=".
        backwards = lowered[::-1]
        size = len(text)
        for match in name_backwards.finditer(backwards):
            equals = size - 1 - match.start()
            value = value_at.match(text, equals + 1)
            if value is not None:
                end = value.end()
                while end > equals + 2 and text[end - 1] in ".:!?":
                    end -= 1  # "…?token=abc: refused" - the colon ends the sentence, not the value
                yield "secret_value", equals + 1, end


# Shorter than anything we detect ("?key=x" is six characters): nothing to find.
_MIN_LENGTH = 6
# Short strings (most argument values) are ruled out by one regex pass over the anchors.
@cache
def _quick() -> _Pattern:
    return re.compile("|".join(
        [re.escape(anchor) for _, anchor, _, _ in _VENDOR] + [re.escape(a) for a in ("eyJ", "-----BEGIN ", "://", "=")]
        + ["(?i:bearer )"]))


_QUICK_LIMIT = 4096


# Every hit of scan_text starts at, or needs, one of these literals: the vendor prefixes,
# a JWT's "eyJ", a PEM/PGP header, and what _placed_hits requires before it looks at all.
_ANCHORS: tuple[str, ...] = tuple(dict.fromkeys(
    [anchor for _, anchor, _, _ in _VENDOR] + ["eyJ", "-----BEGIN ", "://", "=", "earer ", "EARER "]))
_BATCH = 256  # calls whose argument strings are checked for anchors at once
# An anchor that holds another ("sk-ant-" holds "sk-") is found whenever that one is: not searched.
_SEARCHED = tuple(a for a in _ANCHORS if not any(b != a and b in a for b in _ANCHORS))


def calls_to_scan(arguments: Sequence[Any]) -> Iterator[int]:
    """The indexes (in order) of the argument dicts that may hold a credential.

    Why: scanning each string of each call cost a regex search and a recursive walk per
    value, the largest share of ``security`` on a 10k-call trace where none holds a secret.
    Here the strings of a batch of flat argument dicts (keys and values; values of plain
    scalar types only) are joined with NUL, which no anchor contains, and searched once per
    anchor with ``in``: when no anchor occurs, :func:`find_secrets` finds nothing in any of
    them, since each of its hits needs one (:data:`_ANCHORS`). A batch with an anchor, and
    any argument dict that is not flat and plain, is scanned as before."""
    for start in range(0, len(arguments), _BATCH):
        batch = arguments[start:start + _BATCH]
        texts = _flat_batch_strings(batch)
        if texts is not None:  # every dict flat: the same indexes as the loop below gives
            if _has_anchor(texts):
                yield from (start + k for k, args in enumerate(batch) if args)
            continue
        texts = []
        deep: list[bool] = []
        for args in batch:
            deep.append(type(args) is not dict or not _flat_strings(args, texts))
        if _has_anchor(texts):
            yield from (start + k for k, args in enumerate(batch) if args)
        else:
            yield from (start + k for k, d in enumerate(deep) if d and batch[k])


_DICT = frozenset({dict})
_STR = frozenset({str})
_FLAT_VALUES = frozenset({str, int, float, bool, type(None)})  # str and the types of _SKIP


def _flat_batch_strings(batch: Sequence[Any]) -> list[str] | None:
    """The keys and string values of a batch every item of which :func:`_flat_strings`
    accepts (an exact dict, exact str keys, values of plain scalar types); None otherwise.

    Why: the per-dict loop of :func:`_flat_strings` was most of the cost of ``security`` on
    a clean trace; here the types are checked and the strings gathered by C-level passes
    over the whole batch. A key is kept once however many dicts hold it: only whether an
    anchor occurs in some string matters, and that does not depend on repeats."""
    if not _DICT.issuperset(map(type, batch)):
        return None
    if not _STR.issuperset(map(type, chain.from_iterable(batch))):  # types first: no key is hashed again unless a str
        return None
    keys = set().union(*batch)  # exact dicts of exact str keys: their stored hashes, no __hash__ or __eq__ of ours
    values = list(chain.from_iterable(map(dict.values, batch)))
    kinds = set(map(type, values))
    if not _FLAT_VALUES.issuperset(kinds):
        return None
    strings = values if _STR.issuperset(kinds) else [v for v in values if type(v) is str]
    strings.extend(keys)
    return strings


def _flat_strings(args: dict[Any, Any], texts: list[str]) -> bool:
    """Add the keys and string values of ``args`` to ``texts``; False when a value is not a
    plain scalar or a key not a str (then the dict is scanned whole)."""
    for key, value in args.items():
        kind = type(value)
        if kind is str:
            texts.append(value)
        elif kind not in _SKIP:
            return False
        if type(key) is not str:
            return False
        texts.append(key)
    return True


def _has_anchor(texts: list[str]) -> bool:
    joined = "\x00".join(texts)
    return any(probe in joined and any(anchor in joined for anchor in group) for probe, group in _PROBED)


def _probed(anchors: Sequence[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``anchors`` grouped under one character of each: (character, the anchors holding it).

    Why: a text that lacks a character holds no anchor containing it, and a one-character
    search is a ``memchr``, many times faster than the search of a longer needle; the ~25
    anchor searches over a clean batch's text were a quarter of ``security``. Each anchor
    goes under its character least likely in ordinary text (:func:`_probe_rank`), so the
    probe usually rules its whole group out."""
    groups: dict[str, list[str]] = {}
    for anchor in anchors:
        probe = min(anchor, key=_probe_rank)
        groups.setdefault(probe, []).append(anchor)
    return tuple((probe, tuple(group)) for probe, group in groups.items())


_COMMON = " etaoinsrhldcumfpgwybvkxjqz"  # lower-case letters and the space, the most common first


def _probe_rank(char: str) -> tuple[int, int]:
    """Rarer characters first: any character not in :data:`_COMMON` (punctuation, capitals,
    digits) before the lower-case letters, which go rarest first."""
    at = _COMMON.find(char)
    return (0, 0) if at < 0 else (1, -at)


_PROBED = _probed(_SEARCHED)


def scan_text(text: str) -> list[tuple[str, int, int]]:
    """Every credential in ``text`` as ``(kind, start, end)``, left to right, not overlapping.

    Overlapping hits (a GitHub token that is also a URL password) are merged into one span
    covering both, named by the kind that comes first in :data:`KINDS`.
    """
    if len(text) < _MIN_LENGTH or (len(text) <= _QUICK_LIMIT and _quick().search(text) is None):
        return []
    spans = sorted((start, end, _PRIORITY[kind]) for kind, start, end in
                   (*_block_hits(text), *_vendor_hits(text), *_jwt_hits(text), *_placed_hits(text)) if end > start)
    merged: list[list[int]] = []
    for start, end, rank in spans:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            last[2] = min(last[2], rank)
        else:
            merged.append([start, end, rank])
    return [(KINDS[rank], start, end) for start, end, rank in merged]


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
                hits.append(SecretHit(path=_path_text(parts), kind=secret_kind,
                                      preview=_shown(secret_kind, value[start:end])))
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
    for kind, start, end in hits:
        parts.append(text[last:start])
        parts.append(_shown(kind, text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)


# A flag whose value is a credential: --token, --api-key, --password, --secret, --key,
# --auth-token, --client-secret, -token (Go style)... The value is hidden whatever it looks like.
_SECRET_FLAG_SOURCE = (
    r"--?(?:[A-Za-z0-9]+[-_])*(?:token|secret|password|passwd|pass|pwd|credentials?|auth|apikey|api[-_]key|key)")


@cache
def _flags() -> tuple[_Pattern, _Pattern]:
    """A secret flag as an argv item, and the same flags inside one string."""
    # Inside one string: a shell command line, or a server's stderr quoting its argv as a
    # list (``'--token', 'X'`` in Python's repr, ``"--token", "X"`` in JSON).
    return (re.compile(_SECRET_FLAG_SOURCE, re.IGNORECASE),
            re.compile(r"(?<![\w-])(" + _SECRET_FLAG_SOURCE + r")(=|[ \t]+|['\"],[ \t]*['\"])(?!-)([^\s\"'`,\]]+)",
                       re.IGNORECASE))


def _hide_value(value: str) -> str:
    """A flag's value: the vendor preview when the whole value is one known key, else ``…``."""
    hits = scan_text(value)
    if len(hits) == 1 and hits[0][1] == 0 and hits[0][2] == len(value) and hits[0][0] not in _OPAQUE_KINDS:
        return preview(value)
    return "…"


@overload
def redact_command(command: str) -> str: ...
@overload
def redact_command(command: list[str] | tuple[str, ...]) -> list[str]: ...
def redact_command(command: str | list[str] | tuple[str, ...]) -> str | list[str]:
    """A server command line (argv list), URL or stderr text fit to print.

    Why one function: every place that names a server (start-up failures, connection
    errors, ``mcp record`` session headers, study rows) must hide the same things, or the
    one place that forgets is the leak. Hidden: every credential :func:`redact_text`
    finds (vendor keys, ``user:password@`` in URLs, secret-named query values), and the
    value of a flag named like a secret (``--token X``, ``--api-key=X``, ``--password X``,
    ``--secret X``, ``--key X``), which can be any string. A list gives a list of the same
    length (the command stays readable and runnable in shape); a string gives a string.
    """
    if isinstance(command, str):
        return redact_text(_flags()[1].sub(
            lambda m: f"{m.group(1)}{m.group(2)}{_hide_value(m.group(3))}", command))
    argv = [str(part) for part in command]
    secret_flag = _flags()[0]
    cleaned: list[str] = []
    hide_next = False
    for argument in argv:
        if hide_next and not argument.startswith("-"):
            cleaned.append(_hide_value(argument))
            hide_next = False
            continue
        hide_next = False
        name, equals, value = argument.partition("=")
        if secret_flag.fullmatch(name):
            if equals:
                cleaned.append(f"{name}={_hide_value(value)}" if value else argument)
            else:
                cleaned.append(argument)
                hide_next = True
            continue
        cleaned.append(redact_text(argument))
    return cleaned


# Query parameters a stored URL never keeps the value of: any name containing one of these
# (stricter than the scanner's names, since a stored URL needs no value to stay useful).
_URL_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "pass", "pwd", "auth", "signature", "sig",
                     "credential")


def strip_url_credentials(url: str) -> str:
    """``url`` fit to store in a record: :func:`redact_command` plus what a record never needs.

    Why it builds on :func:`redact_command`: that function is the one place that knows what a
    credential in a URL looks like (a password before ``@``, a secret-named value, a vendor key
    anywhere in it), so this one cannot miss what the console already hides. On top of it a
    stored URL loses its whole user info (user and password, since a user name alone can be a
    token: ``https://ghp_…@host``) and the value of every query parameter whose name contains
    a secret word, replaced by ``REDACTED``:
    ``https://me:pw@host/mcp?api_key=abc&team=x`` -> ``https://host/mcp?api_key=REDACTED&team=x``.
    Other query parameters keep their exact spelling (nothing is re-encoded).
    """
    cleaned = redact_command(url)
    try:
        parts = urlsplit(cleaned)
    except ValueError:  # a malformed authority ("http://[::1"): keep the redacted text
        return cleaned
    netloc = parts.netloc.rpartition("@")[2]
    query = "&".join(_strip_query_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _strip_query_pair(pair: str) -> str:
    name, equals, _ = pair.partition("=")
    lowered = unquote_plus(name).lower()
    if equals and any(word in lowered for word in _URL_SECRET_WORDS):
        return f"{name}=REDACTED"
    return pair


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


# The module-level names the patterns had before they were compiled lazily, with the group
# (and place in it) that now holds each: tests and plugins may still read them.
_LAZY: dict[str, tuple[Callable[[], Any], int | None]] = {
    "_VENDOR_COMPILED": (_vendor_compiled, None), "_MIXED": (_mixed, None), "_QUICK": (_quick, None),
    **{name: (_blocks, k) for k, name in enumerate(("_PEM_HEADER", "_PEM_END", "_PGP_HEADER", "_PGP_END"))},
    **{name: (_jwt, k) for k, name in enumerate(("_JWT_START", "_JWT_RUN", "_JWT"))},
    **{name: (_placed, k) for k, name in enumerate(("_URL_PASSWORD", "_VALUE_AT", "_NAME_BACKWARDS", "_BEARER"))},
    **{name: (_flags, k) for k, name in enumerate(("_SECRET_FLAG", "_SECRET_FLAG_IN_TEXT"))},
}


def __getattr__(name: str) -> Any:
    """Compile and return a pattern under its old module-level name (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    group, index = _LAZY[name]
    return group() if index is None else group()[index]


__all__ = ["KINDS", "SecretHit", "contains_secret", "find_secrets", "preview", "redact", "redact_command", "redact_head",
           "redact_text", "scan_text", "strip_url_credentials"]
