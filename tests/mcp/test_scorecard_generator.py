"""The scenario generator: every happy-path call is valid under the tool's own schema, every
"reject" call is invalid under it, and schemas it cannot handle cost a finding, not the run."""

from __future__ import annotations

from typing import Any

import fastjsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.kernel.model import ToolDefinition
from toolscore_mcp.sample_server import TOOLS
from toolscore_mcp.scorecard.generator import (
    EDGE_KINDS,
    HAPPY_KINDS,
    UNICODE_SAMPLE,
    generate_for_tool,
)

RICH_TOOL = {
    "name": "book",
    "inputSchema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2, "maxLength": 40},
            "seats": {"type": "integer", "minimum": 1, "maximum": 9},
            "price": {"type": "number", "exclusiveMinimum": 0, "maximum": 500.5},
            "class": {"type": "string", "enum": ["economy", "business", "first"]},
            "when": {"type": "string", "format": "date-time"},
            "email": {"type": "string", "format": "email"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "vip": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "note": {"type": ["string", "null"]},
            "address": {"$ref": "#/$defs/address"},
        },
        "required": ["city", "seats", "address"],
        "additionalProperties": False,
        "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}},
                              "required": ["street"]}},
    },
}


def _validator(tool: dict[str, Any]) -> Any:
    return fastjsonschema.compile(tool["inputSchema"])


def _valid(validate: Any, args: dict[str, Any]) -> bool:
    try:
        validate(args)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def test_every_kind_is_generated_for_a_rich_schema() -> None:
    generated = generate_for_tool(RICH_TOOL)
    assert generated.findings == ()
    happy_kinds = {s.kind for s in generated.happy}
    edge_kinds = {s.kind for s in generated.edge}
    assert happy_kinds == set(HAPPY_KINDS)
    assert edge_kinds == set(EDGE_KINDS)
    enum_values = {s.args["class"] for s in generated.happy if s.kind == "enum_value" and "class" in s.args}
    assert {"business", "first"} <= enum_values
    assert any(s.args.get("vip") is False for s in generated.happy if s.kind == "enum_value")
    boundary_max = next(s for s in generated.happy if s.kind == "boundary_max")
    assert boundary_max.args["seats"] == 9 and len(boundary_max.args["city"]) == 40
    assert any(s.args.get("city") == UNICODE_SAMPLE for s in generated.edge if s.kind == "unicode")
    assert any(len(str(s.args.get("city", ""))) == 100_000 for s in generated.edge if s.kind == "huge_string") is False
    # city has a maxLength, so no huge string for it; 'note' (nullable string) gets one
    assert any(len(str(s.args.get("note", ""))) == 100_000 for s in generated.edge if s.kind == "huge_string")


@pytest.mark.parametrize("tool", [RICH_TOOL, *[dict(t) for t in TOOLS]], ids=lambda t: t["name"])
def test_happy_scenarios_are_valid_and_reject_scenarios_are_invalid(tool: dict[str, Any]) -> None:
    validate = _validator(tool)
    generated = generate_for_tool(tool)
    assert generated.happy, "a supported schema always has a happy path"
    for scenario in generated.happy:
        assert scenario.expect == "success"
        assert _valid(validate, scenario.args), (scenario.kind, scenario.args)
    for scenario in generated.edge:
        if scenario.expect == "reject":
            assert not _valid(validate, scenario.args), (scenario.kind, scenario.args)


def test_unknown_property_must_be_rejected_only_when_the_schema_is_closed() -> None:
    closed = generate_for_tool(RICH_TOOL)
    assert next(s for s in closed.edge if s.kind == "unknown_property").expect == "reject"
    sample = generate_for_tool(TOOLS[0])  # no additionalProperties: extra keys are allowed
    assert next(s for s in sample.edge if s.kind == "unknown_property").expect == "answer"


def test_untyped_property_gets_no_wrong_type_case_and_null_only_needs_an_answer() -> None:
    delete_note = next(t for t in TOOLS if t["name"] == "delete_note")
    generated = generate_for_tool(delete_note)
    wrong = [s for s in generated.edge if s.kind == "wrong_type"]
    assert [list(s.args) for s in wrong] == [["note_id", "purge"]]
    assert wrong[0].args["purge"] == "not a boolean"
    nulls = {next(k for k, v in s.args.items() if v is None): s.expect for s in generated.edge if s.kind == "null_value"}
    assert nulls == {"note_id": "answer", "purge": "reject"}


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"mode": {"type": "string", "enum": []}}, "empty enum"),
        ({"mode": {"$ref": "#/$defs/nowhere"}}, "points nowhere"),
        ({"mode": {"$ref": "https://example.com/schema.json"}}, "only local references"),
        ({"mode": {"type": "integer", "minimum": 0.2, "maximum": 0.8}}, "empty range"),
        ({"mode": {"type": "integer", "minimum": 1, "maximum": 0}}, "empty range"),
        ({"mode": {"type": "string", "pattern": "^[0-9]{12}$"}}, "no sample value matches"),
        ({"mode": {"type": "string", "pattern": "(unclosed"}}, "invalid pattern"),
        ({"mode": {"not": {"type": "string"}}}, "'not'"),
        ({"mode": {"oneOf": []}}, "empty oneOf"),
        ({"mode": {"type": "string", "minLength": 5, "maxLength": 2}}, "below minLength"),
    ],
)
def test_unsupported_schema_costs_a_finding_never_the_run(schema: dict[str, Any], needle: str) -> None:
    tool = {"name": "odd", "inputSchema": {"type": "object", "properties": {**schema, "ok": {"type": "string"}},
                                           "required": ["mode"]}}
    generated = generate_for_tool(tool)
    assert len(generated.findings) == 1
    finding = generated.findings[0]
    assert finding.code == "scenario-unsupported-schema" and finding.tool == "odd"
    assert needle in finding.message and "'mode'" in finding.message
    assert generated.happy == ()  # 'mode' is required: no valid call can be built
    assert any(s.kind == "missing_required" for s in generated.edge)  # edge cases still run


