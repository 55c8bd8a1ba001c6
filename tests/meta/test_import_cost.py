"""Plugin modules (what entry points name) stay cheap to import: no SDK, HTTP or MCP code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_entry_point_modules_import_nothing_heavy():
    probe = textwrap.dedent(
        """
        import sys
        from toolscore_core.kernel.plugins import all_entry_points
        for ep in all_entry_points():
            ep.load()
        heavy = ("openai", "anthropic", "httpx", "mcp", "google", "langchain", "langgraph", "pydantic_ai",
                 "agents", "claude_agent_sdk", "opentelemetry", "rich", "ruamel", "scipy")
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
        print(len(all_entry_points()))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                         env={**os.environ})
    assert out.returncode == 0, out.stderr
    loaded, count = out.stdout.splitlines()
    assert int(count) >= 5  # the first-party plugins and the example plugin are installed
    assert loaded == "", f"entry point modules imported heavy modules: {loaded}"
