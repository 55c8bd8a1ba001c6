"""The import paths of the docs and of tool-scorer 1.10.0 work, or say what to install.

Absence is simulated for real: a child Python whose ``sitecustomize`` puts a meta path
finder in front of every other one, so ``toolscore_mcp`` (or another distribution) cannot be
imported exactly as if it were not installed. "Installed but too old" is a real package of
that name, earlier on ``sys.path``, that lacks the name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import toolscore
import toolscore.export
import toolscore.mcp
import toolscore.mcp.agent
import toolscore.mcp.sample_server
import toolscore.metrics
import toolscore.metrics.cost_estimator as cost_estimator
import toolscore_agent
import toolscore_core
import toolscore_mcp.client
import toolscore_mcp.sample_server
from toolscore._lazy import FeatureUnavailableError
from toolscore_core.kernel.budget import Budget
from toolscore_core.kernel.pricing import PRICE_TABLE, Price, price_for

BLOCKER = textwrap.dedent(
    """
    import os, sys
    from importlib.abc import MetaPathFinder

    class _NotInstalled(MetaPathFinder):
        # Packages named in TOOLSCORE_TEST_ABSENT cannot be found, like an uninstalled one.
        blocked = set(filter(None, os.environ.get("TOOLSCORE_TEST_ABSENT", "").split(",")))

        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in self.blocked:
                raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
            return None

    sys.meta_path.insert(0, _NotInstalled())
    """
)


def run_python(args: list[str], tmp_path: Path, *, absent: str = "", extra_path: Path | None = None,
               stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the venv's Python with the given distributions made absent."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    path = [str(site)] + ([str(extra_path)] if extra_path else [])
    env = {**os.environ, "TOOLSCORE_TEST_ABSENT": absent,
           "PYTHONPATH": os.pathsep.join([*path, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=60, env=env,
                          input=stdin, cwd=tmp_path)


def run_code(code: str, tmp_path: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return run_python(["-c", textwrap.dedent(code)], tmp_path, **kwargs)  # type: ignore[arg-type]


# -- toolscore.mcp ------------------------------------------------------------------------------
def test_mcp_names_are_toolscore_mcp_client_objects() -> None:
    from toolscore.mcp import MCPHttpClient, MCPStdioClient

    assert MCPStdioClient is toolscore_mcp.client.MCPStdioClient
    assert MCPHttpClient is toolscore_mcp.client.MCPHttpClient
    for name in toolscore.mcp.__all__:
        assert getattr(toolscore.mcp, name) is getattr(toolscore_mcp.client, name)
    assert {"MCPStdioClient", "MCPHttpClient", "open_client", "CallOutcome", "MCPError"} <= set(
        toolscore.mcp.__all__
    )
    assert toolscore.MCPStdioClient is MCPStdioClient


def test_an_unknown_name_is_an_ordinary_attribute_error() -> None:
    assert not hasattr(toolscore.mcp, "NoSuchClient")
    assert not hasattr(toolscore.mcp.agent, "no_such_thing")
    assert not hasattr(toolscore.export, "no_such_thing")
    assert not hasattr(toolscore, "no_such_thing")
    with pytest.raises(AttributeError, match=r"toolscore\.mcp\.sample_server"):
        toolscore.mcp.sample_server.no_such_thing  # noqa: B018


def test_subpackages_are_attributes_of_the_facade() -> None:
    assert toolscore.mcp.agent is sys.modules["toolscore.mcp.agent"]
    assert toolscore.metrics.cost_estimator is cost_estimator
    assert {"mcp", "export", "metrics"} <= set(dir(toolscore))


def test_without_toolscore_mcp_the_clients_say_what_to_install(tmp_path: Path) -> None:
    out = run_code(
        """
        import toolscore.mcp
        for attempt in ("from toolscore.mcp import MCPStdioClient", "import toolscore; toolscore.MCPHttpClient"):
            try:
                exec(attempt)
            except ImportError as exc:
                print(type(exc).__name__, isinstance(exc, ModuleNotFoundError), "|", exc)
        """,
        tmp_path, absent="toolscore_mcp",
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == [
        "FeatureUnavailableError False | toolscore.mcp.MCPStdioClient needs the toolscore-mcp "
        "distribution: pip install toolscore-mcp",
        "FeatureUnavailableError False | toolscore.MCPHttpClient needs the toolscore-mcp distribution: "
        "pip install toolscore-mcp",
    ]


def test_the_blocker_really_hides_the_distribution(tmp_path: Path) -> None:
    out = run_code("import toolscore_mcp", tmp_path, absent="toolscore_mcp")
    assert out.returncode == 1 and "No module named 'toolscore_mcp'" in out.stderr


# -- python -m toolscore.mcp.sample_server -------------------------------------------------------
def _request(method: str, request_id: int, params: dict[str, object] | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})


def test_the_sample_server_runs_under_the_docs_path(tmp_path: Path) -> None:
    stdin = "\n".join([
        _request("initialize", 1, {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "t", "version": "0"}}),
        _request("tools/list", 2),
    ]) + "\n"
    out = run_python(["-m", "toolscore.mcp.sample_server"], tmp_path, stdin=stdin)
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert replies[0]["result"]["serverInfo"]["name"] == toolscore_mcp.sample_server.SERVER_NAME
    assert [t["name"] for t in replies[1]["result"]["tools"]] == [t["name"] for t in toolscore_mcp.sample_server.TOOLS]


def test_the_docs_client_example_talks_to_the_sample_server() -> None:
    from toolscore.mcp import MCPStdioClient

    with MCPStdioClient([sys.executable, "-m", "toolscore.mcp.sample_server"], timeout=30) as client:
        names = [tool["name"] for tool in client.list_tools()]
        outcome = client.call_tool("create_note", {"title": "groceries"})
    assert "create_note" in names and "export_notes" in names
    assert outcome.ok and outcome.is_error is False


def test_without_toolscore_mcp_the_sample_server_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    out = run_python(["-m", "toolscore.mcp.sample_server"], tmp_path, absent="toolscore_mcp", stdin="")
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.strip().count("\n") == 0
    assert "pip install toolscore-mcp" in out.stderr and "Traceback" not in out.stderr


def test_sample_server_names_are_forwarded() -> None:
    assert toolscore.mcp.sample_server.SampleServer is toolscore_mcp.sample_server.SampleServer
    assert toolscore.mcp.sample_server.TOOLS is toolscore_mcp.sample_server.TOOLS


# -- toolscore.mcp.agent ------------------------------------------------------------------------
HARNESS_NAMES = ("AnthropicMessagesProvider", "OpenAIResponsesProvider", "Limits", "load_agent_spec",
                 "rules_guard", "run_agent", "run_study")


def test_agent_lists_every_name_of_the_docs_example() -> None:
    assert set(toolscore.mcp.agent.__all__) >= {*HARNESS_NAMES, "Budget", "Price", "allow", "deny"}


def test_price_and_budget_are_the_kernels() -> None:
    from toolscore.mcp.agent import Budget as AgentBudget
    from toolscore.mcp.agent import BudgetStopped
    from toolscore.mcp.agent import Price as AgentPrice

    assert AgentPrice is Price and AgentBudget is Budget
    assert BudgetStopped.exit_code == 3
    assert AgentPrice(0.10, 0.50, "list price").input_per_million == 0.10
    assert AgentBudget(max_usd=0.05).remaining_usd == 0.05


def test_allow_and_deny_are_the_kernels_guard_decisions() -> None:
    from toolscore.mcp.agent import allow, deny
    from toolscore_core.kernel import guards

    assert allow is guards.allow and deny is guards.deny


@pytest.mark.parametrize("name", HARNESS_NAMES)
def test_a_harness_name_resolves_or_names_itself_and_the_installed_version(name: str) -> None:
    if hasattr(toolscore_agent, name):
        assert getattr(toolscore.mcp.agent, name) is getattr(toolscore_agent, name)
        return
    with pytest.raises(FeatureUnavailableError) as caught:
        getattr(toolscore.mcp.agent, name)
    message = str(caught.value)
    assert f"toolscore.mcp.agent.{name}" in message
    assert f"toolscore-agent {toolscore_agent.__version__}" in message
    assert caught.value.installed_version == toolscore_agent.__version__


def test_without_toolscore_agent_the_harness_says_what_to_install(tmp_path: Path) -> None:
    out = run_code(
        """
        from toolscore.mcp.agent import Budget, Price
        print(Price(0.1, 0.5, "list price").describe(), Budget(max_usd=0.05).remaining_usd)
        try:
            from toolscore.mcp.agent import run_study
        except ImportError as exc:
            print(type(exc).__name__, "|", exc)
        """,
        tmp_path, absent="toolscore_agent",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "$0.1 in / $0.5 out per 1M (list price) 0.05",
        "FeatureUnavailableError | toolscore.mcp.agent.run_study needs the toolscore-agent distribution: "
        "pip install toolscore-agent",
    ]


# -- toolscore.export ----------------------------------------------------------------------------
def _fake_export_package(root: Path, body: str) -> Path:
    package = root / "shadow" / "toolscore_export"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body, encoding="utf-8")
    return root / "shadow"


def test_without_toolscore_export_validate_record_says_what_to_install(tmp_path: Path) -> None:
    out = run_code(
        """
        import toolscore.export
        try:
            toolscore.export.validate_record({})
        except ImportError as exc:
            print(exc)
        """,
        tmp_path, absent="toolscore_export",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        "toolscore.export.validate_record needs the toolscore-export distribution: pip install toolscore-export"
    )


def test_an_installed_export_without_the_name_names_the_name_and_its_version(tmp_path: Path) -> None:
    shadow = _fake_export_package(tmp_path, '__version__ = "0.0.7"\n')
    out = run_code(
        """
        try:
            from toolscore.export import validate_record
        except ImportError as exc:
            print(exc)
        """,
        tmp_path, extra_path=shadow,
    )
    assert out.returncode == 0, out.stderr
    assert "toolscore.export.validate_record is not provided by the installed toolscore-export 0.0.7" in out.stdout
    assert "pip install --upgrade toolscore-export" in out.stdout


def test_an_export_that_has_the_name_is_used(tmp_path: Path) -> None:
    shadow = _fake_export_package(
        tmp_path, '__version__ = "9.0.0"\n\ndef validate_record(record):\n    return ["checked", record]\n'
    )
    out = run_code("from toolscore.export import validate_record; print(validate_record(1))", tmp_path,
                   extra_path=shadow)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['checked', 1]"


# -- toolscore.metrics.cost_estimator (tool-scorer 1.10.0's module) ------------------------------
def test_cost_estimator_keeps_the_1_10_names() -> None:
    for name in ("MODEL_PRICING", "estimate_tokens", "estimate_json_tokens", "calculate_llm_cost",
                 "estimate_trace_cost", "format_cost", "calculate_cost_savings"):
        assert callable(getattr(cost_estimator, name)) or name == "MODEL_PRICING"
    from toolscore.metrics import calculate_llm_cost, estimate_tokens

    assert calculate_llm_cost is cost_estimator.calculate_llm_cost
    assert estimate_tokens is cost_estimator.estimate_tokens


def test_model_pricing_has_1_10s_shape() -> None:
    assert cost_estimator.MODEL_PRICING["gpt-4o-mini"] == (0.15, 0.60)
    assert cost_estimator.MODEL_PRICING["claude-3-haiku"] == (0.25, 1.25)
    assert set(cost_estimator.MODEL_PRICING) == set(PRICE_TABLE)


def test_calculate_llm_cost_prices_known_models_and_refuses_to_guess() -> None:
    assert cost_estimator.calculate_llm_cost("claude-haiku-5-5", 1_000_000, 1_000_000) == pytest.approx(0.6)
    assert cost_estimator.calculate_llm_cost("gpt-4o", input_tokens=1_000, output_tokens=500) == pytest.approx(
        (1_000 * 2.5 + 500 * 10) / 1e6
    )
    assert cost_estimator.calculate_llm_cost("gpt-4o") == 0.0
    # 1.10.0 priced these as gpt-4o and gpt-4o-mini; an unknown cost is None here
    assert cost_estimator.calculate_llm_cost("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert cost_estimator.calculate_llm_cost("some-local-model", 1_000, 1_000) is None


def test_estimate_trace_cost_splits_tokens_and_knows_when_it_cannot() -> None:
    trace = [{"tool": "search", "args": {"q": "weather"}}, "The weather is sunny."]
    tokens = sum(cost_estimator.estimate_json_tokens(item) for item in trace)
    input_tokens = int(tokens * cost_estimator.TRACE_INPUT_SHARE)
    price = price_for("gpt-4o-mini")
    assert price is not None
    expected = (input_tokens * price.input_per_million + (tokens - input_tokens) * price.output_per_million) / 1e6
    assert cost_estimator.estimate_trace_cost(trace) == pytest.approx(expected)
    assert cost_estimator.estimate_trace_cost({"messages": []}, model="unknown-model") is None


def test_format_cost_and_savings() -> None:
    assert cost_estimator.format_cost(0.0042) == "$0.0042"
    assert cost_estimator.format_cost(1.234) == "$1.23"
    assert cost_estimator.format_cost(None) == "unknown"
    savings = cost_estimator.calculate_cost_savings(2.0, 1.5)
    assert savings["absolute_savings"] == pytest.approx(0.5)
    assert savings["percentage_savings"] == pytest.approx(25.0)
    assert savings["formatted_savings"] == "$0.50 (25.0% reduction)"
    assert cost_estimator.calculate_cost_savings(0.0, 0.0)["percentage_savings"] is None


def test_estimate_tokens_errs_high_like_the_budget() -> None:
    text = "Create the entity Ada twice, then tell me what is stored."
    assert cost_estimator.estimate_tokens(text) == toolscore_core.estimate_text_tokens(text)
    assert cost_estimator.estimate_tokens(text) > len(text) // 4
    assert cost_estimator.estimate_tokens("") == 0


# -- staying cheap ------------------------------------------------------------------------------
def test_importing_every_docs_path_imports_no_feature_distribution(tmp_path: Path) -> None:
    out = run_code(
        """
        import sys
        import toolscore, toolscore.mcp, toolscore.mcp.agent, toolscore.mcp.sample_server
        import toolscore.export, toolscore.metrics.cost_estimator
        heavy = ("toolscore_mcp", "toolscore_agent", "toolscore_export", "toolscore_adapters", "httpx",
                 "rich", "scipy", "mcp", "openai", "anthropic", "ruamel")
        print(",".join(sorted({m.split(".")[0] for m in sys.modules} & set(heavy))))
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
