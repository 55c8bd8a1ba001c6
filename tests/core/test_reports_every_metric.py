"""Every computed metric in every report: a plugin's metric, weighted or not, is listed with
its value and its weight in the console, Markdown, HTML, JSON and JUnit reports."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar
from xml.etree import ElementTree as ET

import pytest

from toolscore_core import Evaluation, Metric, MetricResult, exporter_name, hookimpl
from toolscore_core.kernel.registry import collect, instantiate
from toolscore_core.reports.summary import metric_details
from toolscore_core.scoring.evaluation import evaluate

EXPECTED = [{"tool": "search", "args": {"q": "flights"}}, {"tool": "book", "args": {"id": "FL-1"}}]
# Four calls, three known to have succeeded: the plugin metric below reads 75.0%.
TRACE = [
    {"tool": "search", "args": {"q": "flights"}, "is_error": False},
    {"tool": "search", "args": {"q": "flights"}, "is_error": True, "error": "timeout"},
    {"tool": "search", "args": {"q": "flights"}, "is_error": False},
    {"tool": "book", "args": {"id": "FL-1"}, "is_error": False},
]
LABEL = "Call Success Rate"


class CallSuccessRate(Metric):
    """Share of calls known to have succeeded (opt-in: weight 0 unless the user weights it)."""

    name: ClassVar[str] = "call_success_rate"
    description: ClassVar[str] = "share of calls known to have succeeded"
    default_weight: ClassVar[float] = 0.0

    def compute(self, context: Any) -> MetricResult:
        calls = context.calls
        ok = sum(1 for c in calls if c.succeeded)
        return MetricResult(value=ok / len(calls) if calls else None, details={"succeeded": ok})


class SuccessPlugin:
    @hookimpl
    def toolscore_register_metrics(self) -> list[type[Metric]]:
        return [CallSuccessRate]


@pytest.fixture
def with_plugin(plugin_manager: Any, register_plugin: Any) -> Any:
    register_plugin(SuccessPlugin())
    return plugin_manager


def _evaluation(pm: Any, weights: dict[str, float] | None = None) -> Evaluation:
    return evaluate(EXPECTED, TRACE, weights=weights, plugin_manager=pm)


def _export(pm: Any, fmt: str, evaluation: Evaluation, **options: Any) -> str:
    exporter = instantiate(collect(pm, "exporters").get(exporter_name("evaluation", fmt)))
    out = io.StringIO()
    exporter.export(evaluation, out, **options)
    return out.getvalue()


class _Rows(HTMLParser):
    """The text of each row of the table with a given id."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.inside = False
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.inside = dict(attrs).get("id") == self.table_id
        elif self.inside and tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside and self.rows and data.strip():
            self.rows[-1].append(data.strip())


def test_the_record_carries_the_unweighted_plugin_metric(with_plugin: Any) -> None:
    evaluation = _evaluation(with_plugin)
    assert evaluation.metrics["call_success_rate"]["value"] == 0.75
    assert evaluation.metrics["call_success_rate"]["weight"] == 0.0
    assert "call_success_rate" not in evaluation.weights
    details = {d.key: d for d in metric_details(evaluation)}
    assert set(details) == {"selection_accuracy", "argument_f1", "sequence_accuracy", "redundancy",
                            "required_call_recall", "call_success_rate"}  # behaviour figures are not metrics
    assert (details["call_success_rate"].value, details["call_success_rate"].weight) == (0.75, 0.0)
    assert [d.key for d in metric_details(evaluation)][-2:] == ["call_success_rate", "required_call_recall"]


def test_console_lists_every_metric_with_value_and_weight(with_plugin: Any) -> None:
    text = _export(with_plugin, "console", _evaluation(with_plugin))
    section = text[text.index("Metrics and weights"):]
    assert re.search(rf"^  {LABEL}\s+75\.0%\s+weight 0 \(not scored\)$", section, re.M), section
    assert re.search(r"^  Selection Accuracy\s+100\.0%\s+weight 0\.40$", section, re.M), section
    assert re.search(r"^  Required Call Recall\s+100\.0%\s+weight 0 \(not scored\)$", section, re.M), section
    assert "Efficiency Metrics" not in text and "Pairing" not in section


def test_markdown_lists_every_metric_with_value_and_weight(with_plugin: Any) -> None:
    text = _export(with_plugin, "md", _evaluation(with_plugin))
    assert "## Metrics and weights" in text
    assert f"| {LABEL} | 75.0% | 0 (not scored) |" in text
    assert "| Selection Accuracy | 100.0% | 0.40 |" in text
    assert "| Redundancy |" in text


