"""toolscore-judge: the optional LLM judge for semantic matching of tool names and arguments."""

from __future__ import annotations

__version__ = "0.1.0"
