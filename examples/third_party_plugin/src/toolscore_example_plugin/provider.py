"""The ``example-canned`` model provider: canned turns for offline tests of an agent loop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from toolscore_core import (
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    Provider,
    ToolResultMessage,
    Usage,
    estimate_request_tokens,
)


class CannedProvider(Provider):
    """A model that answers from a list of canned turns: offline tests of an agent loop.

    Each entry of ``turns`` is ``{"call": TOOL, "args": {...}}`` (ask for one tool call) or
    ``{"say": TEXT}`` (the final answer). Its settings arrive as the kernel's factory call
    passes them: ``collect(pm, "providers").create("example-canned", model="canned", turns=[...])``.
    It reports the offline token estimate as usage, so a free price gives a cost of 0, not
    an unknown cost.
    """

    name: ClassVar[str] = "example-canned"
    description: ClassVar[str] = "replays canned turns (examples/third_party_plugin)"

    def __init__(self, model: str | None = "canned", *, turns: Sequence[dict[str, Any]] = (),
                 **options: Any) -> None:
        super().__init__(model, **options)
        self.turns = list(turns)
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelTurn:
        self.requests.append(request)
        answered = sum(1 for m in request.messages if isinstance(m, ToolResultMessage))
        used = Usage(input_tokens=estimate_request_tokens(request), output_tokens=10)
        if answered >= len(self.turns):
            return ModelTurn(text="", stop_reason="end_turn", usage=used, model=self.model)
        turn = self.turns[answered]
        if "say" in turn:
            return ModelTurn(text=str(turn["say"]), stop_reason="end_turn", usage=used, model=self.model)
        call = ModelToolCall(id=f"canned-{answered + 1}", name=str(turn["call"]), arguments=dict(turn.get("args") or {}))
        return ModelTurn(tool_calls=(call,), stop_reason="tool_use", usage=used, model=self.model)
