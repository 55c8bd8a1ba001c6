"""Between the MCP server and the model: tool lists in, tool results out, both bounded.

Why this is its own module: everything a server sends is hostile text that ends up in a
model request (paid per token) and in a run row (read in a terminal). A server can send a
5 MB result, a description with terminal escape codes or a schema that is not an object;
the loop must neither crash nor forward it unbounded. So the two conversions live here,
with their limits named:

- :func:`tool_definitions`: the ``tools/list`` answer as kernel ``ToolDefinition`` objects
  (odd shapes kept as empty values, never rejected: the provider's schema translation
  decides what the API accepts);
- :func:`result_text`: a ``CallOutcome`` as the text the model reads, the text content
  blocks joined and cut at :data:`MAX_RESULT_CHARS` with a note saying how much was cut;
- :func:`record_result`: the same result as the run row keeps it (JSON-safe, bounded).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolscore_core import ToolDefinition, to_json_safe
from toolscore_core import visible as kernel_visible

#: Characters of a tool result sent back to the model (about 10,000 tokens at most).
MAX_RESULT_CHARS = 20_000
#: Characters of a tool description kept (longer ones are cut; lint reports them).
MAX_DESCRIPTION_CHARS = 4_000
#: Characters of an error message kept in a row or shown to the model.
MAX_ERROR_CHARS = 2_000


def visible(text: str) -> str:
    """``text`` with control characters (other than newline and tab) written as escapes, so
    server or model text can never move a terminal's cursor or hide itself in a log.

    The kernel's :func:`toolscore_core.visible`, not redacted (the model reads the result
    as the tool gave it) and not cut (:func:`cut` bounds it, saying how much was left out).
    """
    return kernel_visible(text, None, redacted=False, multiline=True)


def cut(text: str, limit: int) -> str:
    """``text`` limited to ``limit`` characters, with a note saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut by the harness]"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def tool_definitions(tools: Iterable[Any]) -> tuple[ToolDefinition, ...]:
    """The server's tools (``list_tools()`` dicts, or ToolDefinitions) as kernel definitions.

    Entries without a usable name are dropped (no model could call them); duplicate names
    keep the first. Descriptions are bounded and made visible.
    """
    found: dict[str, ToolDefinition] = {}
    for tool in tools:
        if isinstance(tool, ToolDefinition):
            definition = tool
        elif isinstance(tool, Mapping):
            name = tool.get("name")
            if not isinstance(name, str) or not name.strip():
                continue
            description = _text(tool.get("description"))
            schema, output = tool.get("inputSchema"), tool.get("outputSchema")
            annotations, meta = tool.get("annotations"), tool.get("_meta")
            definition = ToolDefinition(
                name=name,
                description=cut(visible(description), MAX_DESCRIPTION_CHARS) if description else description,
                input_schema=dict(schema) if isinstance(schema, Mapping) else {},
                output_schema=dict(output) if isinstance(output, Mapping) else None,
                annotations=dict(annotations) if isinstance(annotations, Mapping) else {},
                title=_text(tool.get("title")),
                meta=dict(meta) if isinstance(meta, Mapping) else {},
            )
        else:
            continue
        found.setdefault(definition.name, definition)
    return tuple(found.values())


def _block_text(block: Any) -> str | None:
    """What one content block says, as text (non-text blocks are described, not dumped)."""
    if not isinstance(block, Mapping):
        return None
    kind = block.get("type")
    if kind == "text":
        return _text(block.get("text"))
    if kind == "resource":
        resource = block.get("resource")
        if isinstance(resource, Mapping):
            text = _text(resource.get("text"))
            return text if text is not None else f"[resource {resource.get('uri', '')}]"
    if kind == "resource_link":
        return f"[resource link {block.get('uri', '')}]"
    if kind in ("image", "audio"):
        return f"[{kind} content, {block.get('mimeType', 'unknown type')}]"
    return f"[{kind} content]" if isinstance(kind, str) else None


def result_text(result: Mapping[str, Any] | None, error: str | None = None, *,
                limit: int = MAX_RESULT_CHARS) -> str:
    """The text the model gets for a tool result: text blocks joined by newlines; the
    structured content as JSON when there is no text; the error when there is no result.
    Bounded at ``limit`` characters and made visible."""
    parts: list[str] = []
    if isinstance(result, Mapping):
        content = result.get("content")
        if isinstance(content, list):
            for block in content:
                text = _block_text(block)
                if text:
                    parts.append(text)
                if sum(len(p) for p in parts) > limit:
                    break  # the rest would be cut anyway
        if not parts and result.get("structuredContent") is not None:
            try:
                parts.append(json.dumps(result["structuredContent"], ensure_ascii=False, default=str))
            except (TypeError, ValueError):
                parts.append(str(result["structuredContent"]))
    if not parts and error:
        parts.append(error)
    text = "\n".join(parts) if parts else "(the tool returned no content)"
    return cut(visible(text), limit)


def record_result(result: Any) -> Any:
    """A tool result as the run row stores it: JSON-safe, credentials redacted, bounded."""
    return to_json_safe(result, max_string=MAX_RESULT_CHARS) if result is not None else None


def error_text(message: Any, limit: int = MAX_ERROR_CHARS) -> str:
    """An error message bounded and made visible (it may come from a server or a model)."""
    return cut(visible(str(message)), limit)


__all__ = ["MAX_DESCRIPTION_CHARS", "MAX_ERROR_CHARS", "MAX_RESULT_CHARS", "cut", "error_text",
           "record_result", "result_text", "tool_definitions", "visible"]
