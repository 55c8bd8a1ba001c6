"""One front door for scoring: `toolscore eval` and `regression` go through `evaluate_trace`.

Also here, because they are the contracts that front door stands on: `--metric-option`
parsing, one adapters registry per trace load (counted, not timed), the JSON-safe
conversion every record uses, and the two import cycles the kernel no longer has.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from toolscore_core import (
    InputError,
    Metric,
    MetricResult,
    ToolCall,
    Trace,
    TraceAdapter,
    hookimpl,
    to_json_safe,
)
from toolscore_core.cli.eval_cmd import parse_metric_options
from toolscore_core.kernel.traces import adapter_registry, load_trace, load_trace_file

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLE1 = FIXTURES / "eval_example1"
SRC = Path(__file__).parents[2] / "toolscore_core" / "src"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _gold(tmp_path: Path, **extra: Any) -> Path:
    expected = json.loads((EXAMPLE1 / "gold.json").read_text(encoding="utf-8"))
    return _write(tmp_path / "gold.json", {"expected": expected, **extra})


def _failed(result: Any) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


# -- the gold file's own errors name the file and the key path, through the CLI -------------
def test_a_misspelt_weight_in_the_gold_file_names_file_key_and_the_right_name(invoke: Any, tmp_path: Path) -> None:
    gold = _gold(tmp_path, weights={"selction_accuracy": 1})
    out = _failed(invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json")))
    assert str(gold) in out
    assert "$.weights.selction_accuracy" in out
    assert "(did you mean 'selection_accuracy'" in out


def test_a_bad_weight_name_fails_the_same_way_from_the_installed_command(tmp_path: Path) -> None:
    gold = _gold(tmp_path, weights={"selction_accuracy": 1})
    done = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "eval", str(gold),
                           str(EXAMPLE1 / "session_calls.json")], capture_output=True, text=True, timeout=120,
                          env={"PATH": "", "TOOLSCORE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 2, done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert "Traceback" not in said
    assert str(gold) in said and "$.weights.selction_accuracy" in said and "'selection_accuracy'" in said


def test_a_bad_mode_in_the_gold_file_names_file_and_key(invoke: Any, tmp_path: Path) -> None:
    gold = _gold(tmp_path, mode="in_ordr")
    out = _failed(invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json")))
    assert str(gold) in out
    assert "$.mode" in out
    assert "'in_ordr'" in out or "must be one of" in out
    assert "in_order" in out


def test_a_bad_mode_on_the_command_line_names_the_flag_not_the_gold_file(invoke: Any, tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    out = _failed(invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json"), "--mode", "strikt"))
    assert out.startswith("--mode: unknown order mode 'strikt'") or "--mode: unknown order mode 'strikt'" in out
    assert str(gold) not in out


def test_the_weight_flag_still_wins_over_the_gold_files_weights(invoke: Any, tmp_path: Path) -> None:
    gold = _gold(tmp_path, weights={"required_call_recall": 0.3})
    weighted = invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json"))
    assert weighted.exit_code == 0, weighted.output
    assert "Grade D   FAIL (69.2%)" in weighted.output  # the gold file's weight counts ...
    overridden = invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json"),
                        "--weight", "required_call_recall=0")
    assert overridden.exit_code == 0, overridden.output
    assert "Grade A   PASS (90.0%)" in overridden.output  # ... until the flag sets it back to 0


def test_errors_in_the_forbidden_file_name_that_file(invoke: Any, tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    rules = _write(tmp_path / "policy.txt", [{"tool": "run_shell", "reason": 7}])  # any suffix is a file
    out = _failed(invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json"), "--forbidden", str(rules)))
    assert str(rules) in out
    assert "$[0].reason" in out
    assert str(gold) not in out


def test_forbidden_rules_of_the_gold_file_and_the_flag_are_both_checked_and_listed(invoke: Any,
                                                                                   tmp_path: Path) -> None:
    gold = _gold(tmp_path, forbidden=[{"tool": "read_text_file", "reason": "no reading"}])
    rules = _write(tmp_path / "rules.json", [{"tool": "delete_file", "reason": "no deleting"}])
    report = tmp_path / "report.xml"
    result = invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json"), "--forbidden", str(rules),
                    "--report", "junit", "-o", str(report))
    assert result.exit_code == 0, result.output
    xml = report.read_text(encoding="utf-8")
    assert "forbidden rule 1: read_text_file() (no reading)" in xml
    assert "forbidden rule 2: delete_file() (no deleting)" in xml
    assert 'message="broken by call 1 read_text_file"' in xml


def test_the_evaluation_carries_the_rules_it_was_checked_against(tmp_path: Path) -> None:
    from toolscore_core.scoring.evaluation import evaluate_trace

    gold = _gold(tmp_path, forbidden=[{"tool": "read_text_file", "reason": "no reading"}])
    evaluation = evaluate_trace(gold, EXAMPLE1 / "session_calls.json",
                                forbidden=[{"tool": "delete_file", "reason": "no deleting"}])
    assert [(r.tool, r.reason) for r in evaluation.forbidden] == [
        ("read_text_file", "no reading"), ("delete_file", "no deleting")]


def test_regression_goes_through_the_same_door(invoke: Any, tmp_path: Path) -> None:
    gold = _gold(tmp_path)
    baseline = tmp_path / "baseline.json"
    saved = invoke("eval", str(gold), str(EXAMPLE1 / "session_calls.json"), "--save-baseline", str(baseline))
    assert saved.exit_code == 0, saved.output
    broken = _gold(tmp_path, mode="in_ordr")
    out = _failed(invoke("regression", str(baseline), str(EXAMPLE1 / "session_calls.json"),
                         "--gold-file", str(broken)))
    assert str(broken) in out and "$.mode" in out


# -- --metric-option NAME.KEY=VALUE ----------------------------------------------------------
def test_metric_options_parse_json_values_and_keep_plain_text() -> None:
    parsed = parse_metric_options(("cap.limit=2", "cap.label=small calls", "cap.strict=true",
                                   "cap.tools=[\"a\", \"b\"]", "judge.model=gpt-x.1", "cap.nothing=null",
                                   "cap.nan=NaN", "cap.empty="))
    assert parsed == {
        "cap": {"limit": 2, "label": "small calls", "strict": True, "tools": ["a", "b"], "nothing": None,
                "nan": "NaN", "empty": ""},
        "judge": {"model": "gpt-x.1"},
    }
    assert parse_metric_options(()) is None
    assert parse_metric_options(("cap.limit=1", "cap.limit=3")) == {"cap": {"limit": 3}}  # last one wins


@pytest.mark.parametrize("raw", ["cap", "cap=2", "cap.=2", ".limit=2", "caplimit2"])
def test_a_malformed_metric_option_is_an_input_error_with_an_example(raw: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_metric_options((raw,))
    assert "is not NAME.KEY=VALUE" in caught.value.message
    assert "--metric-option my_metric.threshold=0.8" in str(caught.value)


class CallCap(Metric):
    """1.0 while the trace has at most ``limit`` calls, then falls with each extra call."""

    name: ClassVar[str] = "call_cap"
    options: ClassVar[dict[str, Any]] = {"limit": int}

    def compute(self, context: Any) -> MetricResult:
        limit = context.options_for(self.name).get("limit", 10)
        calls = len(context.calls)
        return MetricResult(value=1.0 if calls <= limit else limit / calls, details={"limit": limit})


class CallCapPlugin:
    @hookimpl
    def toolscore_register_metrics(self) -> list[type[Metric]]:
        return [CallCap]


def test_metric_options_reach_the_metric_through_the_cli(invoke: Any, register_plugin: Any,
                                                         tmp_path: Path) -> None:
    register_plugin(CallCapPlugin())
    gold = _gold(tmp_path)
    trace = _write(tmp_path / "trace.json", [{"tool": "read_text_file", "args": {"path": f"/f{i}"}}
                                             for i in range(4)])
    plain = invoke("eval", str(gold), str(trace), "--report", "json")
    assert plain.exit_code == 0, plain.output
    assert json.loads(plain.output)["metrics"]["call_cap"]["value"] == 1.0
    capped = invoke("eval", str(gold), str(trace), "--report", "json", "--metric-option", "call_cap.limit=1")
    assert capped.exit_code == 0, capped.output
    record = json.loads(capped.output)["metrics"]["call_cap"]
    assert record["value"] == 0.25 and record["details"] == {"limit": 1}


def test_a_metric_option_for_an_unknown_metric_fails_with_exit_2(invoke: Any, register_plugin: Any,
                                                                 tmp_path: Path) -> None:
    register_plugin(CallCapPlugin())
    out = _failed(invoke("eval", str(_gold(tmp_path)), str(EXAMPLE1 / "session_calls.json"),
                         "--metric-option", "call_capp.limit=1"))
    assert "call_capp" in out and "'call_cap'" in out
    out = _failed(invoke("eval", str(_gold(tmp_path)), str(EXAMPLE1 / "session_calls.json"),
                         "--metric-option", "call_cap"))
    assert "is not NAME.KEY=VALUE" in out


# -- the adapters registry: one collect per load, cached per plugin manager -----------------
class Counting:
    """An adapter plugin that counts how often the kernel asks it to register."""

    def __init__(self) -> None:
        self.registrations = 0

    @hookimpl
    def toolscore_register_adapters(self) -> list[type[TraceAdapter]]:
        self.registrations += 1
        return [StepsAdapter]


class StepsAdapter(TraceAdapter):
    name = "steps-counted"

    def detect(self, data: Any) -> float:
        return 1.0 if isinstance(data, dict) and "steps" in data else 0.0

    def load(self, data: Any) -> Trace:
        return Trace(calls=[ToolCall(tool=step) for step in data["steps"]])


def test_reading_a_file_collects_the_adapters_once(plugin_manager: Any, register_plugin: Any,
                                                   tmp_path: Path) -> None:
    counter = register_plugin(Counting())
    # Not claimed by its first bytes, so the file is looked at by path, then by its data.
    trace = _write(tmp_path / "run.json", {"steps": ["search", "book"]})
    loaded = load_trace_file(trace, pm=plugin_manager)
    assert [c.tool for c in loaded.calls] == ["search", "book"]
    assert loaded.source_format == "steps-counted"
    assert counter.registrations == 1
    load_trace_file(trace, pm=plugin_manager)
    load_trace({"steps": ["x"]}, pm=plugin_manager)
    load_trace({"steps": ["x"]}, format="steps-counted", pm=plugin_manager)
    assert counter.registrations == 1  # cached for this manager


def test_the_cached_registry_sees_a_plugin_added_later(plugin_manager: Any, register_plugin: Any) -> None:
    counter = register_plugin(Counting())
    assert "steps-counted" in adapter_registry(plugin_manager)

    class Later(TraceAdapter):
        name = "later-format"

        def detect(self, data: Any) -> float:
            return 1.0 if data == "later" else 0.0

        def load(self, data: Any) -> Trace:
            return Trace(calls=[ToolCall(tool="later")])

    class LaterPlugin:
        @hookimpl
        def toolscore_register_adapters(self) -> list[type[TraceAdapter]]:
            return [Later]

    register_plugin(LaterPlugin())
    assert load_trace("later", pm=plugin_manager).calls[0].tool == "later"
    assert counter.registrations == 2  # collected again, once, for the new plugin
    plugin_manager.unregister(counter)
    assert "steps-counted" not in adapter_registry(plugin_manager)


def test_one_eval_run_collects_the_adapters_once(invoke: Any, register_plugin: Any, tmp_path: Path) -> None:
    counter = register_plugin(Counting())
    trace = _write(tmp_path / "run.json", {"steps": ["list_allowed_directories", "read_text_file"]})
    result = invoke("eval", str(EXAMPLE1 / "gold.json"), str(trace))
    assert result.exit_code == 0, result.output
    assert "Overall Score" in result.output
    assert counter.registrations == 1


# -- JSON-safe conversion (public: toolscore_core.to_json_safe) ------------------------------
def test_to_json_safe_makes_anything_strict_json() -> None:
    class Odd:
        def __repr__(self) -> str:
            return "<odd>"

    value = {1: (1.5, math.nan, math.inf), "obj": Odd(), "nested": [[[]]], "ok": [True, None, "x"]}
    safe = to_json_safe(value)
    assert safe == {"1": [1.5, "nan", "inf"], "obj": "<odd>", "nested": [[[]]], "ok": [True, None, "x"]}
    json.dumps(safe, allow_nan=False)  # raises on NaN or a non-JSON type


def test_to_json_safe_bounds_strings_lists_dicts_and_depth() -> None:
    safe = to_json_safe({"text": "a" * 30, "items": list(range(7)), "keys": {f"k{i}": i for i in range(4)}},
                        max_string=10, max_items=3)
    assert safe["text"] == "aaaaaaaaaa… (30 characters)"
    assert safe["items"] == [0, 1, 2, "… 4 more item(s)"]
    assert safe["keys"] == {"k0": 0, "k1": 1, "k2": 2, "…": "1 more key(s)"}
    deep: Any = "bottom"
    for _ in range(40):
        deep = [deep]
    flat = json.dumps(to_json_safe(deep), ensure_ascii=False)
    assert "bottom" not in flat and "…" in flat


def test_to_json_safe_redacts_before_cutting_unless_told_not_to() -> None:
    value = {"body": f"key={AWS_KEY} and more text", AWS_KEY: 1}
    safe = to_json_safe(value, max_string=12)
    # Redacted first, then cut: the preview survives, no head of the raw key does.
    assert safe == {"body": "key=AKIA…LE … (38 characters)", "AKIA…LE": 1}
    kept = to_json_safe(value, max_string=12, redact=False)
    assert kept == {"body": "key=AKIAIOSF… (38 characters)", AWS_KEY: 1}


def test_scoring_still_finds_the_old_names() -> None:
    from toolscore_core.kernel import jsonsafe
    from toolscore_core.scoring import behaviour

    assert behaviour.bounded is jsonsafe.bounded
    assert (behaviour.MAX_STRING, behaviour.MAX_ITEMS) == (jsonsafe.MAX_STRING, jsonsafe.MAX_ITEMS)
    assert behaviour.bounded(["x" * 600]) == to_json_safe(["x" * 600])


# -- the two import cycles that were cut --------------------------------------------------------
def _imports(module: str, *, every: bool) -> set[str]:
    """toolscore_core modules ``module`` imports: at module level, or (``every``) anywhere."""
    parts = module.split(".")
    path = SRC.joinpath(*parts).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.ImportFrom) and child.module and (every or not inner):
                found.add(child.module)
                found.update(f"{child.module}.{a.name}" for a in child.names)
            elif isinstance(child, ast.Import) and (every or not inner):
                found.update(a.name for a in child.names)
            visit(child, inner)

    visit(tree, False)
    return {name for name in found if name.startswith("toolscore_core.")
            and SRC.joinpath(*name.split(".")).with_suffix(".py").is_file()}


def _reaches(start: str, goal: str, *, every: bool) -> bool:
    seen: set[str] = set()
    todo = [start]
    while todo:
        module = todo.pop()
        for target in _imports(module, every=every) - seen:
            if target == goal:
                return True
            seen.add(target)
            todo.append(target)
    return False


def test_the_json_safe_conversion_depends_on_neither_the_model_nor_scoring_at_import() -> None:
    assert _imports("toolscore_core.kernel.jsonsafe", every=False) == set()
    for module in ("toolscore_core.scoring.behaviour", "toolscore_core.scoring.evaluation_dict"):
        assert "toolscore_core.kernel.jsonsafe" in _imports(module, every=False)
    assert "toolscore_core.scoring.behaviour" not in _imports("toolscore_core.scoring.evaluation_dict", every=True)
    # model -> evaluation_dict -> behaviour -> model is gone, at any level.
    assert not _reaches("toolscore_core.scoring.behaviour", "toolscore_core.scoring.behaviour", every=True)
    assert not _reaches("toolscore_core.kernel.model", "toolscore_core.kernel.model", every=False)


def test_reports_take_the_pass_bar_from_verdict_not_from_assertions() -> None:
    from toolscore_core.scoring import assertions, verdict

    assert assertions.below_bar is verdict.below_bar  # still importable where it was
    assert _imports("toolscore_core.scoring.verdict", every=True) == set()
    reports = sorted(p.stem for p in (SRC / "toolscore_core" / "reports").glob("*.py") if p.stem != "__init__")
    for name in reports:
        module = f"toolscore_core.reports.{name}"
        assert not _reaches(module, "toolscore_core.scoring.assertions", every=True), module
    assert not _reaches("toolscore_core.scoring.assertions", "toolscore_core.scoring.assertions", every=True)


@pytest.mark.parametrize(("score", "bar", "below"), [(0.8999999999999999, 0.9, False), (0.8994, 0.9, True),
                                                     (0.0, None, False), (1.0, 1.0, False)])
def test_the_pass_bar_is_judged_on_the_displayed_score(score: float, bar: float | None, below: bool) -> None:
    from toolscore_core.scoring.verdict import below_bar

    assert below_bar(score, bar) is below
