"""A guard's ``$regex`` runs with eval's time budget, and a rule too slow to check ends
the run as ``error`` naming the rule; the study goes on with its other runs.

The guard's deny rules go through the kernel's ``rule_matches`` (the ``regex`` engine with
a timeout). Before this, a timeout in a guard rule was swallowed by ``decide`` as a deny,
so the model was graded as if it had asked for a forbidden call ("fail" for the study's
own mistake). A real scripted study against the sample server, nothing mocked.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
import yaml

from toolscore_agent.spec import load_agent_spec
from toolscore_agent.study import run_study
from toolscore_core import GuardContext, ToolCall, decide, read_runs
from toolscore_core.kernel.guards import GuardRuleError

# (a|aa)+ on a run of 200 "a" without the ";" it wants: exponential backtracking, even on `regex`.
SLOW = r"(a|aa)+;"


def _spec(tmp_path: Path) -> Path:
    spec = {
        "spec_version": 1, "name": "slow-guard",
        "server": {"command": f"{sys.executable} -m toolscore_mcp.sample_server", "timeout": 30},
        "provider": "scripted", "arms": [{"id": "a"}], "repetitions": 1, "seed": 1,
        "guard": {"deny": [
            {"tool": "delete_note", "reason": "never delete"},
            {"tool": "create_note", "args": {"body": {"$regex": SLOW}}, "reason": "no semicolons"},
        ]},
        "tasks": [
            {"id": "long-body", "prompt": "Save a long note.", "expected": [{"tool": "create_note"}],
             "script": {"a": [{"calls": [{"tool": "create_note", "args": {"title": "t", "body": "a" * 200}}]},
                              {"text": "Saved."}]}},
            {"id": "list", "prompt": "List the notes.", "expected": [{"tool": "list_notes"}],
             "script": {"a": [{"calls": [{"tool": "list_notes", "args": {}}]}, {"text": "No notes."}]}},
        ],
    }
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def test_a_catastrophic_guard_regex_ends_its_run_as_error_naming_the_rule(tmp_path: Path) -> None:
    path = _spec(tmp_path)
    out = tmp_path / "runs.jsonl"
    started = time.monotonic()
    run_study(load_agent_spec(path), out)
    assert time.monotonic() - started < 30  # bounded by the 1 s budget, not by the backtracking
    rows = {row.task_id: row for row in read_runs(out)}
    slow = rows["long-body"]
    assert (slow.status, slow.outcome) == ("error", "error")
    assert slow.error is not None
    for part in ("guard deny rule 2", "tool create_note", SLOW, "took more than", "study.yaml",
                 "$.guard.deny[1].args.body"):
        assert part in slow.error, part
    # the call was neither run nor counted as a denial: the model is not blamed
    assert [c.tool for c in slow.calls] == ["create_note"]
    assert not slow.calls[0].denied and slow.guard_denials == ()
    # the study went on: the next run completed and passed
    assert (rows["list"].status, rows["list"].outcome) == ("completed", "pass")


def test_decide_lets_a_guard_rule_error_through_and_still_fails_closed_on_others() -> None:
    def broken_rule(call: ToolCall) -> None:
        raise GuardRuleError("rule 1 could not be checked")

    def broken(call: ToolCall) -> None:
        raise KeyError("x")

    with pytest.raises(GuardRuleError, match="rule 1"):
        decide(broken_rule, ToolCall(tool="a"), GuardContext())
    assert decide(broken, ToolCall(tool="a"), GuardContext()).allowed is False
