"""The GitHub Action, run the way GitHub runs it: action.yml's step, INPUT_* in, files out.

The test reads action.yml, renders the ``Run Toolscore`` step's ``env`` from the given inputs
and the declared defaults (``${{ inputs.x }}``), and runs its ``run`` line with bash, with
``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY`` and ``GITHUB_ACTION_PATH`` set as on a runner.
Everything below it is real: the script, the installed ``toolscore`` CLI, the example traces
in examples/guardrails, the bundled sample MCP server and a tidy server of ours.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
GUARDRAILS = ROOT / "examples" / "guardrails"
TIDY_SERVER = Path(__file__).parent / "servers" / "tidy_server.py"
SAMPLE_SERVER = f"{sys.executable} -m toolscore_mcp.sample_server"
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")
SEED_INPUTS = {"gold-file", "trace-file", "threshold", "forbidden-file", "fail-on-violations", "mcp-command",
               "mcp-fail-under"}
SEED_OUTPUTS = {"score", "grade", "required-call-recall", "violations"}


def action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def step(step_id: str) -> dict:
    return next(s for s in action()["runs"]["steps"] if s.get("id") == step_id)


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


def run_action(tmp_path: Path, **inputs: str) -> Ran:
    """Run the action's script step as GitHub would, with ``inputs`` (underscores for hyphens)."""
    declared = action()["inputs"]
    given = {k.replace("_", "-"): v for k, v in inputs.items()}
    assert set(given) <= set(declared), f"not inputs of the action: {set(given) - set(declared)}"
    values = {name: given.get(name, spec.get("default", "")) for name, spec in declared.items()}
    script_step = step("toolscore")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "TOOLSCORE_"))}
    for key, template in script_step["env"].items():
        rendered = EXPRESSION.sub(lambda m: str(values[m.group(1)]), str(template))
        assert "${{" not in rendered, f"{key}: an expression this test cannot render: {template}"
        env[key] = rendered
    out, summary = tmp_path / "github_output", tmp_path / "step_summary"
    out.write_text(""), summary.write_text("")
    env.update(GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary), GITHUB_ACTION_PATH=str(ROOT),
               RUNNER_TEMP=str(tmp_path), GITHUB_WORKSPACE=str(ROOT),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)]))
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script_step["run"]],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if line)
    return Ran(result.returncode, result.stdout, result.stderr, outputs, summary.read_text(encoding="utf-8"))


def test_action_is_composite_and_declares_the_seed_inputs_and_outputs() -> None:
    data = action()
    assert data["runs"]["using"] == "composite"
    assert set(data["inputs"]) >= SEED_INPUTS
    assert set(data["outputs"]) >= SEED_OUTPUTS
    for name, spec in data["outputs"].items():
        assert spec["value"] == f"${{{{ steps.toolscore.outputs.{name} }}}}", name
    script_env = step("toolscore")["env"]
    passed = {m.group(1) for v in script_env.values() for m in EXPRESSION.finditer(str(v))}
    for key, value in script_env.items():
        name = EXPRESSION.search(str(value))
        assert name and key == "INPUT_" + name.group(1).upper().replace("-", "_"), key
    install = step("install")
    used = passed | {m.group(1) for v in install["env"].values() for m in EXPRESSION.finditer(str(v))}
    used |= {"python-version", "install"}  # the steps' `if:` conditions
    assert used == set(data["inputs"]), f"declared but never used: {set(data['inputs']) - used}"
    assert "inputs.install == 'true'" in install["if"]
    assert "scripts/action_run.py" in step("toolscore")["run"]
    assert (ROOT / "scripts" / "action_run.py").is_file()


def test_gold_mode_passes_above_the_threshold_and_writes_outputs_and_summary(tmp_path: Path) -> None:
    ran = run_action(tmp_path, working_directory=str(GUARDRAILS), gold_file="gold.json", trace_file="trace.json",
                     threshold="0.50")
    assert ran.code == 0, ran.stdout + ran.stderr
    assert ran.outputs["score"] == "0.74" and ran.outputs["grade"] == "C"
    assert ran.outputs["required-call-recall"] == "0.5"
    assert ran.outputs["violations"] == "1"  # the AWS key in http_post; no policy file here
    assert ran.outputs["passed"] == "true"
    assert Path(ran.outputs["report-file"]).is_file()
    assert "## ✅ Toolscore: Grade C" in ran.summary
    assert "| Threshold | 50.0% |" in ran.summary and "| Required calls completed | 1 of 2 |" in ran.summary
    assert "Overall Score" in ran.stdout, "the console report is in the log"


