"""export._is_output_known (one stat a source) against the rule it stands for, on files, links, loops and missing paths
(issue 11)."""

from __future__ import annotations

from pathlib import Path

from tests.export.test_same_file import maze, outcome
from toolscore_export import export as export_module
from toolscore_export.same_file import file_id, file_info, may_be


def rule(source: Path, target: Path, target_id) -> bool:
    return source.exists() and may_be(source, target_id) and source.resolve() == target


def is_output(source: Path, target: Path, target_id) -> bool:
    """The check as the export makes it: the source's stat taken once, then handed on."""
    return export_module._is_output_known(source, target, target_id, file_info(source))


def test_is_output_is_the_rule_for_every_pair_of_paths(tmp_path):
    paths = maze(tmp_path)
    compared = matched = 0
    for output in paths:
        if not output.exists():
            continue
        target, target_id = output.resolve(), file_id(output)
        for given_id in (target_id, None):  # None: the output's id could not be read
            for source in paths:
                expected = outcome(rule, source, target, given_id)
                assert outcome(is_output, source, target, given_id) == expected, (source, output)
                compared += 1
                matched += expected == ("value", True)
    assert compared > 100 and matched > 10


def test_a_path_given_is_used_as_it_is_and_a_text_is_made_a_path(tmp_path):
    source = tmp_path / "t.json"
    source.write_bytes((Path(__file__).resolve().parents[1] / "adapters" / "fixtures" / "otel"
                        / "mcp_spans.json").read_bytes())
    by_path = export_module.export_runs([source], tmp_path / "a.jsonl")
    by_text = export_module.export_runs([str(source)], tmp_path / "b.jsonl")
    assert by_path.records == by_text.records == 1
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert by_path.manifest["sources"] == by_text.manifest["sources"]
