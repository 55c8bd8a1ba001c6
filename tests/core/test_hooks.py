"""One test per hook: an in-process plugin implements it and the kernel uses what it returns.

The meta-test tests/meta/test_hooks_have_tests.py checks that every hook in hookspecs.py has
a ``test_hook_<hook name>`` here or elsewhere.
"""

from __future__ import annotations

import click

from toolscore_core import (
    Exporter,
    Finding,
    Guard,
    GuardDecision,
    LintRule,
    Metric,
    MetricResult,
    Provider,
    ServerDefinition,
    ToolCall,
    ToolDefinition,
    Trace,
    TraceAdapter,
    hookimpl,
    lazy_command,
)
from toolscore_core.kernel.registry import collect, instantiate
from toolscore_core.kernel.traces import load_trace


class StepAdapter(TraceAdapter):
    name = "steps-test"

    def detect(self, data):
        return 1.0 if isinstance(data, dict) and "steps" in data else 0.0

    def load(self, data):
        return Trace(calls=[ToolCall(tool=s) for s in data["steps"]])


def test_hook_toolscore_register_adapters_is_used_by_detection(plugin_manager, register_plugin):
    class Plugin:
        @hookimpl
        def toolscore_register_adapters(self):
            return [StepAdapter]

    register_plugin(Plugin())
    trace = load_trace({"steps": ["a", "b"]}, pm=plugin_manager)
    assert [c.tool for c in trace.calls] == ["a", "b"]
    assert trace.source_format == "steps-test"


def test_hook_toolscore_register_metrics_adds_a_named_metric(plugin_manager, register_plugin):
    class Length(Metric):
        name = "trace_length"

        def compute(self, context):
            return MetricResult(value=1.0)

    class Plugin:
        @hookimpl
        def toolscore_register_metrics(self):
            return Length  # a single item is accepted too

    register_plugin(Plugin(), name="length-plugin")
    registry = collect(plugin_manager, "metrics")
    assert registry.entry("trace_length").plugin == "length-plugin"
    assert instantiate(registry.get("trace_length")).compute(None).value == 1.0


def test_hook_toolscore_register_lint_rules_rules_check_a_server(plugin_manager, register_plugin):
    class NoX(LintRule):
        name = "no-x"
        severity = "error"

        def check(self, server):
            return [Finding(severity="error", code=self.name, message="x!", tool=t.name)
                    for t in server.tools if t.name == "x"]

    class Plugin:
        @hookimpl
        def toolscore_register_lint_rules(self):
            return [NoX]

    register_plugin(Plugin())
    rule = instantiate(collect(plugin_manager, "lint_rules").get("no-x"))
    findings = rule.check(ServerDefinition(tools=[ToolDefinition(name="x"), ToolDefinition(name="y")]))
    assert [f.tool for f in findings] == ["x"]


def test_hook_toolscore_register_guards_decides_on_calls(plugin_manager, register_plugin):
    class NoDelete(Guard):
        name = "no-delete"

        def check(self, call, context):
            return GuardDecision(allowed=not call.tool.startswith("delete"), reason="deletes are off")

    class Plugin:
        @hookimpl
        def toolscore_register_guards(self):
            return [NoDelete()]

    register_plugin(Plugin())
    guard = collect(plugin_manager, "guards").get("no-delete")
    assert guard.check(ToolCall(tool="delete_all"), None).allowed is False
    assert guard.check(ToolCall(tool="read"), None).allowed is True


def test_hook_toolscore_register_providers_by_name(plugin_manager, register_plugin):
    class Echo(Provider):
        name = "echo"

        def complete(self, request):
            return {"text": request["prompt"]}

    class Plugin:
        @hookimpl
        def toolscore_register_providers(self):
            return [Echo]

    register_plugin(Plugin())
    provider = instantiate(collect(plugin_manager, "providers").get("echo"))
    assert provider.complete({"prompt": "hi"}) == {"text": "hi"}


def test_hook_toolscore_register_exporters_by_subject_and_format(plugin_manager, register_plugin):
    import io

    class CsvExporter(Exporter):
        name = "evaluation-csv"
        subject = "evaluation"
        format = "csv"

        def export(self, subject, stream, **options):
            stream.write(f"score\n{subject}\n")

    class Plugin:
        @hookimpl
        def toolscore_register_exporters(self):
            return [CsvExporter]

    register_plugin(Plugin())
    out = io.StringIO()
    instantiate(collect(plugin_manager, "exporters").get("evaluation-csv")).export(0.5, out)
    assert out.getvalue() == "score\n0.5\n"


@click.command("hello")
@click.argument("who")
def hello(who: str) -> None:
    """Say hello."""
    click.echo(f"hello {who}")


def test_hook_toolscore_register_commands_adds_cli_commands(register_plugin, invoke):
    class Plugin:
        @hookimpl
        def toolscore_register_commands(self):
            return [hello, lazy_command("hello-lazy", f"{__name__}:hello", "Lazily say hello.")]

    register_plugin(Plugin())
    result = invoke("--help")
    assert "hello " in result.output and "Lazily say hello." in result.output
    assert invoke("hello", "world").output == "hello world\n"
    assert invoke("hello-lazy", "there").output == "hello there\n"
