"""The lint report formats: console (plain and styled), Markdown, JSON and SARIF 2.1.0."""

from __future__ import annotations

import io
import json
from typing import Any

import fastjsonschema
import pytest

from toolscore_core.kernel.model import ServerDefinition, ToolDefinition
from toolscore_core.kernel.plugins import PluginManager
from toolscore_core.kernel.registry import collect
from toolscore_mcp.lint.baseline import fingerprint
from toolscore_mcp.lint.reports import EXPORTERS, LintConsole, LintJSON, LintMarkdown, LintSARIF
from toolscore_mcp.lint.rules import builtin_rules
from toolscore_mcp.lint.runner import LintResult, lint_server


def github_like() -> LintResult:
    server = ServerDefinition(name="github-mcp-server", version="1.12.2", instructions="Use `issue_red` to read.",
                              tools=(
        ToolDefinition(name="label_write", description="To set labels on issues, use the 'update_issue' tool.",
                       input_schema={"type": "object", "properties": {}}),
        ToolDefinition(name="issue_read", description="Read an issue | with its comments.",
                       input_schema={"type": "object", "properties": {"n": {"description": "Issue | number"}},
                                     "required": ["n"]}),
    ))
    return lint_server(server, rules=builtin_rules())


def render(exporter: Any, result: LintResult, stream: io.StringIO | None = None, **options: Any) -> str:
    out = stream or io.StringIO()
    exporter().export(result, out, **options)
    return out.getvalue()


def test_exporters_are_registered_under_lint_names(installed_plugin_manager: PluginManager) -> None:
    registry = collect(installed_plugin_manager, "exporters")
    for name in ("lint-console", "lint-md", "lint-json", "lint-sarif"):
        assert name in registry
    assert [e.name for e in EXPORTERS] == ["lint-console", "lint-md", "lint-json", "lint-sarif"]
    assert all(e.subject == "lint" and e.name == f"lint-{e.format}" for e in EXPORTERS)


def test_console_plain_keeps_each_finding_on_one_line() -> None:
    text = render(LintConsole, github_like())
    assert "\x1b[" not in text  # no colour codes off a terminal
    line = next(ln for ln in text.splitlines() if "update_issue" in ln)
    assert "│ warning  │ label_write │ refers to tool 'update_issue', which this server does not expose" in line
    assert line.rstrip().endswith("│ reference-unknown-tool │")
    assert "did you mean 'issue_read'?" in text  # the instructions' `issue_red`
    assert "github-mcp-server 1.12.2: 2 tools, lint score" in text
    assert "How to fix:" in text


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_console_on_a_terminal_is_styled() -> None:
    text = render(LintConsole, github_like(), FakeTTY())
    assert "\x1b[" in text and "update_issue" in text


def test_console_with_no_findings() -> None:
    clean = lint_server(ServerDefinition(name="ok", tools=(ToolDefinition(
        name="echo", description="Echo the text back.",
        input_schema={"type": "object", "properties": {}}),)), rules=builtin_rules())
    text = render(LintConsole, clean)
    assert "No findings." in text and "lint score 100%" in text


def test_markdown_escapes_pipes_and_lists_every_finding() -> None:
    result = github_like()
    text = render(LintMarkdown, result)
    # the heading is ours; the server's name (outside text) is on a line of its own
    assert text.startswith("# MCP lint\n\nServer: `github-mcp-server 1.12.2`\n")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    assert len(rows) == len(result.findings)
    assert all(ln.count(" | ") - ln.count("\\|") == 4 for ln in rows)  # five cells, escaped pipes inside
    assert "`label_write`" in text and "| (server) |" in text


def test_json_report_round_trips() -> None:
    result = github_like()
    data = json.loads(render(LintJSON, result))
    assert data["schema"] == "toolscore.lint/1"
    assert data["server"] == {"name": "github-mcp-server", "version": "1.12.2", "protocol_version": None, "tools": 2}
    assert data["counts"] == result.counts and data["score"] == pytest.approx(result.score, abs=1e-4)
    assert [f["code"] for f in data["findings"]] == [f.code for f in result.findings]
    assert all(f["fingerprint"] == fingerprint(g) for f, g in zip(data["findings"], result.findings, strict=True))


# What GitHub code scanning reads from SARIF 2.1.0 (docs: "SARIF support for code scanning"):
# a version, a driver with a name and rules with ids, and results with a ruleId, a message
# and a physical location with a repository-relative artifact URI.
SARIF_FOR_GITHUB = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {"name": {"type": "string", "minLength": 1}, "rules": {"type": "array", "items": {
                        "type": "object", "required": ["id", "shortDescription", "defaultConfiguration"],
                        "properties": {"id": {"type": "string", "minLength": 1},
                                       "shortDescription": {"type": "object", "required": ["text"]},
                                       "defaultConfiguration": {"type": "object", "properties": {
                                           "level": {"enum": ["none", "note", "warning", "error"]}}}}}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["ruleId", "message", "locations", "level"],
                    "properties": {
                        "ruleId": {"type": "string", "minLength": 1},
                        "ruleIndex": {"type": "integer", "minimum": 0},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"],
                                    "properties": {"text": {"type": "string", "minLength": 1}}},
                        "partialFingerprints": {"type": "object", "additionalProperties": {"type": "string"}},
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "required": ["physicalLocation", "logicalLocations"],
                            "properties": {
                                "physicalLocation": {"type": "object", "required": ["artifactLocation"], "properties": {
                                    "artifactLocation": {"type": "object", "required": ["uri"], "properties": {
                                        "uri": {"type": "string", "minLength": 1, "pattern": "^(?![a-z]+://)[^\\s]+$"}}}}},
                                "logicalLocations": {"type": "array", "minItems": 1, "items": {
                                    "type": "object", "required": ["name", "kind"]}}}}}}}}}}},
    },
}


def test_sarif_has_the_shape_github_code_scanning_needs() -> None:
    result = github_like()
    data = json.loads(render(LintSARIF, result, artifact="mcp/tools.json"))
    fastjsonschema.validate(SARIF_FOR_GITHUB, data)
    run = data["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert set(ids) >= {r.name for r in result.rules}
    for item in run["results"]:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
        assert item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mcp/tools.json"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    stale = by_rule["reference-unknown-tool"]
    assert stale["level"] == "warning"
    assert stale["locations"][0]["logicalLocations"][0] == {
        "name": "label_write", "fullyQualifiedName": "github-mcp-server/label_write", "kind": "function"}
    assert "update_issue" in stale["message"]["text"]
    assert len(run["results"]) == len(result.findings)


def test_sarif_default_artifact_is_a_relative_path() -> None:
    data = json.loads(render(LintSARIF, github_like()))
    fastjsonschema.validate(SARIF_FOR_GITHUB, data)
    uri = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "github-mcp-server.mcp-server"


def test_sarif_levels_map_info_to_note() -> None:
    server = ServerDefinition(name="s", tools=(ToolDefinition(
        name="t", description="Takes things as input.", input_schema={"type": "object", "properties": {"a": {
            "type": "string", "description": "A"}}}),))
    result = lint_server(server, rules=builtin_rules())
    data = json.loads(render(LintSARIF, result))
    assert [r["level"] for r in data["runs"][0]["results"]] == ["note"]
    fastjsonschema.validate(SARIF_FOR_GITHUB, data)
