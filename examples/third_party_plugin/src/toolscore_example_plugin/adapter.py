"""The ``steplog`` trace adapter: reads the step logs of a fictional agent framework.

Imported by :func:`toolscore_example_plugin.plugin.toolscore_register_adapters` only when
Toolscore asks for adapters; it needs nothing a trace reader has not loaded already.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_core import InputError, ToolCall, Trace, TraceAdapter


class StepLogAdapter(TraceAdapter):
    """Reads the "step log" that a fictional agent framework writes::

        {"steplog": 1, "steps": [{"call": "search", "input": {...}, "output": "...", "ok": true}],
         "answer": "..."}
    """

    name: ClassVar[str] = "steplog"
    description: ClassVar[str] = "step logs of the example framework (examples/third_party_plugin)"

    def detect(self, data: Any) -> float:
        if isinstance(data, dict) and data.get("steplog") == 1 and isinstance(data.get("steps"), list):
            return 1.0
        return 0.0

    def load(self, data: Any) -> Trace:
        if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
            raise InputError("is not a step log", location="$",
                             expected='{"steplog": 1, "steps": [{"call": ..., "input": {...}}]}')
        calls = []
        for i, step in enumerate(data["steps"]):
            if not isinstance(step, dict) or not isinstance(step.get("call"), str):
                raise InputError("a step needs a 'call' string", location=f"$.steps[{i}]")
            ok = step.get("ok")
            if not isinstance(step.get("input", {}), (dict, type(None))):
                raise InputError("a step's 'input' must be an object", location=f"$.steps[{i}].input")
            calls.append(
                ToolCall(
                    tool=step["call"],
                    args=dict(step.get("input") or {}),
                    result=step.get("output"),
                    is_error=None if ok is None else not ok,
                    error=None if ok in (None, True) else str(step.get("output")),
                )
            )
        return Trace(calls=calls, final_answer=data.get("answer"))
