"""``toolscore eval --llm-judge`` end to end, and the options being the plugin's, not the core's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[3]


def test_eval_with_llm_judge_end_to_end(invoke, model_server, files, d):
    server = model_server([d.text_answer(True, True)])
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--min-score", "0.9")
    assert result.exit_code == 0, result.output
    assert "Score Without Judge" in result.stdout and "35.0%" in result.stdout and "100.0%" in result.stdout
    assert "✓ judged match" in result.stdout  # the table cell wraps: the reason follows on the next lines
    # the cost line: calls, tokens, dollars from the price table
    assert "judge gpt-4o-mini (openai): 1 call, 120 tokens (100 in, 20 out), $0.000027" in result.stderr
    assert len(server.requests) == 1


def test_eval_without_the_flag_calls_no_model_and_fails_the_bar(invoke, model_server, files, d):
    server = model_server([d.text_answer(True, True)])
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--min-score", "0.9")
    assert result.exit_code == 1 and server.requests == []
    assert "judge" not in result.stderr


def test_cli_rerun_reads_the_cache_and_a_given_cache_path(invoke, model_server, files, d, tmp_path):
    server = model_server([d.text_answer(True, False)])
    gold, trace = files
    path = tmp_path / "mine.sqlite"
    args = ("eval", str(gold), str(trace), "--llm-judge", "--llm-judge-cache-path", str(path), "--report", "json")
    first = invoke(*args)
    second = invoke(*args)
    assert first.exit_code == second.exit_code == 0
    assert len(server.requests) == 1 and path.is_file()
    assert json.loads(first.stdout)["score"] == json.loads(second.stdout)["score"]
    assert "0 calls, 2 answer(s) from the cache" in second.stderr


def test_markdown_report_marks_judged_matches_with_their_reason(invoke, model_server, files, d):
    model_server([d.text_answer(True, True)])
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--report", "md")
    assert result.exit_code == 0
    assert "| Score Without Judge | 35.0% |" in result.stdout
    assert "✓ judged match (llm:gpt-4o-mini): tool: same meaning" in result.stdout
    assert "✓ judged match (llm:gpt-4o-mini): `city`: same meaning" in result.stdout


def test_missing_key_exits_2_naming_the_variable(invoke, model_server, files, d, monkeypatch):
    model_server([d.text_answer(True, True)])
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--llm-model", "claude-haiku-4-5")
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and "Traceback" not in result.output


def test_rejected_key_never_shows_in_the_message(invoke, model_server, files, d):
    model_server([{"error": 401, "message": f"Incorrect API key provided: {d.KEY}"}])
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge")
    assert result.exit_code == 2 and "gpt-4o-mini" in result.stderr
    assert d.KEY not in result.output


def test_unreachable_endpoint_exits_2(invoke, files, cache_file):
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--llm-model", "llama3.1",
                    "--llm-base-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 2
    assert "cannot reach the judge model 'llama3.1' at http://127.0.0.1:9/v1" in result.stderr


def test_llm_max_usd_stops_before_the_call(invoke, model_server, files, d):
    server = model_server([d.text_answer(True, True)])
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--llm-max-usd", "0.000001")
    assert result.exit_code == 3
    assert "--llm-max-usd" in result.stderr and server.requests == []


def test_judge_options_without_llm_judge_are_an_error(invoke, files):
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-model", "gpt-4o")
    assert result.exit_code == 2 and "--llm-model given without --llm-judge" in result.stderr


def test_eval_help_lists_the_options_the_plugin_adds(invoke):
    result = invoke("eval", "--help")
    assert result.exit_code == 0
    for flag in ("--llm-judge", "--llm-model", "--llm-base-url", "--llm-judge-cache", "--llm-judge-cache-path",
                 "--llm-max-usd"):
        assert flag in result.stdout
    assert "default write" in result.stdout
    assert result.stdout.rstrip().endswith("Show this message and exit.")  # --help stays last


def test_the_core_eval_command_does_not_name_the_judge_options():
    # "added by the plugin": the core's own command knows only its extension point
    for module in ("cli/eval_cmd.py", "cli/judge_options.py"):
        source = (ROOT / "toolscore_core/src/toolscore_core" / module).read_text()
        assert "llm-judge" not in source and "llm_judge" not in source, module


def test_root_help_does_not_load_the_judge():
    code = ("import sys; from toolscore_core.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('toolscore_judge')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_installing_the_judge_never_installs_the_mcp_client():
    project = tomllib.loads((ROOT / "plugins/toolscore_judge/pyproject.toml").read_text())["project"]
    every = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    assert not [dep for dep in every if "mcp" in dep]
    assert "toolscore-providers==0.1.0" in project["dependencies"]
    sources = (ROOT / "plugins/toolscore_judge/src").rglob("*.py")
    assert not [p for p in sources if "toolscore_mcp" in p.read_text() or "toolscore_agent" in p.read_text()]


def test_judge_is_registered_and_the_facade_names_judgeconfig():
    import toolscore
    from toolscore_core import collect, get_plugin_manager

    assert "llm" in collect(get_plugin_manager(), "judges")
    assert "JudgeConfig" in toolscore.__all__
    assert toolscore.JudgeConfig(model="gemini-2.0-flash").name == "llm:gemini-2.0-flash"


@pytest.mark.parametrize("bad", ["maybe"])
def test_bad_cache_mode_is_exit_2(invoke, files, bad):
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--llm-judge-cache", bad)
    assert result.exit_code == 2 and "off, read, write" in result.stderr


def test_llm_provider_option_picks_the_chat_api(invoke, model_server, files, d):
    server = model_server([d.text_answer(True, True)])
    gold, trace = files
    result = invoke("eval", str(gold), str(trace), "--llm-judge", "--llm-model", "gpt-4o-mini",
                    "--llm-provider", "openai-chat", "--llm-base-url", server.base_url)
    assert result.exit_code == 0, result.output
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]
