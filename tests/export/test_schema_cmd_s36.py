"""``toolscore export schema``: the run record's JSON Schema as shipped, for an importer's own
validator or code generator, without looking for it in site-packages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema

from toolscore_export import export_runs

SHIPPED = Path(__file__).resolve().parents[2] / "toolscore_export/src/toolscore_export/schemas/run-record-v1.schema.json"


def cli(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLSCORE_DEBUG"}
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *map(str, args)], capture_output=True,
                          env=env, timeout=120)


def test_the_schema_printed_is_the_shipped_file_byte_for_byte_and_checks_records(tmp_path, make_row, rows_file):
    done = cli("export", "schema")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout == SHIPPED.read_bytes()
    schema = json.loads(done.stdout)
    runs = rows_file(tmp_path / "runs.jsonl", [make_row()])
    export_runs([runs], tmp_path / "out.jsonl")
    record = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(record)
    record["outcome"] = "maybe"
    assert list(jsonschema.Draft7Validator(schema).iter_errors(record))


def test_the_schema_path_names_the_installed_file():
    done = cli("export", "schema", "--path")
    assert done.returncode == 0
    path = Path(done.stdout.decode().strip())
    assert path.name == "run-record-v1.schema.json" and path.read_bytes() == SHIPPED.read_bytes()


def test_the_groups_help_shows_the_command():
    done = cli("export", "--help")
    assert b"toolscore export schema > run-record-v1.schema.json" in done.stdout and b"  schema  " in done.stdout
