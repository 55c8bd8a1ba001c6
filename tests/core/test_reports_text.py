"""Value and call formatting shared by every report: bounded, redacted, Python-looking."""

from __future__ import annotations

from toolscore_core.reports.text import (
    ELLIPSIS,
    format_args,
    format_call,
    format_value,
    percent,
    ratio,
    safe_text,
    truncate,
)

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def test_truncate_keeps_short_text_and_marks_cuts() -> None:
    assert truncate("abc", 5) == "abc"
    assert truncate("abcdefgh", 5) == "abcd" + ELLIPSIS
    assert len(truncate("x" * 1000, 40)) == 40
    assert truncate("abc", 0) == ""


def test_format_call_reads_like_python() -> None:
    assert format_call("search_flights", {"origin": "SFO", "destination": "NYC"}) == (
        "search_flights(origin='SFO', destination='NYC')"
    )
    assert format_call("list_allowed_directories", {}) == "list_allowed_directories()"
    assert format_call("read_text_file", None, unchecked=True) == f"read_text_file({ELLIPSIS})"
    assert format_call(None, {"x": 1}) == "<any tool>(x=1)"


def test_values_of_every_json_type() -> None:
    assert format_value(True) == "True"
    assert format_value(None) == "None"
    assert format_value(2.5) == "2.5"
    assert format_value({"a": [1, "b"]}) == "{'a': [1, 'b']}"
    assert format_value("café ☕") == "'café ☕'"


def test_a_ten_megabyte_value_is_cut() -> None:
    huge = "x" * 10_000_000
    text = format_call("write_file", {"content": huge, "path": "/tmp/a"})
    assert len(text) <= 120
    assert ELLIPSIS in text
    assert "path='/tmp/a'" in text


def test_a_huge_list_is_rendered_only_up_to_the_limit() -> None:
    text = format_value(list(range(1_000_000)), 40)
    assert len(text) == 40
    assert text.startswith("[0, 1, 2")


def test_credentials_are_redacted_in_arguments_and_text() -> None:
    rendered = format_args({"body": {"text": f"key={AWS_KEY}"}})
    assert AWS_KEY not in rendered
    assert "AKIA…LE" in rendered
    assert AWS_KEY not in safe_text(f"failed with {AWS_KEY}\nand more")
    assert "\n" not in safe_text("two\nlines")


def test_percent_and_ratio() -> None:
    assert percent(0.9) == "90.0%"
    assert percent(0.6923) == "69.2%"
    assert percent(None) == "n/a"
    assert ratio(0.4666) == "0.47"
