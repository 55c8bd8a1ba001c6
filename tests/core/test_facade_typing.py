"""Type checkers see the facade's real types, not ``Any``, though nothing is imported eagerly.

The test type-checks a small user script with the venv's mypy, the way an IDE or a user's CI
would, and reads ``reveal_type`` notes. A facade that fell back to its ``__getattr__`` would
reveal ``Any`` everywhere and hide every mistake, so the test also checks that a deliberate
type error is reported.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

USER_SCRIPT = textwrap.dedent(
    """
    from toolscore import MCPStdioClient, ToolCall, Trace, evaluate, from_openai, load_trace
    from toolscore.mcp import MCPStdioClient as DocsPathClient
    from toolscore.mcp.agent import Budget, Price
    from toolscore.metrics.cost_estimator import calculate_llm_cost
    from toolscore_core import TraceAdapter, collect, get_plugin_manager

    call = ToolCall(tool="search", args={"q": "weather"})
    trace = Trace(calls=(call,))
    result = evaluate(expected=[{"tool": "search"}], actual=[call])

    reveal_type(evaluate)
    reveal_type(result)
    reveal_type(trace)
    reveal_type(call)
    reveal_type(load_trace)
    reveal_type(from_openai)
    reveal_type(MCPStdioClient)
    reveal_type(DocsPathClient)
    reveal_type(Price(0.10, 0.50, "list price"))
    reveal_type(Budget(max_usd=0.05).remaining_usd)
    reveal_type(calculate_llm_cost("gpt-4o", 10, 10))
    reveal_type(TraceAdapter)
    reveal_type(collect(get_plugin_manager(), "adapters"))

    wrong: int = result  # the deliberate error
    """
)


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, str]:
    work = tmp_path_factory.mktemp("facade_typing")
    script = work / "user_script.py"
    script.write_text(USER_SCRIPT, encoding="utf-8")
    config = work / "mypy.ini"
    config.write_text("[mypy]\npython_version = 3.10\n", encoding="utf-8")
    # a persistent cache keeps the run to a second or two after the first time (pytest's
    # cache plugin may be disabled: then a fresh directory, slower but the same answer)
    store = getattr(request.config, "cache", None)
    cache = Path(store.mkdir("facade-typing-mypy")) if store is not None else work / ".mypy_cache"
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache),
         "--no-error-summary", "--show-error-codes", str(script)],
        capture_output=True, text=True, timeout=300, cwd=work,
    )
    assert out.returncode in (0, 1), out.stderr  # 1: errors found, as the script has one
    notes: dict[str, str] = {}
    errors: list[str] = []
    lines = script.read_text(encoding="utf-8").splitlines()
    for line in out.stdout.splitlines():
        match = re.match(r".*?:(\d+): (note|error): (.*)", line)
        if not match:
            continue
        number, kind, text = int(match.group(1)), match.group(2), match.group(3)
        if kind == "note" and text.startswith("Revealed type is"):
            subject = re.search(r"reveal_type\((.*)\)", lines[number - 1])
            assert subject is not None
            notes[subject.group(1)] = text
        elif kind == "error":
            errors.append(f"{number}: {text}")
    notes["__errors__"] = "\n".join(errors)
    return notes


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("evaluate", "Evaluation"),
        ("result", "toolscore_core.kernel.model.Evaluation"),
        ("trace", "toolscore_core.kernel.model.Trace"),
        ("call", "toolscore_core.kernel.model.ToolCall"),
        ("load_trace", "Trace"),
        ("from_openai", "list[toolscore_core.kernel.model.ToolCall]"),
        ("MCPStdioClient", "toolscore_mcp.stdio.MCPStdioClient"),
        ("DocsPathClient", "toolscore_mcp.stdio.MCPStdioClient"),
        ('Price(0.10, 0.50, "list price")', "toolscore_core.kernel.pricing.Price"),
        ("Budget(max_usd=0.05).remaining_usd", '"float | None"'),
        ('calculate_llm_cost("gpt-4o", 10, 10)', '"float | None"'),
        # the kernel's own lazy names, which plugin authors import from toolscore_core
        ("TraceAdapter", "toolscore_core.kernel.interfaces.TraceAdapter"),
        ('collect(get_plugin_manager(), "adapters")', "toolscore_core.kernel.registry.Registry"),
    ],
)
def test_revealed_types_are_the_real_ones(mypy_output: dict[str, str], expression: str, expected: str) -> None:
    revealed = mypy_output.get(expression)
    assert revealed is not None, f"no reveal_type note for {expression}: {mypy_output}"
    assert expected in revealed
    assert '"Any"' not in revealed


def test_a_type_error_in_user_code_is_reported(mypy_output: dict[str, str]) -> None:
    errors = mypy_output["__errors__"].splitlines()
    assert len(errors) == 1, errors
    assert "Incompatible types in assignment" in errors[0]
    assert '"Evaluation"' in errors[0] and '"int"' in errors[0]
