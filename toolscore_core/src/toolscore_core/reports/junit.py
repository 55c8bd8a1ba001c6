"""The evaluation as JUnit XML, the format every CI system turns into a test report.

Each thing a reviewer wants to see pass or fail is its own test case: one per expected
call (did the agent make it, with the right arguments), one per forbidden rule (was it
broken), one per behaviour or safety finding of error severity, and the score against
the required minimum, whose output lists every metric with its weight (also written as
suite properties). Warnings become passing cases with the message in ``system-out``,
so they are visible without failing the build.
"""

from __future__ import annotations

from typing import IO, Any
from xml.etree import ElementTree as ET

from toolscore_core.kernel.model import Evaluation
from toolscore_core.reports.summary import (
    MetricDetail,
    finding_text,
    severity_label,
    summarize,
    weight_text,
)
from toolscore_core.reports.text import format_call, percent, safe_text

SUITE = "toolscore.eval"
# Characters XML 1.0 cannot carry at all, even escaped: C0 controls other than tab and
# newlines are dropped; surrogates and the non-characters U+FFFE and U+FFFF (a tool name
# may hold them) become U+FFFD, so the name stays recognisable and the file well-formed.
_XML_BAD: dict[int, str | None] = {c: None for c in range(32) if c not in (9, 10, 13)}
_XML_BAD.update({c: "\ufffd" for c in (*range(0xD800, 0xE000), 0xFFFE, 0xFFFF)})


def _clean(text: str) -> str:
    return text.translate(_XML_BAD)


def _case(suite: ET.Element, classname: str, name: str, *, failure: str | None = None,
          detail: str | None = None, out: str | None = None) -> None:
    case = ET.SubElement(suite, "testcase", classname=classname, name=_clean(name), time="0")
    if failure is not None:
        element = ET.SubElement(case, "failure", message=_clean(failure), type="toolscore")
        element.text = _clean(detail or failure)
    if out:
        ET.SubElement(case, "system-out").text = _clean(out)


def _metric_properties(suite: ET.Element, metrics: tuple[MetricDetail, ...]) -> None:
    """Every metric's value and weight as suite properties, for tools that read them.

    JUnit wants ``<properties>`` before the test cases. A metric whose value is unknown
    gets no ``value`` property rather than a made-up one.
    """
    if not metrics:
        return
    properties = ET.Element("properties")
    for m in metrics:
        if m.value is not None:
            ET.SubElement(properties, "property", name=f"toolscore.metric.{_clean(m.key)}.value", value=repr(m.value))
        if m.weight is not None:
            ET.SubElement(properties, "property", name=f"toolscore.metric.{_clean(m.key)}.weight",
                          value=repr(m.weight))
    suite.insert(0, properties)


def render_junit(evaluation: Evaluation, stream: IO[str], **options: Any) -> None:
    data = summarize(evaluation)
    suite = ET.Element("testsuite", name=SUITE)
    by_expected = {r.expected_index: r for r in data.rows if r.expected_index is not None}
    for index, call in enumerate(evaluation.expected):
        row = by_expected.get(index)
        name = f"expected call {index + 1}: {format_call(call.tool, call.args, unchecked=call.args is None)}"
        if row is None or row.ok:
            _case(suite, f"{SUITE}.expected", name)
        else:
            message = row.status_text()
            detail = f"expected {row.expected}\nactual   {row.actual or '(none)'}\n{message}"
            _case(suite, f"{SUITE}.expected", name, failure=message, detail=detail)

    violations = evaluation.policy_violations
    for number, rule in enumerate(options.get("forbidden") or (), start=1):
        hits = [v for v in violations if v.get("rule") == number - 1]
        tool = getattr(rule, "tool", None)
        reason = getattr(rule, "reason", None)
        name = f"forbidden rule {number}: {format_call(tool, getattr(rule, 'args', None))}"
        if reason:
            name += f" ({safe_text(reason, 80)})"
        if hits:
            calls = ", ".join(f"call {v.get('index', 0) + 1} {v.get('tool')}" for v in hits)
            _case(suite, f"{SUITE}.forbidden", name, failure=f"broken by {calls}")
        else:
            _case(suite, f"{SUITE}.forbidden", name)

    for finding in data.findings:
        text = finding_text(finding)
        name = f"{finding.code}: {safe_text(text, 100)}"
        if finding.severity == "error":
            _case(suite, f"{SUITE}.safety", name, failure=text)
        else:
            _case(suite, f"{SUITE}.safety", name, out=f"{severity_label(finding)} {text}")

    score_name = f"score {percent(data.score)} (grade {data.grade}, {data.verdict})"
    metrics_out = "\n".join(f"{m.label}: {percent(m.value)}, weight {weight_text(m.weight)}"
                            for m in data.all_metrics) or None
    if data.min_score is not None and data.below_min_score:
        _case(suite, f"{SUITE}.score", score_name,
              failure=f"score {percent(data.score)} is below the required {percent(data.min_score)}",
              out=metrics_out)
    else:
        _case(suite, f"{SUITE}.score", score_name, out=metrics_out)
    _metric_properties(suite, data.all_metrics)

    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    suite.set("time", "0")
    root = ET.Element("testsuites", name="toolscore")
    root.append(suite)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="utf-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode"))
    stream.write("\n")


__all__ = ["render_junit"]
