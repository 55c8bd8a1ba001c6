"""A structural fast path for the run-row schema: "surely valid", or "ask the validator".

Why: checking a row with the kernel's compiled schema validator (fastjsonschema) costs about
45 µs, a quarter of an export's time per record, for rows that are almost always exactly
what the harness wrote. :func:`surely_valid` is the same schema written out by hand as plain
type tests, several times cheaper. It is one-sided on purpose: it answers True only for a
row the schema accepts, and for anything unusual (a float where an integer is allowed, a
tuple, a key it does not expect) it answers False and the caller runs the real validator,
which either accepts the row or raises the kernel's own error naming the line and field.
So the fast path can make a valid row cheaper, never let a bad row through and never change
an error. A differential test (tests/export/test_row_check.py) checks it against the
kernel's validator over many mutated rows.

Each test below mirrors one rule of the shipped ``run-row.schema.json``: integers are exact
``int`` (never ``bool``), numbers ``int``/``float``, ``minimum`` and ``minLength`` as the
schema states, the ``id`` pattern as "non-empty and no ``::``", and the cell id, timestamps
and environment names by the very regular expressions fastjsonschema applies.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

_ROW_KEYS = frozenset({
    "run_record_version", "toolscore_version", "cell_id", "task_id", "arm_id", "repetition", "order", "seed",
    "study", "provider", "model", "status", "outcome", "passed", "error", "started_at", "finished_at", "turns",
    "usage", "cost_usd", "price", "server", "final_answer", "calls", "guard_denials", "evaluation", "extra"})
_REQUIRED = ("run_record_version", "cell_id", "task_id", "arm_id", "repetition", "status", "outcome", "passed",
             "calls")
_CALL_KEYS = frozenset({"id", "tool", "provider_name", "args", "result", "structured", "is_error", "error",
                        "duration", "denied", "deny_reason"})
_DENIAL_KEYS = frozenset({"call_id", "tool", "args", "reason"})
_USAGE_KEYS = frozenset({"input_tokens", "output_tokens", "cached_tokens"})
_PRICE_KEYS = frozenset({"input_per_million", "output_per_million", "cached_input_per_million", "source"})
_SERVER_TEXT = ("transport", "url", "name", "version", "protocol_version", "era")
_SERVER_KEYS = frozenset({*_SERVER_TEXT, "command", "env_names", "build_check"})
_STATUSES = frozenset({"completed", "limit_reached", "budget_stopped", "error"})
_OUTCOMES = frozenset({"pass", "fail", "error", "unknown"})
_NUMBER = (int, float)
# A value's exact type looked up in a set: the same test as ``value is None or type(value) is str``
# without a function call, which is most of what checking a row costs (a row has two dozen such tests).
_TEXT = frozenset({str, type(None)})
_FLAG = frozenset({bool, type(None)})
_REQUIRED_KEYS = frozenset(_REQUIRED)


@functools.lru_cache(maxsize=1)
def _patterns() -> tuple[Callable[[str], Any], Callable[[str], Any]]:
    """(cell id search, date-time match): the schema's own pattern and format, as fastjsonschema applies them."""
    from fastjsonschema.draft04 import DOLLAR_FINDER, CodeGeneratorDraft04

    from toolscore_core.kernel.runs import run_row_schema

    # fastjsonschema reads a pattern's "$" as the end of the text (no newline before it)
    cell = re.compile(DOLLAR_FINDER.sub(r"\\Z", run_row_schema()["properties"]["cell_id"]["pattern"])).search
    date_time = re.compile(CodeGeneratorDraft04.FORMAT_REGEXS["date-time"]).match
    return cell, date_time


def _text(value: Any) -> bool:
    return value is None or type(value) is str


def _money(value: Any) -> bool:
    return value is None or (type(value) in _NUMBER and value >= 0)


def _id(value: Any) -> bool:
    return type(value) is str and value != "" and "::" not in value


def _timestamp(value: Any, date_time: Callable[[str], Any]) -> bool:
    return value is None or (type(value) is str and date_time(value) is not None)


