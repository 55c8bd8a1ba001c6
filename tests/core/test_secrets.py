"""Credential detection: distinctive vendor formats are found, ordinary ids never are."""

from __future__ import annotations

import hashlib
import json
import uuid

import pytest

from toolscore_core.scoring.secrets import (
    contains_secret,
    find_secrets,
    preview,
    redact,
    redact_text,
)

# Fake credentials in the vendors' formats (none is a live key). Built by concatenation so
# no complete key-shaped literal sits in the source.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
OPENAI = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
OPENAI_LEGACY = "sk-" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV"
ANTHROPIC = "sk-ant-" + "api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijKLMNOP"
GOOGLE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
SLACK = "xoxb-" + "123456789012-abcdefABCDEF"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1y2z3\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        (AWS, "aws_access_key_id"),
        ("ASIA" + "ABCDEFGHIJKLMNOP", "aws_access_key_id"),
        (OPENAI, "openai_api_key"),
        (OPENAI_LEGACY, "openai_api_key"),
        (ANTHROPIC, "anthropic_api_key"),
        (GITHUB, "github_token"),
        ("gho_" + GITHUB[4:], "github_token"),
        ("ghs_" + GITHUB[4:], "github_token"),
        ("ghu_" + GITHUB[4:], "github_token"),
        (GITHUB_PAT, "github_token"),
        (GOOGLE, "google_api_key"),
        (SLACK, "slack_token"),
        ("xoxp-" + "98765432-abcdefghij", "slack_token"),
        (STRIPE, "stripe_key"),
        ("rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe_key"),
        ("sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe_key"),
        (PEM, "pem_private_key"),
    ],
)
def test_each_vendor_format_is_found_with_its_kind(secret: str, kind: str) -> None:
    hits = find_secrets({"body": {"text": f"use {secret} please"}})
    assert [(h.path, h.kind) for h in hits] == [("body.text", kind)]
    assert secret not in hits[0].preview


@pytest.mark.parametrize(
    "value",
    [
        str(uuid.uuid4()),
        hashlib.sha256(b"x").hexdigest(),
        hashlib.sha1(b"x").hexdigest(),
        "order-1234567890abcdef",
        "FL-12345",
        "sk-my-long-task-name-for-the-sprint",  # a slug, not a key
        "task-Ab3dEf6hIj9kLm2nOp5qRs8t",  # 'sk-' inside a word
        "AKIA1234",  # too short for an access key id
        "AKIAIOSFODNN7EXAMPLEXX",  # too long: not an access key id
        "The quick brown fox",
        "ghp_short",
        "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    ],
)
def test_ordinary_ids_hashes_and_text_are_never_flagged(value: str) -> None:
    assert find_secrets({"id": value, "list": [value]}) == []
    assert redact(value) == value


def test_preview_keeps_first_four_and_last_two() -> None:
    assert preview(AWS) == "AKIA…LE"
    assert preview("short") == "…"
    assert preview(PEM) == "-----BEGIN RSA PRIVATE KEY-----…"


def test_paths_name_nested_keys_and_list_items() -> None:
    value = {"headers": {"Authorization": f"Bearer {OPENAI}"}, "items": [{"text": "ok"}, {"text": AWS}]}
    hits = find_secrets(value)
    assert sorted((h.path, h.kind, h.preview) for h in hits) == [
        ("headers.Authorization", "openai_api_key", "sk-p…4z"),
        ("items[1].text", "aws_access_key_id", "AKIA…LE"),
    ]


def test_several_secrets_in_one_string_and_unicode_around_them() -> None:
    text = f"clé {AWS} et 🔑 {STRIPE}"
    hits = find_secrets(text)
    assert [h.kind for h in hits] == ["aws_access_key_id", "stripe_key"]
    assert redact_text(text) == "clé AKIA…LE et 🔑 sk_l…dc"


def test_redact_is_a_deep_copy_and_leaves_nothing_whole() -> None:
    original = {"body": {"text": f"key={AWS}", "n": 3, "flag": True}, "keys": [GITHUB, ANTHROPIC], "t": (SLACK,)}
    cleaned = redact(original)
    assert original["body"]["text"] == f"key={AWS}"  # the input is untouched
    dumped = json.dumps(cleaned, ensure_ascii=False)
    for secret in (AWS, GITHUB, ANTHROPIC, SLACK):
        assert secret not in dumped
    assert cleaned["body"] == {"text": "key=AKIA…LE", "n": 3, "flag": True}
    assert cleaned["t"] == ("xoxb…EF",)
    assert contains_secret(original) and not contains_secret(cleaned)


def test_secret_in_a_dict_key_is_found_and_redacted() -> None:
    value = {AWS: "value"}
    assert [h.path for h in find_secrets(value)] == ["<key>"]
    assert list(redact(value)) == ["AKIA…LE"]


def test_anthropic_key_is_not_also_reported_as_openai() -> None:
    assert [h.kind for h in find_secrets(ANTHROPIC)] == ["anthropic_api_key"]


def test_large_value_is_scanned_quickly() -> None:
    big = "a " * (5 * 1024 * 1024) + AWS
    hits = find_secrets({"blob": big})
    assert [h.preview for h in hits] == ["AKIA…LE"]


def test_redact_head_matches_full_redaction_on_its_prefix() -> None:
    from toolscore_core.scoring.secrets import redact_head

    text = f"{AWS} " + "word " * 300 + f" {GITHUB} " + "z " * (3 * 1024 * 1024)
    for limit in (5, 50, 500, 1600):
        assert redact_head(text, limit) == redact_text(text[:20_000])[:limit]
    # a head stuffed with keys falls back to redacting the whole text: nothing half-shown
    stuffed = " ".join([AWS] * 400) + " tail"
    assert redact_head(stuffed, 500) == redact_text(stuffed)[:500]
    assert "AKIAIOS" not in redact_head(stuffed, 3000)


def test_a_forbidden_rules_reason_is_redacted_wherever_it_is_shown() -> None:
    # Policy files are text from outside: a reason quoting a key must not print the key.
    from toolscore import evaluate

    key = "AKIA" + "IOSFODNN7EXAMPLE"
    evaluation = evaluate(
        [{"tool": "upload"}],
        [{"tool": "upload", "args": {"bucket": "b"}}],
        forbidden=[{"tool": "upload", "reason": f"never upload with {key}"}],
    )
    assert evaluation.policy_violations, "the rule should fire"
    record = json.dumps(evaluation.to_dict(), ensure_ascii=False)
    shown = [f.message for f in evaluation.findings] + [f.fix or "" for f in evaluation.findings]
    assert key not in record and not any(key in text for text in shown)
    assert "AKIA…LE" in record


def test_an_expected_calls_description_is_redacted_in_the_record() -> None:
    from toolscore import evaluate

    key = "AKIA" + "IOSFODNN7EXAMPLE"
    evaluation = evaluate([{"tool": "upload", "description": f"upload with {key}"}], [{"tool": "upload"}])
    [expected] = evaluation.to_dict()["expected"]
    assert key not in expected["description"] and expected["description"].startswith("upload with AKIA")
