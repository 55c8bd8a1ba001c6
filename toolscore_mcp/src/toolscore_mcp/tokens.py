"""How many tokens a tool definition or a server's instructions cost a model, estimated.

Every tool definition is sent to the model on every turn, so its size is a running cost.
Real tokenizers differ by model and need downloads, so Toolscore uses one deterministic,
offline rule that is close enough to rank tools and track growth in CI:

- the object is serialised as compact JSON (``separators=(",", ":")``, non-ASCII kept), a
  string is taken as it is;
- ASCII characters cost 1 token per 4 characters (the usual English/JSON average of
  BPE tokenizers), rounded up;
- every non-ASCII character costs 1 token (CJK, emoji and accented letters are rarely
  merged with their neighbours).

The number is an estimate, labelled "~tokens" in reports; never a bill.
"""

from __future__ import annotations

import json
import math
from typing import Any

ASCII_CHARS_PER_TOKEN = 4


def _text_of(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    if hasattr(obj, "__attrs_attrs__"):
        from toolscore_core.kernel.model import to_json_data

        obj = to_json_data(obj)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False, default=str)


def estimate_tokens(obj: Any) -> int:
    """Estimated tokens of ``obj``: a tool definition dict, a ToolDefinition, a list of
    them, or a string such as a server's instructions. ``None`` and ``""`` cost 0."""
    if obj is None:
        return 0
    text = _text_of(obj)
    non_ascii = sum(1 for char in text if ord(char) > 127)
    ascii_chars = len(text) - non_ascii
    return math.ceil(ascii_chars / ASCII_CHARS_PER_TOKEN) + non_ascii


__all__ = ["ASCII_CHARS_PER_TOKEN", "estimate_tokens"]
