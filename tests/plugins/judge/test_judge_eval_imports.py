"""`toolscore eval` without --llm-judge imports none of the judge's machinery (issue 12).

Why: eval builds the judge's options and reads them on every run. Their constants live in
``toolscore_judge.defaults``; read from the cache and routing modules they cost each run
sqlite3, hashlib and the routing table (about 5 ms), and nothing else would notice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from toolscore_judge import cache, config, defaults, options, routing

FIXTURES = Path(__file__).resolve().parents[2] / "core" / "fixtures" / "eval_example1"

PROBE = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from toolscore_core.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            main(sys.argv[1:])
            code = 0
        except SystemExit as exc:
            code = exc.code
    json.dump({"code": code, "modules": sorted(sys.modules)}, sys.stderr)
    """
)


def _modules_of(*args: str) -> tuple[int, set[str]]:
    """Exit code and the modules imported by ``toolscore ARGS`` in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSCORE_")}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=120, env=env)
    result = json.loads(done.stderr.strip().splitlines()[-1])
    return result["code"], set(result["modules"])


def test_eval_without_the_judge_imports_neither_sqlite3_nor_the_routing() -> None:
    code, modules = _modules_of("eval", str(FIXTURES / "gold.json"), str(FIXTURES / "session.json"))
    assert code == 0
    assert "toolscore_judge.options" in modules  # the options were built and read...
    unwanted = {"sqlite3", "toolscore_judge.cache", "toolscore_judge.routing", "toolscore_judge.config"}
    assert sorted(unwanted & modules) == []  # ...without the judge's cache, routing or config


def test_the_defaults_are_the_ones_the_cache_routing_and_config_use() -> None:
    assert tuple(routing.ROUTES) == defaults.ROUTE_NAMES
    assert (*routing.ROUTES, *routing.ALIASES) == options.PROVIDERS
    assert (cache.CACHE_MODES, cache.DEFAULT_MODE) == (defaults.CACHE_MODES, defaults.DEFAULT_MODE)
    assert routing.DEFAULT_MODEL == defaults.DEFAULT_MODEL == config.JudgeConfig().model
    assert config.JudgeConfig().cache == defaults.DEFAULT_MODE
