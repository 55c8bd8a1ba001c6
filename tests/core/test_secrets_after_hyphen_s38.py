"""A vendor key glued to a slug by a hyphen (``deploy-ghp_…``) is a credential: found, hidden,
reported, and never written by an export.

The scanner read a hyphen as part of the word before a key, so every key right after one was
left whole: in tool-call arguments (no finding), in a report, and in an export's records and
ids. tool-scorer found a key at any word boundary, a hyphen among them. Only the loose ``sk-``
has lookalikes that are slugs (``task-sk-notes-for-the-sprint``); after a hyphen it counts in the
shapes OpenAI issues only.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from toolscore_core import RunCall, RunRow
from toolscore_core.scoring.evaluation import evaluate
from toolscore_core.scoring.secrets import find_secrets, redact, redact_text, scan_text

# Fake credentials in the vendors' formats (none is a live key), built by concatenation so no
# complete key-shaped literal sits in the source.
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
OPENAI_PROJECT = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
OPENAI_LEGACY = "sk-" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV"

# (kind, key, a part of it that must never be shown)
KEYS = [
    ("github_token", GITHUB, GITHUB[8:30]),
    *(("github_token", prefix + GITHUB[4:], GITHUB[8:30]) for prefix in ("gho_", "ghs_", "ghu_", "ghr_")),
    ("github_token", "github_pat_" + "11ABCDEFG0123456789_abcdefghijKLMNOP", "0123456789_abcdefghij"),
    ("openai_api_key", OPENAI_PROJECT, OPENAI_PROJECT[10:30]),
    ("openai_api_key", "sk-" + "svcacct-" + OPENAI_PROJECT[8:], OPENAI_PROJECT[10:30]),
    ("openai_api_key", "sk-" + "admin-" + OPENAI_PROJECT[8:], OPENAI_PROJECT[10:30]),
    ("openai_api_key", OPENAI_LEGACY, OPENAI_LEGACY[5:30]),
    ("anthropic_api_key", "sk-ant-" + "api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe", "Zy9Xw8Vu7Ts6Rq5Po4Nm3"),
    ("aws_access_key_id", "AKIA" + "IOSFODNN7EXAMPLE", "IOSFODNN7EXAMP"),
    ("aws_access_key_id", "ASIA" + "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMN"),
    ("google_api_key", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "A1b2C3d4E5f6G7h8I9j0"),
    ("slack_token", "xoxb-" + "123456789012-abcdefABCDEF", "23456789012-abcdef"),
    ("stripe_key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "C39HqLyjWDarjtT1zd"),
    ("stripe_key", "rk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "C39HqLyjWDarjtT1zd"),
]
SLUGS = ["deploy-", "task-", "call-", "a-b-c-", "-", "--token-", "run-2026-12-05-"]


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize(("kind", "key", "middle"), KEYS, ids=[f"{k[0]}-{k[1][:6]}" for k in KEYS])
def test_a_key_after_a_hyphen_is_found_and_hidden(kind: str, key: str, middle: str, slug: str) -> None:
    text = f"{slug}{key}"
    assert [found for found, _, _ in scan_text(text)] == [kind]
    cleaned = redact_text(text)
    assert cleaned.startswith(slug), cleaned  # the slug is kept: only the key is hidden
    assert key not in cleaned and middle not in cleaned, cleaned
    hits = find_secrets({"id": text, "nested": [{"v": f"use {text} now"}]})
    assert [(hit.path, hit.kind) for hit in hits] == [("id", kind), ("nested[0].v", kind)]
    assert all(middle not in hit.preview for hit in hits)
    assert middle not in json.dumps(redact({"id": text}))


@pytest.mark.parametrize("value", [
    "task-sk-my-long-task-name-for-the-sprint",  # a slug, as before
    "team-sk-Q3-Planning-Notes-2026-for-the-whole-sprint",  # mixed case and digits, but a slug's words
    "x-sk-" + OPENAI_LEGACY[3:-1],  # 31 characters after "sk-": not an issued shape
    "x-sk-" + OPENAI_LEGACY[3:20] + "-" + OPENAI_LEGACY[20:],  # a hyphen inside the 32
    "release-sk-proj-" + "short-Name-2",
    "x-sk-" + "abcdefghijklmnopqrstuvwxyzabcdefgh",  # the shape, but no digit or capital: not random
    "xghp_" + GITHUB[4:],  # glued to a letter: part of a longer word, as before
    "9AKIA" + "IOSFODNN7EXAMPLE",
])
def test_slugs_and_words_after_a_hyphen_stay_unflagged(value: str) -> None:
    assert find_secrets({"id": value}) == []
    assert redact_text(value) == value


def test_an_issued_sk_key_after_a_hyphen_is_the_whole_run() -> None:
    text = f"build-{OPENAI_LEGACY}-suffix and more"
    (hit,) = scan_text(text)
    assert hit[0] == "openai_api_key"
    assert text[hit[1]:hit[2]] == f"{OPENAI_LEGACY}-suffix"  # the key's alphabet has "-": hidden with it
    assert redact_text(text).startswith("build-sk-a…ix and more")


@pytest.mark.parametrize("text", [
    "-sk-" * 1_250_000,
    ("-sk-" + "a1B" * 10 + "!") * 140_000,  # 30 of the 32 characters an issued key needs, over and over
    "x-" * 2_500_000,
    ("-ghp_" + "a" * 35 + " ") * 120_000,
])
def test_hyphen_near_misses_are_scanned_in_linear_time(text: str) -> None:
    assert len(text) >= 4_900_000
    started = time.perf_counter()
    hits = scan_text(text)
    elapsed = time.perf_counter() - started
    assert hits == []
    assert elapsed < 8.0, f"{elapsed:.1f} s"  # about half a second idle; a quadratic scan takes hours


def test_evaluate_reports_a_key_passed_after_a_hyphen() -> None:
    trace = [{"tool": "http_post", "args": {"auth": f"x-{GITHUB}", "note": f"deploy-{OPENAI_LEGACY}"}}]
    result = evaluate([{"tool": "http_post"}], trace)
    security = result.metrics["security_metrics"]
    assert security["secret_count"] == 2
    assert sorted(s["kind"] for s in security["secrets"]) == ["github_token", "openai_api_key"]
    record = json.dumps(result.to_dict(), ensure_ascii=False)
    assert GITHUB not in record and OPENAI_LEGACY not in record
    assert "x-ghp_…R8" in record


def test_an_export_never_writes_a_key_glued_to_an_id(tmp_path: Path) -> None:
    from toolscore_export import export_runs
    from toolscore_export.check import check_file

    row = RunRow(task_id=f"deploy-{GITHUB}", arm_id="careful", repetition=1, status="completed", outcome="pass",
                 order=1, seed=7, study="s", provider="scripted", model="scripted", turns=2,
                 calls=(RunCall(tool="http_post", id=f"call-{GITHUB}", args={"auth": f"x-{GITHUB}"},
                                result=f"key-{GITHUB}", is_error=False),),
                 final_answer=f"done with token-{GITHUB}").to_dict()
    row["cell_id"] = f"{row['task_id']}::careful::1"
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "records.jsonl"
    export_runs([runs], out)
    written = out.read_text(encoding="utf-8") + (tmp_path / "records.jsonl.manifest.json").read_text(encoding="utf-8")
    assert GITHUB[4:] not in written and GITHUB[8:30] not in written
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record["task_id"] == "deploy-ghp_…R8"
    sha = hashlib.sha256(runs.read_bytes()).hexdigest()[:12]
    assert record["run_id"] == f"deploy-ghp_…R8::careful::1@{sha}:1"  # ids that redact alike stay apart
    assert record["requested_calls"][0]["call_id"] == "call-ghp_…R8"
    assert record["requested_calls"][0]["args"] == {"auth": "x-ghp_…R8"}
    assert record["final_answer"] == "done with token-ghp_…R8"
    assert check_file(out).ok
