"""`toolscore eval` start-up and its CLI path (issue 12: the 10k-call eval under 0.3 s CPU).

Why these tests: each change they cover saves instructions without changing a byte of what
the command prints, so nothing else would notice if one were undone. Each asserts the
mechanism itself (the collector's state while the report is written, the modules a fresh
interpreter imported), on the real command.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolscore_core import Exporter, hookimpl
from toolscore_core.cli import App, cli

EXAMPLE1 = Path(__file__).resolve().parent / "fixtures" / "eval_example1"


@contextlib.contextmanager
def collector(enabled: bool) -> Iterator[None]:
    """The cyclic collector in the given state for the block, restored after."""
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if before else gc.disable)()


def probe_plugin(seen: list[bool]) -> Any:
    """A plugin whose ``probe`` report records whether the collector ran while it was written."""

    class Probe(Exporter):
        name = "evaluation-probe"
        subject = "evaluation"
        format = "probe"

        def export(self, subject: Any, stream: Any, **options: Any) -> None:
            seen.append(gc.isenabled())
            stream.write(f"score {subject.score:.3f}\n")

    class Plugin:
        @hookimpl
        def toolscore_register_exporters(self) -> list[Any]:
            return [Probe]

    return Plugin()


def run_eval(plugin_manager: Any, *args: str) -> Any:
    return CliRunner().invoke(cli, ["eval", *args], obj=App(pm=plugin_manager), catch_exceptions=False)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """A gold file and a plain call-list trace that the built-in adapter reads."""
    gold, trace = tmp_path / "gold.json", tmp_path / "trace.json"
    gold.write_text(json.dumps([{"tool": "search", "args": {"q": "x"}}, {"tool": "book"}]), encoding="utf-8")
    trace.write_text(json.dumps([{"tool": "search", "args": {"q": "y"}}]), encoding="utf-8")
    return str(gold), str(trace)


def test_the_collector_is_off_while_the_report_is_written_and_back_on_after(plugin_manager, register_plugin, files):
    seen: list[bool] = []
    register_plugin(probe_plugin(seen))
    with collector(True):
        result = run_eval(plugin_manager, *files, "--report", "probe")
        assert gc.isenabled()
    assert result.exit_code == 0, result.output
    assert result.output == "score 0.600\n"
    assert seen == [False]


def test_a_collector_the_caller_turned_off_stays_off(plugin_manager, register_plugin, files):
    seen: list[bool] = []
    register_plugin(probe_plugin(seen))
    with collector(False):
        result = run_eval(plugin_manager, *files, "--report", "probe")
        assert not gc.isenabled()
    assert result.exit_code == 0 and seen == [False]


def test_the_collector_is_back_on_after_an_input_error(plugin_manager, files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with collector(True):
        result = run_eval(plugin_manager, files[0], str(bad))
        assert gc.isenabled()
    assert result.exit_code == 2 and "is not valid JSON" in result.output


#: What the example plugin's other kinds pull in; a trace reader needs none of them.
NOT_FOR_ADAPTERS = ("toolscore_example_plugin.provider", "toolscore_example_plugin.executor",
                    "toolscore_example_plugin.guard", "toolscore_example_plugin.lint_rule",
                    "toolscore_core.kernel.providers", "toolscore_core.kernel.executors",
                    "toolscore_core.kernel.guards", "toolscore_core.kernel.pricing")

#: Runs the CLI and, at exit, lists every module it imported on stderr's last line.
PROBE = ("import atexit, sys\n"
         "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
         "from toolscore_core.cli import main\n"
         "main(sys.argv[1:])\n")


def fresh_cli(*args: str) -> dict[str, Any]:
    """Exit code, stdout and the modules imported by ``toolscore ARGS`` in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSCORE_")}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120, env=env)
    modules = done.stderr.strip().splitlines()[-1].split()
    assert modules[0] == "MODULES", done.stderr
    return {"code": done.returncode, "out": done.stdout, "modules": modules[1:]}


def test_eval_loads_the_example_plugins_adapter_alone():
    pytest.importorskip("toolscore_example_plugin")
    result = fresh_cli("eval", str(EXAMPLE1 / "gold.json"), str(EXAMPLE1 / "session.json"))
    assert result["code"] == 0 and "Overall Score" in result["out"]
    assert "toolscore_example_plugin.adapter" in result["modules"]  # asked for, as every adapter plugin is
    assert [m for m in NOT_FOR_ADAPTERS if m in result["modules"]] == []


def test_the_example_plugin_still_reads_its_steplog(tmp_path):
    pytest.importorskip("toolscore_example_plugin")
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps({"steplog": 1, "steps": [{"call": "search", "input": {"q": "x"}, "ok": True}]}))
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "search", "args": {"q": "x"}}]))
    result = fresh_cli("eval", str(gold), str(trace), "--report", "json")
    assert result["code"] == 0
    assert json.loads(io.StringIO(result["out"]).read())["score"] == 1.0


def random_brackets(rng: random.Random) -> bytes:
    """Bracket text of every shape: balanced and not, both kinds interleaved, empty."""
    if rng.random() < 0.5:  # well nested, as valid JSON leaves them
        out: list[str] = []
        stack: list[str] = []
        for _ in range(rng.randrange(60)):
            if stack and rng.random() < 0.45:
                out.append(stack.pop())
            else:
                opening = rng.choice("[{")
                out.append(opening)
                stack.append("]" if opening == "[" else "}")
        return "".join(out + stack[::-1]).encode()
    return "".join(rng.choice("[]{}") for _ in range(rng.randrange(40))).encode()


def test_one_pass_removes_what_the_regex_removes():
    from toolscore_core.kernel import readlimits

    rng = random.Random(12)
    cases = [b"", b"[]", b"{}", b"{[]}", b"[{}]", b"[{]}", b"}{", b"][", b"{[]}{}[[]]", b"[" * 50 + b"]" * 50]
    cases += [random_brackets(rng) for _ in range(3000)]
    changed = 0
    for brackets in cases:
        expected = readlimits._INNERMOST.sub(b"", brackets)
        assert readlimits._without_innermost(brackets) == expected, brackets
        changed += expected != brackets
    assert changed > 1000  # most cases had pairs to remove


def nesting(value: Any) -> int:
    """Levels of lists and objects inside each other (an independent oracle for the text test)."""
    if isinstance(value, list):
        return 1 + max((nesting(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((nesting(item) for item in value.values()), default=0)
    return 0


def test_shallow_text_is_true_exactly_up_to_the_nesting_limit():
    from toolscore_core.kernel import readlimits

    texts = [json.dumps([{"tool": f"t{i}", "args": {"q": "[{" * (i % 3), "n": [[i]]}} for i in range(500)])]
    for depth in (1, 2, 99, 100, 101, 150):
        texts.append("[" * depth + "]" * depth)
        texts.append('{"a": ' * depth + "1" + "}" * depth)
        half = '[{"k": ' * (depth // 2) + '"]}"' + "}]" * (depth // 2)  # both kinds alternating
        texts.append(half if depth % 2 == 0 else "[" + half + "]")
    answers = [readlimits._shallow_text(text) for text in texts]
    assert answers == [nesting(json.loads(text)) <= readlimits.MAX_NESTING for text in texts]
    assert True in answers and False in answers
