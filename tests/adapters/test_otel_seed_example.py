"""The seed README's example 4, run as written against examples/otel_genai_spans.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPECTED_LINES = [
    "search_orders {'customer': 'ada@example.com', 'status': 'open'} ok",
    "issue_refund {'order_id': 'A-17', 'amount': 42.5} FAILED: Refund window has closed",
    "send_email {'to': 'ada@example.com', 'subject': 'Your refund'} ok",
]


def test_example_4_prints_exactly_the_seed_output(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    from toolscore import evaluate, from_otel

    with open("examples/otel_genai_spans.json", encoding="utf-8") as fh:
        spans = json.load(fh)  # written by the OpenTelemetry SDK
    for call in from_otel(spans):
        print(call["tool"], call["args"], "FAILED: " + call["error"] if call["is_error"] else "ok")

    result = evaluate(expected=[{"tool": "search_orders"}, {"tool": "issue_refund"},
                                {"tool": "send_email"}], actual=spans)
    print(result.required_call_recall)
    assert capsys.readouterr().out.splitlines() == [*EXPECTED_LINES, "0.6666666666666666"]
    assert result.required_call_recall == 0.6666666666666666
    assert result.actual.source_format == "otel"


def test_from_otel_reads_the_example_as_a_path_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    from toolscore import from_otel

    calls = from_otel(Path("examples/otel_genai_spans.json"))
    assert [c["tool"] for c in calls] == ["search_orders", "issue_refund", "send_email"]
    assert [c["is_error"] for c in calls] == [False, True, False]