def _call(call: Any) -> bool:
    if type(call) is not dict or not call.keys() <= _CALL_KEYS:
        return False
    get = call.get
    tool, args, duration = get("tool"), get("args"), get("duration")
    return (type(tool) is str and tool != ""
            and type(get("id")) in _TEXT and type(get("provider_name")) in _TEXT and type(get("error")) in _TEXT
            and type(get("deny_reason")) in _TEXT and (args is None or type(args) is dict)
            and type(get("is_error")) in _FLAG
            and (duration is None or (type(duration) in _NUMBER and duration >= 0))
            and type(get("denied", False)) is bool)


def _denial(denial: Any) -> bool:
    if type(denial) is not dict or not denial.keys() <= _DENIAL_KEYS or "reason" not in denial:
        return False
    tool, args = denial.get("tool"), denial.get("args")
    return (type(tool) is str and tool != "" and _text(denial["reason"]) and _text(denial.get("call_id"))
            and (args is None or type(args) is dict))


def _usage(usage: Any) -> bool:
    if type(usage) is not dict or not usage.keys() <= _USAGE_KEYS:
        return False
    for value in usage.values():
        if value is not None and (type(value) is not int or value < 0):
            return False
    return True


def _price(price: Any) -> bool:
    if price is None:
        return True
    if type(price) is not dict or not price.keys() <= _PRICE_KEYS:
        return False
    return (_money(price.get("input_per_million", ...)) and price.get("input_per_million") is not None
            and _money(price.get("output_per_million", ...)) and price.get("output_per_million") is not None
            and _money(price.get("cached_input_per_million")) and _text(price.get("source")))


def _server(server: Any) -> bool:
    if server is None:
        return True
    if type(server) is not dict or not server.keys() <= _SERVER_KEYS:
        return False
    if not all(_text(server.get(key)) for key in _SERVER_TEXT):
        return False
    command = server.get("command")
    if command is not None and (type(command) is not list or not all(type(a) is str for a in command)):
        return False
    if "env_names" in server:
        names = server["env_names"]
        if type(names) is not list or not all(type(n) is str and n != "" and "=" not in n for n in names):
            return False
    check = server.get("build_check")
    return check is None or type(check) is dict


def surely_valid(row: Any) -> bool:
    """True only when the run-row schema accepts ``row``; False means "run the validator"."""
    if type(row) is not dict:
        return False
    keys = row.keys()
    if not (keys <= _ROW_KEYS and keys >= _REQUIRED_KEYS):
        return False
    cell_search, date_time = _patterns()
    get = row.get
    cell = row["cell_id"]
    repetition = row["repetition"]
    order, seed, turns, cost = get("order"), get("seed"), get("turns"), get("cost_usd")
    started, finished = get("started_at"), get("finished_at")
    if not (row["run_record_version"] == "1" and type(row["run_record_version"]) is str
            and type(cell) is str and cell_search(cell) is not None
            and _id(row["task_id"]) and _id(row["arm_id"])
            and type(repetition) is int and repetition >= 1
            and (order is None or (type(order) is int and order >= 1))
            and (seed is None or type(seed) is int)
            and type(row["status"]) is str and row["status"] in _STATUSES
            and type(row["outcome"]) is str and row["outcome"] in _OUTCOMES
            and type(row["passed"]) is bool
            and type(get("toolscore_version")) in _TEXT and type(get("study")) in _TEXT
            and type(get("provider")) in _TEXT and type(get("model")) in _TEXT and type(get("error")) in _TEXT
            and type(get("final_answer")) in _TEXT
            and (started is None or _timestamp(started, date_time))
            and (finished is None or _timestamp(finished, date_time))
            and (turns is None or (type(turns) is int and turns >= 0))
            and (cost is None or (type(cost) in _NUMBER and cost >= 0))):
        return False
    if "usage" in row and not _usage(row["usage"]):
        return False
    if not (_price(row.get("price")) and _server(row.get("server"))):
        return False
    evaluation = row.get("evaluation")
    if evaluation is not None and type(evaluation) is not dict:
        return False
    if "extra" in row and type(row["extra"]) is not dict:
        return False
    calls = row["calls"]
    if type(calls) is not list:
        return False
    for call in calls:
        if not _call(call):
            return False
    if "guard_denials" in row:
        denials = row["guard_denials"]
        if type(denials) is not list or not all(_denial(d) for d in denials):
            return False
    return True


__all__ = ["surely_valid"]
