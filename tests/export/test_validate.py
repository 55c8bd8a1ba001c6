"""validate_record and `toolscore export validate`: tampering with any field, line or the manifest is caught."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import toolscore.export
from toolscore_core import InputError, RunWriter
from toolscore_export import export_runs, record_schema, validate_record

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("TOOLSCORE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


@pytest.fixture
def exported(tmp_path, make_row) -> Path:
    with RunWriter(tmp_path / "runs.jsonl") as writer:
        writer.write(make_row())
        writer.write(make_row(arm="sloppy", outcome="fail", cost_usd=None))
    out = tmp_path / "records.jsonl"
    export_runs([tmp_path / "runs.jsonl"], out)
    return out


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_schema_ships_in_both_packages_and_is_the_same_file():
    export_copy = ROOT / "toolscore_export/src/toolscore_export/schemas/run-record-v1.schema.json"
    facade_copy = ROOT / "toolscore_core/src/toolscore/schemas/run-record-v1.schema.json"
    assert export_copy.read_bytes() == facade_copy.read_bytes()
    assert json.loads(facade_copy.read_text())["$schema"] == "http://json-schema.org/draft-07/schema#"
    from importlib import resources

    shipped = resources.files("toolscore").joinpath("schemas").joinpath("run-record-v1.schema.json")
    assert json.loads(shipped.read_text(encoding="utf-8")) == record_schema()


def test_records_validate_with_the_reference_validator_under_the_stated_draft(exported):
    schema = record_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    for record in records_of(exported):
        assert list(validator.iter_errors(record)) == []
        validate_record(record)  # fastjsonschema + hashes


def test_the_facade_name_is_the_same_function():
    assert toolscore.export.validate_record is validate_record


def leaves(value, path=()):
    """Every (path, leaf) of a JSON value, to tamper with each one."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return "was null"
    return ["changed"]


def test_tampering_with_any_single_field_is_caught(exported):
    record = records_of(exported)[0]
    paths = [p for p, _ in leaves(record)]
    assert len(paths) > 60
    for path, value in leaves(record):
        bad = copy.deepcopy(record)
        node = bad
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = changed(value)
        with pytest.raises(InputError):
            validate_record(bad)


def test_the_broken_field_is_named(exported):
    record = records_of(exported)[0]
    bad = copy.deepcopy(record)
    bad["completed_calls"][0]["status"] = "fine"
    with pytest.raises(InputError) as info:
        validate_record(bad)
    assert info.value.location == "$.completed_calls[0].status"

    bad = copy.deepcopy(record)
    bad["requested_calls"][1]["args"]["title"] = "new"
    with pytest.raises(InputError) as info:
        validate_record(bad)
    assert info.value.location == "$.requested_calls[1].args"

    bad = copy.deepcopy(record)
    bad["outcome"] = "fail"
    with pytest.raises(InputError) as info:
        validate_record(bad)
    assert info.value.location == "$.hashes.record_sha256"

    bad = copy.deepcopy(record)
    bad["surprise"] = 1
    with pytest.raises(InputError) as info:
        validate_record(bad)
    assert info.value.location == "$.surprise"


def test_cli_validate_passes_an_intact_file(exported):
    result = cli("export", "validate", exported.name, cwd=exported.parent)
    assert result.returncode == 0, result.stderr
    assert "2 record(s) valid; manifest matches" in result.stdout


def test_cli_validate_names_a_tampered_line(exported):
    lines = exported.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace('"outcome":"fail"', '"outcome":"pass"')
    exported.write_text("".join(lines), encoding="utf-8")
    result = cli("export", "validate", exported.name, cwd=exported.parent)
    assert result.returncode == 1
    assert "line 2, $.hashes.record_sha256" in result.stderr
    assert "$.output.sha256" in result.stderr  # the manifest no longer matches the bytes either


@pytest.mark.parametrize("edit", ["drop", "duplicate", "reorder", "cut"])
def test_cli_validate_catches_removed_added_reordered_and_cut_lines(exported, edit):
    lines = exported.read_bytes().splitlines(keepends=True)
    if edit == "drop":
        lines = lines[:1]
    elif edit == "duplicate":
        lines = [*lines, lines[0]]
    elif edit == "reorder":
        lines = lines[::-1]
    else:
        lines[-1] = lines[-1][:-40]
    exported.write_bytes(b"".join(lines))
    result = cli("export", "validate", exported.name, cwd=exported.parent)
    assert result.returncode == 1, result.stdout
    assert "manifest, $.output.sha256" in result.stderr
    if edit == "cut":
        assert "line 2" in result.stderr
    if edit == "duplicate":
        assert "line 3, $.run_id" in result.stderr


def test_cli_validate_catches_an_edited_or_missing_manifest(exported):
    manifest = exported.with_name(exported.name + ".manifest.json")
    data = json.loads(manifest.read_text())
    data["sources"][0]["sha256"] = "0" * 64
    manifest.write_text(json.dumps(data))
    result = cli("export", "validate", exported.name, cwd=exported.parent)
    assert result.returncode == 1 and "manifest, $.manifest_sha256" in result.stderr
    manifest.unlink()
    result = cli("export", "validate", exported.name, cwd=exported.parent)
    assert result.returncode == 1 and "records.jsonl.manifest.json is missing" in result.stderr
    assert cli("export", "validate", exported.name, "--no-manifest", cwd=exported.parent).returncode == 0


def test_cli_validate_unreadable_input_is_exit_2_without_a_traceback(tmp_path):
    result = cli("export", "validate", "nope.jsonl", cwd=tmp_path)
    assert result.returncode == 2
    assert "nope.jsonl: file not found" in result.stderr and "Traceback" not in result.stderr
