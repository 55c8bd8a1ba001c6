"""Reading what ``toolscore record -- CMD`` captured from the child's model API traffic.

The child side is ``site/sitecustomize.py`` (a folder of its own, put first on the child's
``PYTHONPATH``: nothing else in it may shadow a module of the user's). It writes one JSON
line per model response; this module turns those lines back into tool calls with the
public trace loader, so every API shape an adapter reads (OpenAI Chat Completions and
Responses, Anthropic Messages, Gemini) is understood without code of its own here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

#: The environment variable naming the file the child appends captured responses to.
CAPTURE_ENV = "TOOLSCORE_RECORD_CAPTURE"
#: The folder to put first on the child's PYTHONPATH (it holds only ``sitecustomize.py``).
SITE_DIR = Path(__file__).resolve().parent / "site"


@attrs.frozen
class Capture:
    """What one recording saw: the tool calls in order, and what it could not use."""

    calls: tuple[dict[str, Any], ...] = ()
    responses: int = 0  # model responses read
    streamed: int = 0  # streamed responses: seen, not captured
    unreadable: int = 0  # bodies that were not JSON or that no adapter recognised


def _plain_call(call: Any) -> dict[str, Any]:
    args = call.args if isinstance(call.args, dict) else {}
    return {"tool": str(call.tool), "args": dict(args)}


def read_capture(path: Path) -> Capture:
    """Every captured response of ``path`` as tool calls (a missing file: nothing captured)."""
    from toolscore_core import InputError, load_trace

    if not path.is_file():
        return Capture()
    calls: list[dict[str, Any]] = []
    responses = streamed = unreadable = 0
    with path.open(encoding="utf-8", errors="replace") as stream:
        for line in stream:
            try:
                record = json.loads(line)
            except ValueError:  # a line cut short by a child killed mid-write
                unreadable += 1
                continue
            if not isinstance(record, dict):
                unreadable += 1
            elif record.get("streamed"):
                streamed += 1
            elif "body" not in record:
                unreadable += 1
            else:
                try:
                    trace = load_trace(record["body"])
                except (InputError, ValueError, TypeError, KeyError, AttributeError):
                    # an adapter refusing a hostile or odd body: counted, never a crash
                    unreadable += 1
                    continue
                responses += 1
                calls.extend(_plain_call(call) for call in trace.calls)
    return Capture(calls=tuple(calls), responses=responses, streamed=streamed, unreadable=unreadable)
