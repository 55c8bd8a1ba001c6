"""The protocol adapters as users meet them: registered through the entry point, detected
among every installed adapter, and behind `toolscore validate` (exit 2 on bad input)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.kernel.traces import adapter_registry, load_trace_file

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXPECTED = {
    ROOT / "examples" / "otel_genai_spans.json": "otel",
    **{p: "otel" for p in sorted((HERE / "fixtures" / "otel").iterdir())},
    HERE / "fixtures" / "mcp" / "memory_session.jsonl": "mcp",
    HERE / "fixtures" / "mcp" / "memory_session_msgs_only.jsonl": "mcp",
    HERE / "fixtures" / "mcp" / "memory_traffic.json": "jsonrpc",
    HERE / "fixtures" / "mcp" / "memory_traffic.jsonl": "jsonrpc",
    HERE / "fixtures" / "mcp" / "memory_traffic_dir.jsonl": "jsonrpc",
}


def test_the_entry_point_registers_the_three_protocol_adapters(installed_plugin_manager: Any) -> None:
    registry = adapter_registry(installed_plugin_manager)
    names = {adapter.name for adapter in registry.instances()}
    assert {"otel", "mcp", "jsonrpc"} <= names


@pytest.mark.parametrize("path", list(EXPECTED), ids=lambda p: p.name)
def test_each_fixture_is_detected_as_its_format_among_all_installed_adapters(
    path: Path, installed_plugin_manager: Any
) -> None:
    trace = load_trace_file(path, pm=installed_plugin_manager)
    assert trace.source_format == EXPECTED[path]
    assert len(trace) >= 2


def test_validate_shows_the_calls_of_an_otel_export(adapter_pm: Any, invoke: Any) -> None:
    result = invoke("validate", str(ROOT / "examples" / "otel_genai_spans.json"))
    assert result.exit_code == 0, result.output
    assert "otel" in result.output and "issue_refund" in result.output and "FAILED" in result.output


def test_validate_reports_a_span_with_broken_arguments(adapter_pm: Any, invoke: Any, tmp_path: Path) -> None:
    data = json.loads((ROOT / "examples" / "otel_genai_spans.json").read_text(encoding="utf-8"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    refund = next(s for s in spans if s["name"] == "execute_tool issue_refund")
    for attribute in refund["attributes"]:
        if attribute["key"] == "gen_ai.tool.call.arguments":
            attribute["value"] = {"stringValue": "{'order_id': 'A-17'}"}  # Python repr, not JSON
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    result = invoke("validate", str(path))
    assert result.exit_code == 0, result.output  # the call is read and marked, the rest still read
    assert "not valid JSON" in result.output and "(invalid JSON) {'order_id'" in result.output
    assert "Traceback" not in result.output


def test_validate_exits_2_on_a_session_with_a_future_version(adapter_pm: Any, invoke: Any, tmp_path: Path) -> None:
    lines = (HERE / "fixtures" / "mcp" / "memory_session.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["version"] = 9
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    result = invoke("validate", str(path))
    assert result.exit_code == 2
    assert "version 9 is not supported" in result.output and "line 1" in result.output
