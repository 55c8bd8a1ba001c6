"""Adapters for protocols: OpenTelemetry spans (``otel``), ``toolscore mcp record`` session
files (``mcp``) and raw JSON-RPC 2.0 traffic (``jsonrpc``)."""

from __future__ import annotations

from typing import Any

from toolscore_adapters.protocols.jsonrpc import JsonRpcAdapter
from toolscore_adapters.protocols.mcp_session import McpSessionAdapter
from toolscore_adapters.protocols.otel import OtelAdapter

ADAPTERS: list[Any] = [OtelAdapter, McpSessionAdapter, JsonRpcAdapter]