def test_gold_mode_fails_below_the_threshold_with_an_error_annotation(tmp_path: Path) -> None:
    ran = run_action(tmp_path, gold_file="examples/guardrails/gold.json",
                     trace_file="examples/guardrails/trace.json", threshold="0.90")
    assert ran.code == 1, ran.stdout + ran.stderr
    assert ran.outputs["passed"] == "false" and ran.outputs["grade"] == "C"
    assert "::error title=Toolscore::Toolscore check failed: score 74.0% is below the threshold 90.0%" in ran.stdout
    assert "## ❌ Toolscore" in ran.summary


def test_safety_gate_fails_on_forbidden_calls_and_credentials(tmp_path: Path) -> None:
    ran = run_action(tmp_path, working_directory=str(GUARDRAILS), gold_file="gold.json", trace_file="trace.json",
                     forbidden_file="forbidden.json", fail_on_violations="true")
    assert ran.code == 1, ran.stdout + ran.stderr
    assert ran.outputs["violations"] == "2"
    assert "2 forbidden call(s) or credential(s) found" in ran.stdout
    assert "run_shell" in ran.summary and "| Violations (forbidden calls, credentials) | 2 |" in ran.summary


def test_safety_gate_without_fail_on_violations_reports_but_passes(tmp_path: Path) -> None:
    ran = run_action(tmp_path, working_directory=str(GUARDRAILS), gold_file="gold.json", trace_file="trace.json",
                     forbidden_file="forbidden.json")
    assert ran.code == 0, ran.stdout + ran.stderr
    assert ran.outputs["violations"] == "2" and ran.outputs["passed"] == "true"


def test_mcp_mode_fails_the_bundled_sample_server_under_b(tmp_path: Path) -> None:
    ran = run_action(tmp_path, mcp_command=SAMPLE_SERVER, mcp_fail_under="B")
    assert ran.code == 1, ran.stdout + ran.stderr
    assert ran.outputs["grade"] == "C" and ran.outputs["passed"] == "false"
    assert ran.outputs["violations"] == "2", "the sample server's two blocking defects"
    assert ran.outputs["required-call-recall"] == ""
    assert "grade C is below B" in ran.stdout and "::error" in ran.stdout
    assert "MCP server check failed" in ran.summary and "notes-server" in ran.summary


def test_mcp_mode_passes_a_tidy_server(tmp_path: Path) -> None:
    ran = run_action(tmp_path, mcp_command=f"{sys.executable} {TIDY_SERVER}", mcp_fail_under="b")
    assert ran.code == 0, ran.stdout + ran.stderr
    assert ran.outputs["grade"] == "A" and ran.outputs["violations"] == "0" and ran.outputs["passed"] == "true"
    assert float(ran.outputs["score"]) >= 0.9
    assert "tidy-weather" in ran.summary


@pytest.mark.parametrize(("inputs", "message"), [
    ({}, "no mode chosen"),
    ({"gold_file": "examples/guardrails/gold.json", "trace_file": "examples/guardrails/trace.json",
      "mcp_command": "python server.py"}, "choose one mode"),
    ({"gold_file": "examples/guardrails/gold.json"}, "input trace-file is required"),
    ({"gold_file": "examples/guardrails/gold.json", "trace_file": "missing.json"},
     "input trace-file: file 'missing.json' not found"),
    ({"gold_file": "examples/guardrails/gold.json", "trace_file": "examples/guardrails/trace.json",
      "threshold": "abc"}, "input threshold: 'abc' is not a number"),
    ({"gold_file": "examples/guardrails/gold.json", "trace_file": "examples/guardrails/trace.json",
      "threshold": "90"}, "outside 0..1"),
    ({"gold_file": "examples/guardrails/gold.json", "trace_file": "examples/guardrails/trace.json",
      "fail_on_violations": "maybe"}, "input fail-on-violations: 'maybe' is not 'true' or 'false'"),
    ({"mcp_command": "python server.py", "mcp_fail_under": "Z"}, "input mcp-fail-under: 'Z' is not a grade A-F"),
    ({"working_directory": "no/such/dir", "mcp_command": "python server.py"}, "is not a directory"),
])
def test_bad_inputs_give_an_error_annotation_and_exit_2(tmp_path: Path, inputs: dict[str, str], message: str) -> None:
    ran = run_action(tmp_path, **inputs)
    assert ran.code == 2, ran.stdout + ran.stderr
    errors = [line for line in ran.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and message in errors[0], ran.stdout
    assert "Traceback" not in ran.stdout + ran.stderr
    assert ran.outputs == {}
    assert "bad input" in ran.summary


def test_a_trace_the_cli_refuses_exits_2_with_its_message(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    ran = run_action(tmp_path, gold_file=str(GUARDRAILS / "gold.json"), trace_file=str(broken))
    assert ran.code == 2, ran.stdout + ran.stderr
    assert "broken.json" in ran.stderr, "the CLI's own message names the file"
    assert "::error title=Toolscore::toolscore eval stopped with exit code 2" in ran.stdout
    assert "Traceback" not in ran.stdout + ran.stderr and ran.outputs == {}
