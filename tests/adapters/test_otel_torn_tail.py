"""An OTel JSON Lines export whose last line is cut off (a collector killed mid-write) is
read up to its last complete line, and the cut is said, as for MCP sessions and JSON-RPC
(issue 8, item 21). Before, the whole file was rejected at the cut line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_adapters.protocols.otel import OtelAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace_file

BATCHES = Path(__file__).resolve().parent / "fixtures" / "otel" / "seed_batches.jsonl"


def _cut(tmp_path: Path) -> tuple[Path, list[bytes]]:
    lines = BATCHES.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3 and all(line.endswith(b"\n") for line in lines)
    path = tmp_path / "spans.jsonl"
    path.write_bytes(b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2])  # half of the last line, no newline
    return path, lines


def test_a_cut_off_last_line_is_skipped_and_said(tmp_path: Path, adapter_pm: Any) -> None:
    path, lines = _cut(tmp_path)
    whole_two = tmp_path / "two.jsonl"
    whole_two.write_bytes(b"".join(lines[:2]))
    cut = load_trace_file(path, pm=adapter_pm)
    expected = load_trace_file(whole_two, pm=adapter_pm)
    assert cut.source_format == "otel"
    assert [c.tool for c in cut] == [c.tool for c in expected] and len(cut) >= 1
    note = cut.metadata["torn_tail"]
    assert str(path) in note and "line 3" in note and "the last line is cut off" in note
    assert "read the 2 line(s) before it" in note
    assert "torn_tail" not in load_trace_file(BATCHES, pm=adapter_pm).metadata
    assert "torn_tail" in OtelAdapter().load_path(path).metadata  # the adapter itself, not only detection


def test_a_damaged_line_that_ends_with_its_newline_is_still_an_error(tmp_path: Path, adapter_pm: Any) -> None:
    path, lines = _cut(tmp_path)
    path.write_bytes(path.read_bytes() + b"\n")  # written whole, then damaged: not a cut-off write
    with pytest.raises(InputError) as err:
        load_trace_file(path, pm=adapter_pm)
    assert "line 3" in str(err.value) and "not valid JSON" in str(err.value)
    middle = tmp_path / "middle.jsonl"
    middle.write_bytes(lines[0] + lines[1][:100] + b"\n" + lines[2])
    with pytest.raises(InputError, match="line 2"):
        load_trace_file(middle, pm=adapter_pm)


def test_validate_reads_the_cut_file_and_warns_once_on_stderr(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli
    from toolscore_core.kernel.plugins import PluginManager

    path, _ = _cut(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--json", str(path)], obj=App(pm=PluginManager(autoload=True)),
                                catch_exceptions=True)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("the last line is cut off") == 1 and "spans.jsonl, line 3" in result.stderr
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout)["calls"]
