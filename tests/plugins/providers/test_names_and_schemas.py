"""Tool-name mapping and schema translation (pure functions: what every provider sends)."""

from __future__ import annotations

import re
from typing import Any

from toolscore_providers import ToolNameMap
from toolscore_providers.schemas import wire_description, wire_schema

VALID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


def test_valid_names_stay_and_others_become_valid_unique_and_reversible():
    long_name = "x" * 80
    names = ToolNameMap(["save_note", "notes.save", "notes/save", long_name, "1st", "a b", "save-note"])
    wire = {n: names.to_wire(n) for n in ["save_note", "notes.save", "notes/save", long_name, "1st", "a b"]}
    assert wire["save_note"] == "save_note"
    assert all(VALID.match(w) for w in wire.values()), wire
    assert len(set(wire.values())) == len(wire)
    assert wire["notes.save"] != wire["notes/save"]  # sanitising alone would merge them
    assert len(wire[long_name]) <= 64
    assert wire["1st"].startswith("t_")
    assert all(names.to_mcp(w) == m for m, w in wire.items())
    assert names.to_mcp("no_such_tool") is None
    assert "save_note" not in names.renamed and names.renamed["notes.save"] == wire["notes.save"]


def test_the_mapping_is_deterministic_and_order_independent():
    a = ToolNameMap(["b.c", "a", "b_c_deadbeef"])
    b = ToolNameMap(["b_c_deadbeef", "b.c", "a"])
    assert a.as_dict() == b.as_dict()
    assert a.to_wire("b.c") == ToolNameMap(["b.c"]).to_wire("b.c")


def test_a_renamed_tool_never_takes_a_valid_name():
    taken = ToolNameMap(["a.b"]).to_wire("a.b")
    names = ToolNameMap(["a.b", taken])
    assert names.to_wire(taken) == taken
    assert names.to_wire("a.b") != taken and VALID.match(names.to_wire("a.b"))


def test_schemas_get_an_object_root_items_for_arrays_and_lose_metadata_only():
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Args",
        "type": "object",
        "properties": {
            "title": {"type": "string", "title": "The title", "minLength": 1},
            "tags": {"type": "array"},
            "nested": {"type": "object", "properties": {"xs": {"type": ["array", "null"]}}},
        },
        "required": ["title"],
    }
    out = wire_schema(schema)
    assert "$schema" not in out and "title" not in out
    assert out["properties"]["title"] == {"type": "string", "minLength": 1}  # the property named title stays
    assert out["properties"]["tags"]["items"] == {}
    assert out["properties"]["nested"]["properties"]["xs"]["items"] == {}
    assert out["required"] == ["title"]
    assert "title" in schema and "items" not in schema["properties"]["tags"]  # the original is untouched
    assert wire_schema({}) == {"type": "object", "properties": {}}
    assert wire_schema({"type": "string"}) == {"type": "object", "properties": {}}
    assert wire_schema({"properties": {"a": {}}})["type"] == "object"


def test_long_descriptions_are_cut_for_apis_with_a_limit():
    assert len(wire_description("d" * 5000)) == 1024
    assert wire_description(None) == ""
    assert len(wire_description("d" * 5000, limit=None)) == 5000
