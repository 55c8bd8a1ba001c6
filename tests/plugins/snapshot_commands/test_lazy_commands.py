"""The snapshot commands are listed by ``toolscore --help`` without being imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import sys
    from toolscore_core.cli import main
    sys.argv = ["toolscore", "--help"]
    try:
        main()
    except SystemExit:
        pass
    loaded = sorted(m for m in sys.modules
                    if m.startswith(("toolscore_pytest.commands", "toolscore_pytest.store", "httpx", "httpx2")))
    print("LOADED", loaded)
""")


def test_help_lists_the_commands_and_imports_none_of_them():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in ("approve", "snapshots", "record"):
        assert f"  {name} " in done.stdout
    assert "LOADED []" in done.stdout


def test_record_help_documents_both_modes_and_the_110_options(cli):
    text = cli("record", "--help").output
    for option in ("--from-trace", "--name", "--format", "--update", "--dir"):
        assert option in text
    assert "-- python -m pytest" in text
    diff_help = cli("snapshots", "diff", "--help").output
    assert "--against" in diff_help and "one file" in diff_help
    rm_help = cli("snapshots", "rm", "--help").output
    assert "--yes" in rm_help and "--all-pending" in rm_help