def test_html_lists_every_metric_with_value_and_weight(with_plugin: Any) -> None:
    parser = _Rows("all-metrics")
    parser.feed(_export(with_plugin, "html", _evaluation(with_plugin)))
    rows = {row[0]: row[1:] for row in parser.rows if row}
    assert rows[LABEL] == ["75.0%", "0 (not scored)"]
    assert rows["Argument F1"] == ["100.0%", "0.30"]
    assert rows.pop("Metric") == ["Value", "Weight"]  # the header
    assert len(rows) == 6


def test_json_lists_every_metric_with_value_and_weight(with_plugin: Any) -> None:
    data = json.loads(_export(with_plugin, "json", _evaluation(with_plugin)))
    assert data["metrics"]["call_success_rate"]["value"] == 0.75
    assert data["metrics"]["call_success_rate"]["weight"] == 0.0
    assert data["metrics"]["call_success_rate"]["details"] == {"succeeded": 3}


def test_junit_lists_every_metric_with_value_and_weight(with_plugin: Any) -> None:
    root = ET.fromstring(_export(with_plugin, "junit", _evaluation(with_plugin)))
    suite = root.find("testsuite")
    assert suite is not None
    assert suite[0].tag == "properties"  # JUnit wants them before the test cases
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["toolscore.metric.call_success_rate.value"] == "0.75"
    assert props["toolscore.metric.call_success_rate.weight"] == "0.0"
    assert props["toolscore.metric.selection_accuracy.weight"] == "0.4"
    score = next(c for c in suite.findall("testcase") if c.get("classname") == "toolscore.eval.score")
    out = score.findtext("system-out") or ""
    assert f"{LABEL}: 75.0%, weight 0 (not scored)" in out.splitlines()
    assert suite.get("tests") == str(len(suite.findall("testcase")))  # properties are not counted


def test_a_weighted_plugin_metric_shows_its_share_of_the_score_everywhere(with_plugin: Any) -> None:
    evaluation = _evaluation(with_plugin, weights={"call_success_rate": 1.0})
    assert evaluation.weights["call_success_rate"] == pytest.approx(0.5)
    assert metric_details(evaluation)[0].key == "call_success_rate"  # heaviest first
    console = _export(with_plugin, "console", evaluation)
    assert re.search(rf"^  {LABEL}\s+75\.0%\s+weight 0\.50$", console, re.M), console
    assert f"| {LABEL} | 75.0% | 0.50 |" in _export(with_plugin, "md", evaluation)
    parser = _Rows("all-metrics")
    parser.feed(_export(with_plugin, "html", evaluation))
    assert [LABEL, "75.0%", "0.50"] in parser.rows
    record = json.loads(_export(with_plugin, "json", evaluation))["metrics"]["call_success_rate"]
    assert record["weight"] == pytest.approx(0.5)
    junit = ET.fromstring(_export(with_plugin, "junit", evaluation))
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert float(props["toolscore.metric.call_success_rate.weight"] or "nan") == pytest.approx(0.5)


def test_the_cli_reports_a_plugin_metric_in_every_format(with_plugin: Any, invoke: Any, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(EXPECTED), encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(TRACE), encoding="utf-8")
    seen = {}
    for fmt in ("console", "md", "html", "json", "junit"):
        target = tmp_path / f"report.{fmt}"
        result = invoke("eval", str(gold), str(trace), "--report", fmt, "-o", str(target))
        assert result.exit_code == 0, result.output
        seen[fmt] = target.read_text(encoding="utf-8")
    for fmt in ("console", "md", "html"):
        assert LABEL in seen[fmt] and "0 (not scored)" in seen[fmt], fmt
    assert json.loads(seen["json"])["metrics"]["call_success_rate"]["value"] == 0.75
    assert 'name="toolscore.metric.call_success_rate.value" value="0.75"' in seen["junit"]


def test_a_record_without_metric_entries_lists_none_rather_than_inventing_them(with_plugin: Any) -> None:
    import attrs

    bare = attrs.evolve(_evaluation(with_plugin), metrics={"efficiency_metrics": {"error_count": 1}})
    assert metric_details(bare) == ()
    assert "Metrics and weights" not in _export(with_plugin, "console", bare)
    assert "toolscore.metric." not in _export(with_plugin, "junit", bare)
