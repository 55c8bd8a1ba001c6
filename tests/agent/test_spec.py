"""Reading study specs: the shipped examples, inheritance, pricing, guards, scripts, and bad
specs, each an InputError naming the file, the key path and the fix (never a traceback)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent.model import AgentSpec
from toolscore_agent.spec import load_agent_spec
from toolscore_agent.study import plan_cells
from toolscore_core import InputError, Price, ToolCall, rule_matches

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "agent_harness"


def base() -> dict[str, Any]:
    """A small valid spec: one scripted arm, one task with a script."""
    return {
        "spec_version": 1,
        "name": "s",
        "server": {"command": "python -m toolscore_mcp.sample_server"},
        "provider": "scripted",
        "arms": [{"id": "a"}],
        "tasks": [{"id": "t", "prompt": "Save a note.", "expected": [{"tool": "create_note"}],
                   "script": [{"calls": [{"tool": "create_note", "args": {"title": "x"}}]}, {"text": "Saved."}]}],
    }


def write(tmp_path: Path, data: dict[str, Any], name: str = "study.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- the shipped examples ------------------------------------------------------------------------


def test_the_offline_example_loads_as_twelve_runs_in_the_documented_order() -> None:
    spec = load_agent_spec(EXAMPLES / "offline.yaml")
    assert spec.name == "notes-offline" and spec.seed == 7 and spec.repetitions == 3
    assert spec.run_count == 12
    assert [a.id for a in spec.arms] == ["careful", "sloppy"]
    assert {a.provider for a in spec.arms} == {"scripted"} and {a.model for a in spec.arms} == {"scripted"}
    assert spec.limits.max_turns == 6
    assert [c.cell_id for c in plan_cells(spec)][:3] == [
        "clean-up::careful::2", "clean-up::sloppy::3", "save-a-note::sloppy::1"]
    assert spec.guard.deny[0].tool == "delete_note"
    for task in spec.tasks:
        for arm in spec.arms:
            assert task.script_for(arm.id), (task.id, arm.id)
    assert spec.source == str(EXAMPLES / "offline.yaml")


def test_the_paid_example_names_the_pinned_memory_server_and_its_budget() -> None:
    spec = load_agent_spec(EXAMPLES / "memory-anthropic.yaml")
    pinned = json.loads((ROOT / "tests" / "servers" / "package.json").read_text())["dependencies"][
        "@modelcontextprotocol/server-memory"]
    assert isinstance(spec.server.command, str) and f"server-memory@{pinned}" in spec.server.command
    assert spec.server.env == {"MEMORY_FILE_PATH": "{run_dir}/memory.jsonl"}
    assert spec.verify is not None and pinned in (spec.verify.command or "")
    assert spec.verify.server_name == "memory-server"
    assert [(a.id, a.provider, a.model) for a in spec.arms] == [
        ("haiku", "anthropic", "claude-haiku-5-5"), ("sonnet", "anthropic", "claude-sonnet-5-5")]
    assert all(a.max_output_tokens == 1024 and a.api_key_env == "ANTHROPIC_API_KEY" for a in spec.arms)
    assert spec.budget.max_usd == 2.0 and spec.run_count == 10
    assert spec.limits.max_turns == 8 and spec.limits.max_calls == 12
    assert spec.guard.allow_tools == ("*",)
    assert spec.tasks[0].contract.min_score == 0.9 and spec.tasks[0].require_completed


def test_the_local_example_is_openai_chat_on_ollama_and_free() -> None:
    spec = load_agent_spec(EXAMPLES / "local-openai-compatible.yaml")
    assert {a.provider for a in spec.arms} == {"openai-chat"}
    assert {a.base_url for a in spec.arms} == {"http://127.0.0.1:11434/v1"}
    assert all(a.price is not None and a.price.input_per_million == 0 and a.price.output_per_million == 0
               for a in spec.arms)
    assert all(a.extra == {"temperature": 0} for a in spec.arms)


# --- what a spec means ---------------------------------------------------------------------------


def test_arms_inherit_the_top_level_and_merge_extra() -> None:
    data = base()
    data.update(provider="anthropic", model="claude-haiku-5-5", system="Be brief.", max_output_tokens=512,
                extra={"temperature": 0, "top_k": 5}, api_key_env="MY_KEY")
    data["arms"] = [{"id": "plain"},
                    {"id": "own", "model": "claude-sonnet-5-5", "system": "Be thorough.", "extra": {"top_k": 1}}]
    spec = load_agent_spec(data)
    plain, own = spec.arms
    assert (plain.provider, plain.model, plain.system, plain.max_output_tokens) == (
        "anthropic", "claude-haiku-5-5", "Be brief.", 512)
    assert (own.model, own.system, own.max_output_tokens) == ("claude-sonnet-5-5", "Be thorough.", 512)
    assert plain.extra == {"temperature": 0, "top_k": 5} and own.extra == {"temperature": 0, "top_k": 1}
    assert own.api_key_env == "MY_KEY" and spec.source is None


def test_pricing_is_one_price_or_a_mapping_by_model() -> None:
    data = base()
    data.update(provider="openai", model="m1",
                pricing={"m1": {"input_per_million": 1, "output_per_million": 2}, "M2": [3, 4, "sheet"]})
    data["arms"] = [{"id": "one"}, {"id": "two", "model": "vendor/m2"},
                    {"id": "three", "model": "gpt-4o", "pricing": [0.5, 1.5]}]
    spec = load_agent_spec(data)
    one, two, three = spec.arms
    assert one.price == Price(1, 2, "pricing in the spec")
    assert two.price == Price(3, 4, "sheet")  # case and a vendor/ prefix ignored
    assert three.price == Price(0.5, 1.5, "pricing in the spec")


def test_a_by_model_pricing_entry_for_no_arm_is_a_typo() -> None:
    data = base()
    data.update(provider="openai", model="gpt-4o", pricing={"gpt-4o-mnii": [1, 2]})
    with pytest.raises(InputError) as caught:
        load_agent_spec(data)
    assert caught.value.location == '$.pricing["gpt-4o-mnii"]'
    assert "no arm" in caught.value.message


def test_a_spec_without_arms_has_one_arm_named_after_its_model() -> None:
    data = base()
    del data["arms"]
    data.update(provider="openai", model="gpt-4o-mini")
    for task in data["tasks"]:
        task.pop("script")
    spec = load_agent_spec(data)
    assert [(a.id, a.model) for a in spec.arms] == [("gpt-4o-mini", "gpt-4o-mini")]


def test_allow_tools_at_the_top_or_under_guard_is_one_list() -> None:
    data = base()
    data["allow_tools"] = ["create_*", "list_*"]
    assert load_agent_spec(data).guard.allow_tools == ("create_*", "list_*")
    data["guard"] = {"allow_tools": ["list_*", "create_*"]}  # the same patterns: fine
    assert set(load_agent_spec(data).guard.allow_tools or ()) == {"create_*", "list_*"}
    data["guard"] = {"allow_tools": ["*"]}
    with pytest.raises(InputError) as caught:
        load_agent_spec(data)
    assert caught.value.location == "$.guard.allow_tools" and "differs" in caught.value.message


def test_guard_deny_rules_read_matchers_the_way_scoring_does() -> None:
    data = base()
    data["guard"] = {"deny": [{"tool": "create_note", "args": {"title": {"$regex": "secret"}}, "reason": "no"},
                              {"tool": "delete_note", "args": {"note_id": {"$one_of": ["n1", "n2"]}}},
                              {"args": {"body": {"$contains": "rm -rf"}}}],
                     "python": "my_guards:check"}
    spec = load_agent_spec(data)
    first, second, third = spec.guard.deny
    assert rule_matches(first, ToolCall(tool="create_note", args={"title": "my secret plan"}))
    assert not rule_matches(first, ToolCall(tool="create_note", args={"title": "groceries"}))
    assert rule_matches(second, ToolCall(tool="delete_note", args={"note_id": "n2"}))
    assert not rule_matches(second, ToolCall(tool="delete_note", args={"note_id": "n3"}))
    assert rule_matches(third, ToolCall(tool="anything", args={"body": "please rm -rf /"}))
    assert spec.guard.python == ("my_guards:check",)


def test_a_task_reads_the_contract_format() -> None:
    data = base()
    data["tasks"][0].update(expected=[{"tool": "create_note", "args": {"title": {"$regex": "gro.*"}}}],
                            forbidden=[{"tool": "delete_note", "reason": "never"}], min_score=0.8,
                            require_completed=False, weights={"tool_selection": 2}, mode="subset")
    task = load_agent_spec(data).tasks[0]
    assert task.contract.expected[0].tool == "create_note"
    assert task.contract.forbidden[0].reason == "never"
    assert (task.contract.min_score, task.contract.mode, task.require_completed) == (0.8, "subset", False)
    assert task.contract.weights == {"tool_selection": 2}
    assert task.declares_expectations


def test_a_script_may_be_a_mapping_by_arm() -> None:
    data = base()
    data["arms"] = [{"id": "a"}, {"id": "b"}]
    data["tasks"][0]["script"] = {"a": [{"text": "A"}], "b": [{"calls": [{"tool": "list_notes"}]}, {"text": "B"}]}
    task = load_agent_spec(data).tasks[0]
    a, b = task.script_for("a"), task.script_for("b")
    assert a is not None and a[0].text == "A"
    assert b is not None and b[0].calls == ({"tool": "list_notes", "args": {}},) and b[1].text == "B"


def test_yaml_and_json_files_read_the_same(tmp_path: Path) -> None:
    from ruamel.yaml import YAML

    yaml_path = tmp_path / "study.yaml"
    with yaml_path.open("w", encoding="utf-8") as handle:
        YAML(typ="safe", pure=True).dump(base(), handle)
    from_yaml = load_agent_spec(yaml_path)
    from_json = load_agent_spec(write(tmp_path, base()))
    assert isinstance(from_yaml, AgentSpec)
    assert from_yaml.arms == from_json.arms
    assert [(t.id, t.contract.expected, t.default_script) for t in from_yaml.tasks] == [
        (t.id, t.contract.expected, t.default_script) for t in from_json.tasks]
    assert from_yaml.tasks[0].contract.source == str(yaml_path)


def test_a_provider_registered_by_a_plugin_is_accepted(plugin_manager: Any, register_plugin: Any) -> None:
    from toolscore_core import Provider, hookimpl

    class Echo(Provider):
        name = "echo-model"

    class Plugin:
        @hookimpl
        def toolscore_register_providers(self) -> list[Any]:
            return [Echo]

    register_plugin(Plugin(), kinds=["providers"])
    data = base()
    data["arms"] = [{"id": "a", "provider": "echo-model", "model": "e"}]
    assert load_agent_spec(data, pm=plugin_manager).arms[0].provider == "echo-model"


# --- bad specs -----------------------------------------------------------------------------------


def _edit(**changes: Any) -> Any:
    def apply(data: dict[str, Any]) -> None:
        for path, value in changes.items():
            node: Any = data
            keys = path.split("__")
            for key in keys[:-1]:
                node = node[int(key)] if key.isdigit() else node[key]
            last = keys[-1]
            if value is _DELETE:
                del node[int(last) if last.isdigit() else last]
            elif last.isdigit():
                node[int(last)] = value
            else:
                node[last] = value
    return apply


_DELETE = object()

BAD: list[tuple[str, Any, str, str]] = [
    # (case, edit, location, words in the message or fix)
    ("unknown top-level key", _edit(modle="x"), "$.modle", "Did you mean 'model'?"),
    ("key at the wrong level", _edit(max_turns=3), "$.max_turns", "belongs under limits"),
    ("unknown arm key", _edit(arms=[{"id": "a", "modle": "x"}]), "$.arms[0].modle", "Did you mean 'model'?"),
    ("arm model of the wrong type", _edit(arms=[{"id": "a"}, {"id": "b", "model": 5}]), "$.arms[1].model",
     "Quote the value"),
    ("no name", _edit(name=_DELETE), "$", "Add name: to the top level"),
    ("spec_version 2", _edit(spec_version=2), "$.spec_version", "the only version this Toolscore reads"),
    ("repetitions 0", _edit(repetitions=0), "$.repetitions", "at least 1"),
    ("protocol typo", _edit(server={"command": "x", "protocol": "moden"}), "$.server.protocol",
     "Did you mean 'modern'?"),
    ("two server kinds", _edit(server={"command": "x", "url": "http://127.0.0.1:1/mcp"}), "$.server",
     "exactly one of command, url or config"),
    ("no server kind", _edit(server={"timeout": 3}), "$.server", "names no server"),
    ("name without config", _edit(server={"command": "x", "name": "n"}), "$.server.name", "config file"),
    ("header_env with a command", _edit(server={"command": "x", "header_env": {"A": "B"}}),
     "$.server.header_env", "url server"),
    ("unbalanced quote", _edit(server={"command": "python 'x"}), "$.server.command", "Close the quote"),
    ("unknown placeholder", _edit(server={"command": "x", "env": {"F": "{rundir}/f"}}), "$.server.env.F",
     "Did you mean 'run_dir'?"),
    ("env value a number", _edit(server={"command": "x", "env": {"PORT": 8080}}), "$.server.env.PORT",
     "Quote the value"),
    ("header_env value not a name", _edit(server={"url": "http://h/mcp", "header_env": {"Authorization": "Bearer x"}}),
     '$.server.header_env.Authorization', "the NAME of an environment variable"),
    ("credentials in the url", _edit(server={"url": "http://me:pw@h/mcp"}), "$.server.url", "header_env"),
    ("duplicate arm id", _edit(arms=[{"id": "a"}, {"id": "a"}]), "$.arms[1].id", "used twice"),
    ("bad arm id", _edit(arms=[{"id": "a::b"}]), "$.arms[0].id", "letters, digits"),
    ("duplicate task id", lambda d: d["tasks"].append({"id": "t", "prompt": "p", "script": []}), "$.tasks[1].id",
     "used twice"),
    ("unknown provider", _edit(provider="antropic", model="m"), "$.provider", "Did you mean 'anthropic'?"),
    ("no model", _edit(provider="openai"), "$.arms[0]", "has no model"),
    ("no provider", _edit(provider=_DELETE), "$.arms[0]", "has no provider"),
    ("credential in extra", _edit(extra={"api_key": "sk-x"}), "$.extra.api_key", "api_key_env"),
    ("api_key_env holding a key", _edit(api_key_env="sk-live-123"), "$.api_key_env", "NAME"),
    ("bad pricing", _edit(pricing={"input_per_million": -1, "output_per_million": 1}), "$.pricing",
     "input_per_million"),
    ("pricing missing output", _edit(pricing={"input_per_million": 1}), "$.pricing", "output_per_million"),
    ("scripted arm without a script", _edit(tasks__0__script=_DELETE), "$.tasks[0]",
     "no script for the scripted arm 'a'"),
    ("script for an unknown arm", _edit(tasks__0__script={"b": [{"text": "x"}]}), '$.tasks[0].script.b',
     "does not have"),
    ("script mapping missing an arm", _edit(arms=[{"id": "a"}, {"id": "b"}], tasks__0__script={"a": [{"text": "x"}]}),
     "$.tasks[0].script", "no script for the scripted arm 'b'"),
    ("empty script step", _edit(tasks__0__script=[{}]), "$.tasks[0].script[0]", "at least one of calls, text"),
    ("bad expected call", _edit(tasks__0__expected=[{"tool": "x", "argz": {}}]), "$.tasks[0].expected[0].argz",
     "unknown key"),
    ("bad matcher", _edit(tasks__0__expected=[{"tool": "x", "args": {"a": {"$regx": "y"}}}]),
     "$.tasks[0].expected[0].args.a", "$regx"),
    ("min_score above 1", _edit(tasks__0__min_score=1.5), "$.tasks[0].min_score", "at most 1"),
    ("bad forbidden rule", _edit(guard={"deny": [{"tool": "x", "why": "y"}]}), "$.guard.deny[0].why", "unknown key"),
    ("guard python not module:function", _edit(guard={"python": "my_guards.check"}), "$.guard.python",
     "module:function"),
    ("expect without command", _edit(verify={"expect": "^1$"}), "$.verify.expect", "needs a command"),
    ("bad expect regex", _edit(verify={"command": "node -v", "expect": "(v1"}), "$.verify.expect",
     "not a valid regular expression"),
    ("bad server_version regex", _edit(verify={"server_version": "/[1/"}), "$.verify.server_version",
     "not a valid regular expression"),
    ("negative max_usd", _edit(budget={"max_usd": -1}), "$.budget.max_usd", "at least 0"),
    ("limits typo", _edit(limits={"max_turn": 3}), "$.limits.max_turn", "Did you mean 'max_turns'?"),
    ("unknown guard kind", _edit(guard={"use": {"no-such-guard": {}}}), '$.guard.use["no-such-guard"]',
     "no installed guard"),
    ("tasks empty", _edit(tasks=[]), "$.tasks", "is empty"),
]


@pytest.mark.parametrize(("case", "edit", "location", "words"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_spec_names_the_file_the_key_path_and_the_fix(tmp_path: Path, case: str, edit: Any,
                                                           location: str, words: str) -> None:
    data = copy.deepcopy(base())
    edit(data)
    path = write(tmp_path, data)
    with pytest.raises(InputError) as caught:
        load_agent_spec(path)
    error = caught.value
    text = str(error)
    assert error.file == str(path), text
    assert error.location == location, text
    assert words in text, text
    assert text.startswith(f"{path}, at {location}: "), text
    assert "fastjsonschema" not in text and "data." not in text, text


def test_a_file_that_is_not_a_mapping_or_not_yaml(tmp_path: Path) -> None:
    listed = tmp_path / "list.yaml"
    listed.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a study spec"):
        load_agent_spec(listed)
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_agent_spec(broken)
    assert "line" in (caught.value.location or "")
    numbered = tmp_path / "numbered.yaml"
    numbered.write_text("name: s\n1: x\n", encoding="utf-8")
    with pytest.raises(InputError, match="Quote the key"):
        load_agent_spec(numbered)
    with pytest.raises(InputError, match="file not found"):
        load_agent_spec(tmp_path / "missing.yaml")


def test_the_command_line_turns_a_bad_spec_into_one_paragraph_and_exit_2(tmp_path: Path) -> None:
    data = base()
    data["arms"] = [{"id": "a", "modle": "x"}]
    path = write(tmp_path, data)
    out = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "agent", "run", str(path), "--dry-run"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert "$.arms[0].modle" in out.stderr and "Did you mean 'model'?" in out.stderr