def test_one_of_and_any_of_take_a_usable_branch() -> None:
    tool = {"name": "pick", "inputSchema": {"type": "object", "properties": {
        "a": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 3}]},
        "b": {"oneOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "integer"}]}}, "required": ["a", "b"]}}
    generated = generate_for_tool(tool)
    assert generated.findings == ()
    first = generated.happy[0]
    assert first.args == {"a": 3, "b": "x"}


def test_broken_root_schema_is_one_finding() -> None:
    tool = ToolDefinition(name="bad", input_schema={"$ref": "#/nowhere"})
    generated = generate_for_tool(tool)
    assert generated.happy == () and generated.edge == ()
    assert "the input schema" in generated.findings[0].message


def test_budget_takes_half_happy_half_edge_and_varies_kinds() -> None:
    generated = generate_for_tool(RICH_TOOL)
    chosen = generated.select(6)
    assert [s.category for s in chosen] == ["happy"] * 3 + ["edge"] * 3
    assert len({s.kind for s in chosen[:3]}) == 3 and len({s.kind for s in chosen[3:]}) == 3
    assert len(generated.select(None)) == len(generated.happy) + len(generated.edge)
    no_args = generate_for_tool({"name": "ping", "inputSchema": {"type": "object"}})
    assert [s.kind for s in no_args.select(6)] == ["required_only", "unknown_property"]


def test_sample_server_tools_get_three_happy_and_three_edge_scenarios() -> None:
    for tool in TOOLS:
        chosen = generate_for_tool(tool).select(6)
        assert [s.category for s in chosen].count("happy") == 3, tool["name"]
        assert [s.category for s in chosen].count("edge") == 3, tool["name"]


_leaf = st.one_of(
    st.fixed_dictionaries({"type": st.just("string")}, optional={
        "minLength": st.integers(0, 5), "maxLength": st.integers(5, 30)}),
    st.fixed_dictionaries({"type": st.just("string"), "format": st.sampled_from(["date-time", "email", "uri", "uuid"])}),
    st.fixed_dictionaries({"type": st.just("integer")}, optional={
        "minimum": st.integers(-50, 0), "maximum": st.integers(1, 50)}),
    st.fixed_dictionaries({"type": st.just("number")}, optional={
        "minimum": st.floats(-10, 0), "maximum": st.floats(1, 10)}),
    st.fixed_dictionaries({"type": st.just("boolean")}),
    st.fixed_dictionaries({"enum": st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=4,
                                            unique=True)}),
    st.fixed_dictionaries({"type": st.just("array"), "items": st.just({"type": "integer"})},
                          optional={"minItems": st.integers(0, 3)}),
)


@settings(max_examples=30, deadline=None)
@given(props=st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _leaf, min_size=1, max_size=4),
       data=st.data())
def test_generated_scenarios_respect_random_schemas(props: dict[str, Any], data: st.DataObject) -> None:
    required = data.draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": props, "required": required,
                                         "additionalProperties": data.draw(st.booleans())}}
    validate = _validator(tool)
    generated = generate_for_tool(tool)
    assert generated.findings == ()
    for scenario in generated.happy:
        assert _valid(validate, scenario.args), (scenario.kind, scenario.args)
    for scenario in generated.edge:
        if scenario.expect == "reject":
            assert not _valid(validate, scenario.args), (scenario.kind, scenario.args)


@pytest.mark.parametrize("prop", [
    {"type": "integer", "minimum": 0.5, "maximum": 3.7},
    {"type": "integer", "maximum": 0},
    {"type": "number", "exclusiveMaximum": 0},
    {"type": "number", "exclusiveMinimum": 1.5, "exclusiveMaximum": 2.5},
    {"type": "integer", "minimum": 7, "maximum": 7},
])
def test_odd_but_satisfiable_bounds_are_handled_without_a_finding(prop: dict[str, Any]) -> None:
    tool = {"name": "n", "inputSchema": {"type": "object", "properties": {"x": prop}, "required": ["x"]}}
    validate = _validator(tool)
    generated = generate_for_tool(tool)
    assert generated.findings == ()
    assert generated.happy and all(_valid(validate, s.args) for s in generated.happy)
    assert any(s.kind == "out_of_range" for s in generated.edge)
    assert all(not _valid(validate, s.args) for s in generated.edge if s.expect == "reject")
