"""MCP input schemas made acceptable to the model APIs, without changing what they mean.

Why a copy is translated and never the original: the MCP server validates arguments
against its own schema, so the harness keeps that one; what the API receives only has to be
accepted and to guide the model. The defects handled here are the ones real servers ship
and the APIs reject: a root that is not an object, an array without ``items`` (OpenAI
refuses it even in non-strict mode) and metadata keywords the APIs do not need.

Tools are sent non-strict (``strict: false``) to OpenAI: strict mode would force every
optional argument to become a required nullable one, so the model would send explicit
nulls the MCP server never asked for. Anthropic gets the cleaned schema as it is.
"""

from __future__ import annotations

import copy
from typing import Any

#: Keywords dropped everywhere in a schema: documentation for humans, not constraints.
_METADATA = ("$schema", "$id", "$comment", "title", "examples")
#: OpenAI rejects descriptions over this length (reported for function tools).
MAX_DESCRIPTION = 1024
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def _clean(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k not in _METADATA}
    for key in _SUBSCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            # Property NAMES are data here, so "title" as a property survives.
            out[key] = {name: _clean(sub) for name, sub in out[key].items()}
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_clean(sub) for sub in out[key]]
    for key in _SUBSCHEMA_ONE:
        if isinstance(out.get(key), dict):
            out[key] = _clean(out[key])
    types = out.get("type")
    is_array = types == "array" or (isinstance(types, list) and "array" in types)
    if is_array and "items" not in out and "prefixItems" not in out:
        out["items"] = {}
    return out


def wire_schema(schema: Any) -> dict[str, Any]:
    """An object schema the APIs accept for ``schema`` (an MCP ``inputSchema``).

    A missing or non-object root becomes an object with no declared properties (the
    model may then send none); a root that is an object keeps every constraint it has.
    """
    if not isinstance(schema, dict) or not schema:
        return {"type": "object", "properties": {}}
    out = _clean(copy.deepcopy(schema))
    root_type = out.get("type")
    if root_type != "object":
        if root_type is None and ("properties" in out or not any(
                k in out for k in ("anyOf", "oneOf", "allOf"))):
            out["type"] = "object"
        else:
            return {"type": "object", "properties": {}}
    if not isinstance(out.get("properties", {}), dict):
        out["properties"] = {}
    out.setdefault("properties", {})
    return out


def wire_description(description: str | None, *, limit: int | None = MAX_DESCRIPTION) -> str:
    """The tool description, cut to ``limit`` characters when the API has a limit."""
    text = description or ""
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
