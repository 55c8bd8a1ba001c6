"""The one step of the Toolscore GitHub Action (action.yml): check inputs, run the CLI, report.

Why a script and not shell in action.yml: the inputs need checking (one mode, files that
exist, a threshold that is a number) with a clear ``::error::`` line instead of a confusing
failure three commands later, and the outputs come from the CLI's JSON report. Here that is
plain Python a test can run the way GitHub does: ``INPUT_*`` variables in, ``name=value``
lines appended to ``$GITHUB_OUTPUT``, Markdown appended to ``$GITHUB_STEP_SUMMARY``.

All scoring is the real ``toolscore`` CLI (``toolscore eval ... --report json`` or
``toolscore mcp test CMD --ci --report json``); this script only chooses its arguments and
reads its report. Exit codes are the CLI's: 0 pass, 1 the check failed, 2 bad input.

Standard library only: it runs with whatever Python the workflow has.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

GRADES = "ABCDF"
TRUE_WORDS = frozenset({"true", "yes", "1", "on"})
FALSE_WORDS = frozenset({"false", "no", "0", "off", ""})


class InputProblem(Exception):
    """A workflow input is wrong: reported as ``::error::`` and exit code 2, never a traceback."""


def read_input(env: Mapping[str, str], name: str) -> str:
    """``gold-file`` -> ``$INPUT_GOLD_FILE``: the names action.yml passes its inputs under."""
    return env.get("INPUT_" + name.upper().replace("-", "_"), "").strip()


def read_bool(env: Mapping[str, str], name: str) -> bool:
    text = read_input(env, name).lower()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise InputProblem(f"input {name}: {read_input(env, name)!r} is not 'true' or 'false'")


@dataclass
class Plan:
    """What to run, decided from the inputs before anything runs."""

    mode: str  # "eval" or "mcp"
    cwd: Path
    args: list[str] = field(default_factory=list)
    threshold: float | None = None
    fail_on_violations: bool = False
    fail_under: str | None = None


def _existing_file(env: Mapping[str, str], name: str, cwd: Path) -> str:
    value = read_input(env, name)
    if not (cwd / value).is_file():
        raise InputProblem(f"input {name}: file {value!r} not found (relative to {cwd})")
    return value


def plan(env: Mapping[str, str]) -> Plan:
    """Check the inputs and choose the mode; raises InputProblem naming the input to fix."""
    cwd = Path(read_input(env, "working-directory") or ".")
    if not cwd.is_dir():
        raise InputProblem(f"input working-directory: {str(cwd)!r} is not a directory")
    eval_inputs = [n for n in ("gold-file", "trace-file", "threshold", "forbidden-file") if read_input(env, n)]
    if read_bool(env, "fail-on-violations"):
        eval_inputs.append("fail-on-violations")
    mcp_inputs = [n for n in ("mcp-command", "mcp-fail-under") if read_input(env, n)]
    if eval_inputs and mcp_inputs:
        raise InputProblem(f"choose one mode: {', '.join(eval_inputs)} score a trace, {', '.join(mcp_inputs)} "
                           "grade an MCP server; use two steps for both")
    if mcp_inputs:
        return _plan_mcp(env, cwd)
    if eval_inputs:
        return _plan_eval(env, cwd)
    raise InputProblem("no mode chosen: give gold-file and trace-file (score a trace, optionally with "
                       "threshold, forbidden-file, fail-on-violations) or mcp-command (grade an MCP server)")


def _plan_eval(env: Mapping[str, str], cwd: Path) -> Plan:
    for name in ("gold-file", "trace-file"):
        if not read_input(env, name):
            raise InputProblem(f"input {name} is required to score a trace (gold-file and trace-file go together)")
    gold = _existing_file(env, "gold-file", cwd)
    trace = _existing_file(env, "trace-file", cwd)
    result = Plan("eval", cwd, ["eval", gold, trace])
    threshold_text = read_input(env, "threshold")
    if threshold_text:
        try:
            threshold = float(threshold_text)
        except ValueError:
            raise InputProblem(f"input threshold: {threshold_text!r} is not a number (write 0.90 for 90%)") from None
        if not 0.0 <= threshold <= 1.0:
            raise InputProblem(f"input threshold: {threshold_text} is outside 0..1 (write 0.90 for 90%)")
        result.threshold = threshold
        result.args += ["--min-score", threshold_text]
    if read_input(env, "forbidden-file"):
        result.args += ["--forbidden", _existing_file(env, "forbidden-file", cwd)]
    result.fail_on_violations = read_bool(env, "fail-on-violations")
    if result.fail_on_violations:
        result.args.append("--fail-on-violations")
    return result


def _plan_mcp(env: Mapping[str, str], cwd: Path) -> Plan:
    command = read_input(env, "mcp-command")
    if not command:
        raise InputProblem("input mcp-command is required to grade an MCP server "
                           "(a command that starts a stdio server, or an http(s):// URL)")
    result = Plan("mcp", cwd, ["mcp", "test", command, "--ci"])
    grade = read_input(env, "mcp-fail-under").upper()
    if grade:
        if len(grade) != 1 or grade not in GRADES:
            raise InputProblem(f"input mcp-fail-under: {read_input(env, 'mcp-fail-under')!r} is not a grade A-F")
        result.fail_under = grade
        result.args += ["--fail-under", grade]
    return result


def toolscore_command() -> list[str]:
    """The installed CLI: ``toolscore`` on PATH, else this Python's copy of it."""
    found = shutil.which("toolscore")
    if found:
        return [found]
    try:
        import toolscore_core  # noqa: F401
    except ImportError:
        raise InputProblem("toolscore is not installed: keep the action's install input 'true' "
                           "or pip install toolscore in an earlier step") from None
    return [sys.executable, "-m", "toolscore_core.cli"]


