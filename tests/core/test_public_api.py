"""The kernel's public API: every name in ``toolscore_core.__all__`` resolves, and the
helpers plugins need (exporter lookup, instantiation, redaction, severities, lint findings,
baselines) work when imported from ``toolscore_core`` alone, as an outside author would."""

from __future__ import annotations

import io
import json
import typing
from pathlib import Path
from typing import IO, Any, ClassVar

import pytest

import toolscore_core
from toolscore_core import (
    SEVERITIES,
    Exporter,
    Finding,
    InputError,
    LintRule,
    ServerDefinition,
    Severity,
    ToolDefinition,
    collect,
    compare_baseline,
    exporter_formats,
    exporter_name,
    find_exporter,
    hookimpl,
    instantiate,
    load_baseline,
    redact,
    redact_text,
    save_baseline,
)

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
FLIGHTS = Path(__file__).parent / "fixtures" / "eval_flights"
NEW_NAMES = {"instantiate", "redact", "redact_text", "Severity", "SEVERITIES", "find_exporter",
             "exporter_formats", "save_baseline", "load_baseline", "compare_baseline", "LintRule"}


def test_every_public_name_resolves() -> None:
    missing = [name for name in toolscore_core.__all__ if getattr(toolscore_core, name, None) is None]
    assert missing == []
    assert set(toolscore_core.__all__) >= NEW_NAMES
    assert sorted(dir(toolscore_core)) == sorted(toolscore_core.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'find_exporters'"):
        toolscore_core.find_exporters  # noqa: B018  (the attribute access is the test)


# --- exporters ---------------------------------------------------------------------------


class WidgetCsv(Exporter):
    """A third party's subject and format, unknown to the kernel."""

    name: ClassVar[str] = exporter_name("widget", "csv")
    subject: ClassVar[str] = "widget"
    format: ClassVar[str] = "csv"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        stream.write("name,count\n" + "".join(f"{k},{v}\n" for k, v in subject.items()))


class EvaluationYaml(Exporter):
    """A third-party format for a kernel subject."""

    name: ClassVar[str] = exporter_name("evaluation", "yaml")
    subject: ClassVar[str] = "evaluation"
    format: ClassVar[str] = "yaml"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        stream.write(f"score: {subject.score:.2f}\n")


class RunRecordJson(Exporter):
    """Its name starts with ``run-`` but its subject is ``run-record``."""

    name: ClassVar[str] = "run-record-json"
    subject: ClassVar[str] = "run-record"
    format: ClassVar[str] = "json"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        stream.write("{}")


class ExporterPlugin:
    @hookimpl
    def toolscore_register_exporters(self) -> list[type[Exporter]]:
        return [WidgetCsv, EvaluationYaml, RunRecordJson]


def test_a_builtin_exporter_is_found_ready_to_use(plugin_manager: Any) -> None:
    exporter = find_exporter("evaluation", " MD ", pm=plugin_manager)
    assert isinstance(exporter, Exporter) and exporter.name == "evaluation-md"
    assert exporter_formats("evaluation", pm=plugin_manager) == ["console", "html", "json", "junit", "md"]


def test_a_third_party_exporter_is_found(plugin_manager: Any, register_plugin: Any) -> None:
    register_plugin(ExporterPlugin())
    exporter = find_exporter("widget", "csv", pm=plugin_manager)
    assert isinstance(exporter, WidgetCsv)  # the registered class, instantiated
    out = io.StringIO()
    exporter.export({"a": 1}, out)
    assert out.getvalue() == "name,count\na,1\n"
    assert exporter_formats("widget", pm=plugin_manager) == ["csv"]
    assert "yaml" in exporter_formats("evaluation", pm=plugin_manager)


def test_formats_of_another_subject_with_a_longer_name_are_not_listed(plugin_manager: Any,
                                                                      register_plugin: Any) -> None:
    register_plugin(ExporterPlugin())
    assert exporter_formats("run", pm=plugin_manager) == []
    assert exporter_formats("run-record", pm=plugin_manager) == ["json"]


def test_a_registry_a_command_built_is_used_as_it_is(plugin_manager: Any, register_plugin: Any) -> None:
    register_plugin(ExporterPlugin())
    registry = collect(plugin_manager, "exporters")
    assert isinstance(find_exporter("widget", "csv", registry=registry), WidgetCsv)
    with pytest.raises(TypeError, match="not both"):
        find_exporter("widget", "csv", pm=plugin_manager, registry=registry)
    with pytest.raises(TypeError, match="'exporters' registry"):
        find_exporter("widget", "csv", registry=collect(plugin_manager, "metrics"))


def test_a_third_party_format_works_in_toolscore_eval(invoke: Any, register_plugin: Any) -> None:
    register_plugin(ExporterPlugin())
    result = invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace_good.json"), "--report", "yaml")
    assert result.exit_code == 0, result.output
    assert result.stdout == "score: 1.00\n"


def test_an_unknown_format_names_the_subject_lists_formats_and_suggests(plugin_manager: Any) -> None:
    with pytest.raises(InputError) as caught:
        find_exporter("evaluation", "mdd", pm=plugin_manager)
    error = caught.value
    assert error.message == "--report 'mdd' is not an installed evaluation report format"
    assert error.expected == "one of: console, html, json, junit, md (did you mean 'md'?)"
    assert str(error) == (
        "--report 'mdd' is not an installed evaluation report format. "
        "Expected one of: console, html, json, junit, md (did you mean 'md'?)."
    )


def test_a_subject_with_no_format_installed_says_so(plugin_manager: Any) -> None:
    with pytest.raises(InputError) as caught:
        find_exporter("widget", "csv", pm=plugin_manager)
    assert "is not an installed widget report format" in caught.value.message
    assert "none is installed" in (caught.value.expected or "")


def test_toolscore_eval_reports_an_unknown_format_in_one_paragraph(invoke: Any) -> None:
    result = invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace.json"), "--report", "htm")
    assert result.exit_code == 2
    assert "--report 'htm' is not an installed evaluation report format" in result.stderr
    assert "did you mean 'html'?" in result.stderr and "Traceback" not in result.output


# --- instantiate, redact, severities ------------------------------------------------------


def test_instantiate_offers_a_class_only_the_settings_it_names() -> None:
    class NeedsModel:
        def __init__(self, model: str = "default") -> None:
            self.model = model

    made = instantiate(NeedsModel, model="gpt-x", base_url="http://unused")
    assert isinstance(made, NeedsModel) and made.model == "gpt-x"
    ready = NeedsModel()
    assert instantiate(ready, model="ignored") is ready


def test_redact_hides_credentials_in_nested_values_and_strings() -> None:
    args = {"auth": {"key": AWS_KEY}, "tags": ["x", f"token {AWS_KEY}"], "n": 3}
    assert redact(args) == {"auth": {"key": "AKIA…LE"}, "tags": ["x", "token AKIA…LE"], "n": 3}
    assert args["auth"] == {"key": AWS_KEY}  # a copy: the input is untouched
    assert redact_text(f"use {AWS_KEY} here") == "use AKIA…LE here"
    assert redact_text("nothing secret") == "nothing secret"


def test_severities_are_the_literal_values_in_rank_order() -> None:
    assert SEVERITIES == ("error", "warning", "info")
    assert typing.get_args(Severity) == SEVERITIES


# --- LintRule.finding -----------------------------------------------------------------------


class NoUpperNames(LintRule):
    name: ClassVar[str] = "test-no-upper-names"
    severity: ClassVar[Severity] = "info"

    def check(self, server: ServerDefinition) -> list[Finding]:
        return [self.finding(f"{t.name!r} has capitals", tool=t.name, evidence=t.description, key="name")
                for t in server.tools if t.name.lower() != t.name]


def test_finding_fills_in_the_code_and_the_rule_severity() -> None:
    rule = NoUpperNames()
    [finding] = rule.check(ServerDefinition(tools=[ToolDefinition(name="Search"), ToolDefinition(name="list")]))
    assert finding == Finding(severity="info", code="test-no-upper-names", message="'Search' has capitals",
                              tool="Search", details={"key": "name"})


def test_finding_follows_a_changed_severity_and_an_explicit_one() -> None:
    rule = NoUpperNames()
    setattr(rule, "severity", "error")  # what a configuration that raises the level does  # noqa: B010
    assert rule.finding("m").severity == "error"
    assert NoUpperNames().finding("m").severity == "info"  # the class default is untouched
    assert rule.finding("m", severity="warning").severity == "warning"
    with pytest.raises(ValueError, match="'fatal' is not one of error, warning, info"):
        rule.finding("m", severity=typing.cast(Severity, "fatal"))


def test_finding_evidence_is_redacted_and_bounded() -> None:
    rule = NoUpperNames()
    assert rule.finding("m", evidence=f"call with {AWS_KEY}").evidence == "call with AKIA…LE"
    long_text = f"{AWS_KEY} " + "word " * 2000
    evidence = rule.finding("m", evidence=long_text).evidence or ""
    assert evidence.startswith("AKIA…LE word") and AWS_KEY not in evidence
    assert evidence.endswith(f"… ({len(long_text)} characters)")
    assert len(evidence) < rule.evidence_limit + 40
    assert rule.finding("m").evidence is None


def test_the_example_plugin_rule_builds_its_findings_with_finding(installed_plugin_manager: Any) -> None:
    rule = instantiate(collect(installed_plugin_manager, "lint_rules").get("example-snake-case-names"))
    [finding] = rule.check(ServerDefinition(tools=[ToolDefinition(name="searchNotes")]))
    assert (finding.code, finding.severity, finding.tool) == ("example-snake-case-names", "info", "searchNotes")
    assert finding.details == {"key": "name"} and finding.evidence == "searchNotes"
    setattr(rule, "severity", "warning")  # noqa: B010
    assert [f.severity for f in rule.check(ServerDefinition(tools=[ToolDefinition(name="a-b")]))] == ["warning"]


# --- baselines --------------------------------------------------------------------------------


def test_baseline_round_trip_through_the_public_names(plugin_manager: Any, tmp_path: Path) -> None:
    from toolscore import evaluate

    gold = [{"tool": "search", "args": {"q": "x"}}, {"tool": "book", "args": {"id": 1}}]
    good = evaluate(gold, [{"tool": "search", "args": {"q": "x"}}, {"tool": "book", "args": {"id": 1}}],
                    plugin_manager=plugin_manager)
    worse = evaluate(gold, [{"tool": "search", "args": {"q": "x"}}], plugin_manager=plugin_manager)
    path = tmp_path / "baseline.json"

    written = save_baseline(good, path, gold_file="gold.json")
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    assert on_disk == written and on_disk["toolscore_baseline"] == 1 and on_disk["gold_file"] == "gold.json"
    loaded = load_baseline(path)
    assert loaded == written

    same = compare_baseline(loaded, good)
    assert not same.regressed and same.reasons() == []
    drop = compare_baseline(loaded, worse)
    assert drop.regressed and drop.reasons()[0].startswith("score fell")
    assert not compare_baseline(loaded, worse, tolerance=1.0).regressed


def test_the_old_comparison_name_still_works() -> None:
    from toolscore_core.reports import baseline

    assert baseline.compare is compare_baseline


def test_a_broken_baseline_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"score": 1.0}), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_baseline(path)
    assert caught.value.file == str(path) and "not a Toolscore baseline" in caught.value.message


def test_lazy_attributes_load_on_first_use_and_say_what_to_install(tmp_path, monkeypatch):
    import sys
    import types

    import pytest

    from toolscore_core import lazy_attributes

    package = types.ModuleType("lazy_demo_pkg")
    monkeypatch.setitem(sys.modules, "lazy_demo_pkg", package)
    names = {"dumps": "json", "Thing": "not_installed_dist.things"}
    package.__getattr__, package.__dir__ = lazy_attributes("lazy_demo_pkg", names, extra=("__version__",))

    import json

    assert package.dumps is json.dumps and package.__dict__["dumps"] is json.dumps  # cached after first use
    assert dir(package) == ["Thing", "__version__", "dumps"]
    with pytest.raises(ImportError, match=r"needs the not-installed-dist distribution.*pip install not-installed-dist"):
        package.Thing  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        package.nope  # noqa: B018


def test_every_distribution_package_resolves_its_lazy_names():
    import toolscore_agent
    import toolscore_providers

    assert toolscore_providers.ScriptedProvider.name == "scripted"
    assert toolscore_agent.run_study.__module__ == "toolscore_agent.study"
    assert "run_agent" in dir(toolscore_agent) and "__version__" in dir(toolscore_providers)
