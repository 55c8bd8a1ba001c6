"""The credential detector against hostile and careless input.

A key embedded in any common kind of surrounding text (JSON, URL-encoded, a shell line, a
log line, Markdown, XML...) is found and never survives redaction; cut-off and huge key
blocks are hidden whole; passwords in URLs and secret-named values are hidden while ids
and hashes are left alone; and no input makes the scan slow.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import urllib.parse
import uuid

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolscore_core.scoring.secrets import (
    find_secrets,
    redact,
    redact_command,
    redact_text,
    scan_text,
)

# Fake credentials in the vendors' formats (none is a live key), built by concatenation so
# no complete key-shaped literal sits in the source.
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
OPENAI = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-" + "api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GOOGLE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
SLACK = "xoxb-" + "123456789012-abcdefABCDEF"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijKLMNOP"
JWT = ("eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ"
       + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")

# (name, key, a part of the key that must never be shown)
KEYS = [
    ("github", GITHUB, GITHUB[8:30]),
    ("github_pat", GITHUB_PAT, GITHUB_PAT[14:32]),
    ("openai", OPENAI, OPENAI[10:30]),
    ("anthropic", ANTHROPIC, ANTHROPIC[12:36]),
    ("aws", AWS, AWS[4:18]),
    ("google", GOOGLE, GOOGLE[6:36]),
    ("slack", SLACK, SLACK[6:26]),
    ("stripe", STRIPE, STRIPE[10:28]),
    ("jwt", JWT, JWT[40:90]),
]


def _json_escaped(key: str) -> str:
    return json.dumps(json.dumps({"config": {"token": key}}))


# (name, builder): the key inside one kind of surrounding text
CONTEXTS = [
    ("json_string", lambda k: json.dumps({"token": k})),
    ("json_escaped", _json_escaped),
    ("url_encoded", lambda k: "q=" + urllib.parse.quote(json.dumps({"auth": f"Bearer {k}"}))),
    ("query_string", lambda k: f"https://api.example.com/v1/items?page=2&token={k}&sort=asc"),
    ("auth_header", lambda k: f"Authorization: Bearer {k}\r\nAccept: */*"),
    ("yaml", lambda k: f"server:\n  env:\n    API_TOKEN: {k}\n"),
    ("shell_export", lambda k: f"export SERVICE_KEY={k} && ./run.sh"),
    ("cli_flag", lambda k: f"server --port 8080 --token={k} --verbose"),
    ("single_quotes", lambda k: f"key = '{k}'"),
    ("parentheses", lambda k: f"login(({k}))"),
    ("markdown_code", lambda k: f"Use `{k}` to authenticate."),
    ("html_attribute", lambda k: f'<meta name="api" content="{k}">'),
    ("after_underscore", lambda k: f"MY_SERVICE_TOKEN_{k}"),
    ("after_percent_20", lambda k: f"Authorization=Bearer%20{k}"),
    ("after_percent_22", lambda k: f"%7B%22key%22%3A%22{k}%22%7D"),
    ("after_percent_3d", lambda k: f"api%3D{k}"),
    ("after_literal_newline", lambda k: f"line one\\n{k}\\nline three"),
    ("after_unicode_escape", lambda k: f"\\u0022{k}\\u0022"),
    ("newline_separated", lambda k: f"first\n{k}\nlast"),
    ("csv_cell", lambda k: f"id,name,secret\n7,prod,{k}\n"),
    ("unicode_neighbours", lambda k: f"clé→{k}←✓ 密钥"),
    ("log_line", lambda k: f"2026-01-02T03:04:05Z INFO connecting with credentials={k} attempt=1"),
    ("xml_text", lambda k: f"<config><secret>{k}</secret></config>"),
    ("tab_separated", lambda k: f"name\t{k}\tend"),
]


@pytest.mark.parametrize(("context", "build"), CONTEXTS, ids=[name for name, _ in CONTEXTS])
@pytest.mark.parametrize(("kind", "key", "middle"), KEYS, ids=[name for name, _, _ in KEYS])
def test_a_key_in_any_surrounding_text_is_found_and_hidden(kind: str, key: str, middle: str, context: str,
                                                           build: object) -> None:
    assert callable(build)
    text = build(key)
    assert scan_text(text), f"{kind} not found in {context}: {text!r}"
    cleaned = redact_text(text)
    assert key not in cleaned and middle not in cleaned, cleaned
    assert redact({"v": [text]}) == {"v": [cleaned]}


# Free text around the key: letters, digits, punctuation and non-ASCII, but never glued to
# the key by a character that could continue it (that would be a different, longer token).
_FILLER = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_SEPARATOR = st.sampled_from([" ", "\n", "\t", '"', "'", "(", ")", "[", "]", "<", ">", ",", ";", ":", "=", "/",
                              "%20", "%22", "%3D", "\\n", "\\t", "_", "`", "|", "→", "é", "🔑"])


@settings(max_examples=300, deadline=None)
@given(prefix=_FILLER, before=_SEPARATOR, key=st.sampled_from(KEYS), after=_SEPARATOR, suffix=_FILLER)
@example(prefix="", before=" ", key=next(k for k in KEYS if k[0] == "google"), after="_", suffix="")  # found by CI
def test_fuzz_a_key_between_any_text_never_survives(prefix: str, before: str, key: tuple[str, str, str],
                                                    after: str, suffix: str) -> None:
    _kind, secret, middle = key
    if after == "_" and secret.startswith("gh"):
        after = " "  # a GitHub token's alphabet has no "_": "…R8_" is the same key, kept whole
    text = f"{prefix}{before}{secret}{after}{suffix}"
    cleaned = redact_text(text)
    assert secret not in cleaned and middle not in cleaned


PEM_BODY = "MIIEowIBAAKCAQEAx1y2z3" + "Qk9EWQ" * 20


def test_a_pem_key_with_no_end_line_is_hidden_to_the_end_of_the_text() -> None:
    text = f"key follows\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nmore body lines"
    cleaned = redact_text(text)
    assert "Qk9EWQ" not in cleaned and "more body" not in cleaned
    assert cleaned == "key follows\n-----BEGIN RSA PRIVATE KEY-----…"


def test_a_pem_key_with_a_huge_body_is_hidden_whole() -> None:
    body = "QUJD" * 7_500  # 30,000 characters
    text = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\nafter the key"
    cleaned = redact_text(text)
    assert "QUJD" not in cleaned
    assert cleaned == "-----BEGIN PRIVATE KEY-----…\nafter the key"


def test_a_pgp_private_key_block_is_hidden() -> None:
    text = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBGX" + "b3Blbm" * 30
            + "\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\nbye")
    [hit] = find_secrets(text)
    assert hit.kind == "pgp_private_key"
    assert redact_text(text) == "-----BEGIN PGP PRIVATE KEY BLOCK-----…\nbye"


def test_a_public_pgp_block_is_left_alone() -> None:
    text = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----"
    assert scan_text(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://bob:hunter2@db.example.com/x", "https://bob:…@db.example.com/x"),
        ("redis://:s3cr3tpw@127.0.0.1:6379/0", "redis://:…@127.0.0.1:6379/0"),
        ("postgres://app:p%40ss@db:5432/app", "postgres://app:…@db:5432/app"),
        ("https://maps.example.com/api?key=abc123&q=paris", "https://maps.example.com/api?key=…&q=paris"),
        ("https://x.example.com/?a=1&token=t0k3n", "https://x.example.com/?a=1&token=…"),
        ("callback#access_token=ya29.abc&expires_in=3600", "callback#access_token=…&expires_in=3600"),
        ("curl https://h/?api_key=k_123", "curl https://h/?api_key=…"),
        ("login failed: password=hunter2 user=bob", "login failed: password=… user=bob"),
        ("GITHUB_TOKEN=whatever-it-is", "GITHUB_TOKEN=…"),
    ],
)
def test_passwords_in_urls_and_secret_named_values_are_hidden(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "value",
    [
        str(uuid.uuid4()),
        "550e8400-e29b-41d4-a716-446655440000",
        hashlib.sha1(b"commit").hexdigest(),  # a git SHA
        hashlib.sha256(b"content").hexdigest(),
        "sha256-" + base64.b64encode(hashlib.sha256(b"x").digest()).decode(),
        "sha512-" + base64.b64encode(hashlib.sha512(b"y").digest()).decode(),
        base64.urlsafe_b64encode(hashlib.sha256(b"z").digest()).decode(),
        "https://example.com/path?page=2&sort_key=name&q=eyJ",
        "http://localhost:8080/mcp",
        "ssh://git@github.com/org/repo.git",
        "max_tokens=100 temperature=0.2",
        "The key to success is a token of thanks; the password field is empty.",
        "eyJustAWord. then.more",
        "the bearer of bad news",
    ],
)
def test_ids_hashes_and_ordinary_text_stay_unflagged(value: str) -> None:
    assert scan_text(value) == []
    assert redact_text(value) == value


def test_redact_command_hides_secret_flags_and_known_keys_in_argv() -> None:
    argv = ["node", "server.js", "--token", GITHUB, "--api-key=plain-value-123", "--password", "hunter2",
            "--secret=s", "--key", "abc", "--port", "3000", "--verbose", "https://u:pw@h/mcp?key=k1"]
    assert redact_command(argv) == ["node", "server.js", "--token", "ghp_…R8", "--api-key=…", "--password", "…",
                                    "--secret=…", "--key", "…", "--port", "3000", "--verbose",
                                    "https://u:…@h/mcp?key=…"]
    assert redact_command(tuple(argv))[3] == "ghp_…R8"


def test_redact_command_on_a_string_hides_flags_urls_and_keys() -> None:
    text = f"usage error: server.py --token {GITHUB} --password hunter2 --url http://me:pw@h/?key=zz"
    cleaned = redact_command(text)
    assert GITHUB not in cleaned and "hunter2" not in cleaned and "me:pw" not in cleaned and "zz" not in cleaned
    assert "--token ghp_…R8" in cleaned and "--password …" in cleaned and "http://me:…@h/?key=…" in cleaned


ADVERSARIAL = {
    "sk_runs": "sk-" * 1_700_000,
    "glued_sk": "xsk-aaaaaaaaaaaaaaaaaaaaa" * 200_000,
    "eyj_runs": "eyJ" * 1_700_000,
    "eyj_near_misses": "eyJaaaaa!" * 550_000,
    "underscore_eyj": "_eyJ" * 1_250_000,
    "begin_headers": "-----BEGIN " * 450_000,
    "url_near_misses": ("://" + "a" * 250 + ":" + "b" * 250) * 10_000,
    "query_names": "key=" * 1_250_000,
    "empty_values": "token= " * 700_000,
    "equals": "=" * 5_000_000,
    "bearer_words": "Bearer " * 700_000,
    "escapes": "%20\\n" * 1_000_000,
    "mixed_near_misses": ("sk-ant-" + "x" * 19 + " AKIA" + "B" * 15 + " eyJaaaaa.b ghp_x ") * 100_000,
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_a_5_mb_adversarial_string_is_scanned_in_linear_time(name: str) -> None:
    text = ADVERSARIAL[name]
    assert len(text) >= 4_900_000
    started = time.perf_counter()
    hits = scan_text(text)
    elapsed = time.perf_counter() - started
    # about 1 s or less when the machine is idle; a quadratic scan would take hours
    assert elapsed < 8.0, f"{name}: {elapsed:.1f} s"
    assert len(hits) <= 1


def test_a_huge_text_with_a_key_at_the_end_is_found() -> None:
    text = "x=1&" * 2_500_000 + f" {GITHUB}"
    assert [kind for kind, _, _ in scan_text(text)] == ["github_token"]
