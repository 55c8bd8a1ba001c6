"""LangGraph: graph states and stream chunks whose messages are LangChain messages.

``graph.invoke(...)`` returns the final state ``{"messages": [...]}``; saved, it is often
``dumpd(state)`` or ``{"messages": messages_to_dict(...)}``. A list of
``stream_mode="updates"`` chunks (``{node: {"messages": [new messages]}}``) is read as the
messages in the order the nodes produced them, and a list of ``stream_mode="values"``
chunks (each a full state) as its last state. The messages themselves are read exactly
as the LangChain adapter reads them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_adapters._common import as_plain
from toolscore_adapters.providers._shapes import LANGCHAIN, list_confidence, module_style, placer
from toolscore_adapters.providers.langchain import read_messages
from toolscore_core import InputError, Trace, TraceAdapter
from toolscore_core.kernel.files import json_path


def _is_state(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("messages"), list)


def _is_update(item: Any) -> bool:
    """``{node: {"messages": [...]}}``: one key per node that ran (values may be None)."""
    return (isinstance(item, dict) and bool(item) and "messages" not in item
            and all(v is None or _is_state(v) for v in item.values()))


def _messages_style(messages: list[Any]) -> float:
    return list_confidence(messages, LANGCHAIN, neutral=0.0)


class LangGraphAdapter(TraceAdapter):
    """LangGraph states ({"messages": [...]}) and stream chunks (updates / values)."""

    name: ClassVar[str] = "langgraph"
    description: ClassVar[str] = "LangGraph: graph states and stream chunks of LangChain messages"

    def detect(self, data: Any) -> float:
        if _is_state(data):
            messages = data["messages"]
            if not messages:
                return 0.1
            return 0.95 if _messages_style(messages) == 0.9 else 0.0
        if isinstance(data, (list, tuple)) and data:
            head = list(data[:16])
            if all(_is_update(c) for c in head):
                messages = [m for c in head for v in c.values() if v for m in v["messages"]]
                return 0.85 if not messages or _messages_style(messages) == 0.9 else 0.0
            if all(_is_state(c) for c in head):
                return 0.85 if _messages_style(head[-1]["messages"]) == 0.9 else 0.0
            if module_style(data[0]) == LANGCHAIN or _messages_style(list(data)) == 0.9:
                return 0.6  # a bare message list: the langchain adapter's (0.9), ours if asked
        return 0.0

    def load(self, data: Any) -> Trace:
        data = as_plain(data) if not isinstance(data, (dict, list, tuple)) else data
        if _is_state(data):
            return read_messages(data["messages"], placer(["messages"]), self.name)
        if isinstance(data, (list, tuple)):
            items = list(data)
            if items and all(_is_update(c) for c in items):
                return self._updates(items)
            if items and all(_is_state(c) for c in items):
                return read_messages(items[-1]["messages"], placer([len(items) - 1, "messages"]), self.name)
            return read_messages(items, placer([]), self.name)
        raise InputError(
            "is not a LangGraph state or stream",
            expected='a state {"messages": [...]}, a list of stream chunks, or a list of messages',
        )

    def _updates(self, chunks: list[dict[str, Any]]) -> Trace:
        """Messages in the order the nodes produced them, each located in its chunk."""
        messages: list[Any] = []
        places: list[str] = []
        for i, chunk in enumerate(chunks):
            for node, update in chunk.items():
                if update:
                    base = json_path([i, str(node), "messages"])
                    for k, message in enumerate(update["messages"]):
                        messages.append(message)
                        places.append(f"{base}[{k}]")
        return read_messages(messages, places.__getitem__, self.name)