def _cell(value: object) -> str:
    """Markdown table cell text: no pipes or raw HTML from tool names and messages."""
    return str(value).replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


def eval_outputs(report: dict) -> dict[str, str]:
    secrets = report.get("metrics", {}).get("security_metrics", {}).get("secret_count", 0)
    violations = len(report.get("policy_violations") or []) + int(secrets or 0)
    recall = report.get("required_call_recall")
    return {"score": f"{report['score']:.4g}", "grade": str(report["grade"]),
            "required-call-recall": "" if recall is None else f"{recall:.4g}", "violations": str(violations)}


def mcp_outputs(report: dict) -> dict[str, str]:
    return {"score": f"{report['score']:.4g}", "grade": str(report["grade"]), "required-call-recall": "",
            "violations": str(len(report.get("blocking") or []))}


def eval_summary(report: dict, outputs: dict[str, str], plan_: Plan, passed: bool) -> str:
    """The job summary for a trace: verdict, the figures, and what to fix first."""
    mark = "✅" if passed else "❌"
    calls = report.get("required_calls") or {}
    lines = [f"## {mark} Toolscore: Grade {report['grade']} · {report.get('verdict', '')} "
             f"({report.get('score_percent', round(report['score'] * 100, 1))}%)", "",
             "| | |", "| --- | --- |",
             f"| Score | {report['score']:.1%} |", f"| Grade | {report['grade']} |"]
    if plan_.threshold is not None:
        lines.append(f"| Threshold | {plan_.threshold:.1%} |")
    if calls:
        lines.append(f"| Required calls completed | {calls.get('completed')} of {calls.get('required')} |")
    lines.append(f"| Violations (forbidden calls, credentials) | {outputs['violations']} |")
    issues = report.get("top_issues") or []
    if issues:
        lines += ["", "### Top issues to fix", ""]
        lines += [f"- **`{_cell(i.get('tool'))}`** — {_cell(i.get('problem'))}. _Fix:_ {_cell(i.get('fix'))}"
                  for i in issues[:5]]
    return "\n".join(lines) + "\n"


def failure_reason(mode: str, report: dict, plan_: Plan, outputs: dict[str, str]) -> str:
    if mode == "mcp":
        grade = report["grade"]
        parts = [f"grade {grade} is below {plan_.fail_under}"] if plan_.fail_under and GRADES.index(
            grade) > GRADES.index(plan_.fail_under) else []
        if outputs["violations"] != "0":
            parts.append(f"{outputs['violations']} blocking issue(s)")
        return "MCP server check failed: " + ("; ".join(parts) or "see the log")
    parts = []
    if plan_.threshold is not None and report["score"] < plan_.threshold:
        parts.append(f"score {report['score']:.1%} is below the threshold {plan_.threshold:.1%}")
    if plan_.fail_on_violations and outputs["violations"] != "0":
        parts.append(f"{outputs['violations']} forbidden call(s) or credential(s) found")
    return "Toolscore check failed: " + ("; ".join(parts) or "see the log")


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def run(env: Mapping[str, str]) -> int:
    try:
        plan_ = plan(env)
        command = toolscore_command()
    except InputProblem as problem:
        print(f"::error title=Toolscore input::{problem}", flush=True)
        _append(env.get("GITHUB_STEP_SUMMARY"), f"## ❌ Toolscore: bad input\n\n{problem}\n")
        return 2
    report_dir = Path(env.get("RUNNER_TEMP") or tempfile.gettempdir())
    report_path = Path(tempfile.mkstemp(prefix="toolscore-", suffix=".json", dir=report_dir)[1])
    args = [*command, *plan_.args, "--report", "json", "-o", str(report_path)]
    print(f"::group::{' '.join(['toolscore', *plan_.args])}", flush=True)
    code = subprocess.run(args, cwd=plan_.cwd, env=dict(env), check=False).returncode
    print("::endgroup::", flush=True)
    if code not in (0, 1) or report_path.stat().st_size == 0:
        print(f"::error title=Toolscore::toolscore {plan_.mode} stopped with exit code {code} "
              "(bad input or a server that did not start: see the log above)", flush=True)
        return code if code else 2
    report = json.loads(report_path.read_text(encoding="utf-8"))
    outputs = eval_outputs(report) if plan_.mode == "eval" else mcp_outputs(report)
    outputs["passed"] = "true" if code == 0 else "false"
    outputs["report-file"] = str(report_path)
    _append(env.get("GITHUB_OUTPUT"), "".join(f"{k}={v}\n" for k, v in outputs.items()))
    if plan_.mode == "eval":  # `mcp test --ci` writes its own verdict and scorecard to the summary
        _append(env.get("GITHUB_STEP_SUMMARY"), eval_summary(report, outputs, plan_, code == 0))
    if code == 1:
        print(f"::error title=Toolscore::{failure_reason(plan_.mode, report, plan_, outputs)}", flush=True)
    return code


def main() -> int:
    return run(os.environ)


if __name__ == "__main__":
    raise SystemExit(main())
