"""``expect(agent_or_trace)``: the tool-call test that reads like the requirement.

::

    expect(agent).on("book me a flight to NYC") \\
        .calls("search_flights", origin=ANY, destination="NYC") \\
        .then_calls("book_flight", flight_id=Regex(r"FL-\\d+")) \\
        .does_not_call("cancel_booking") \\
        .with_score(0.9) \\
        .run()

Each step adds to the expectation and returns that same builder, as tool-scorer 1.10.0's
does, so ``e = expect(agent).on(p); e.calls("x"); e.run()`` checks ``x`` (a step whose
result is dropped must not be silently lost). To extend one base in several tests, take
``base.copy()`` first. A chain with no expectation passes (there is nothing to miss);
``.with_score()`` or ``.does_not_call()`` give it something to check. ``.calls("tool")`` with no
keyword arguments checks only that the tool was called; keyword arguments are checked
(plain values exactly, matchers as they say). ``.run()`` raises
:class:`~toolscore_core.scoring.assertions.ToolscoreAssertionError` with the same table as
``assert_tools`` and returns the :class:`~toolscore_core.kernel.model.Evaluation` otherwise.
"""

from __future__ import annotations

import inspect
from typing import Any

import attrs

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import Evaluation, ExpectedCall, ForbiddenRule, Trace
from toolscore_core.scoring.assertions import DEFAULT_MIN_SCORE, check

_UNSET: Any = object()


@attrs.define
class Expectation:
    """What the agent (or a recorded trace) must do; built step by step, checked by ``run``."""

    subject: Any
    prompt: Any = _UNSET
    expected: tuple[ExpectedCall, ...] = ()
    forbidden: tuple[ForbiddenRule, ...] = ()
    min_score: float | None = None
    options: dict[str, Any] = attrs.field(factory=dict)

    # -- building -------------------------------------------------------------------------
    def on(self, prompt: Any) -> Expectation:
        """The input the agent is run with."""
        self.prompt = prompt
        return self

    def calls(self, tool: str, /, **args: Any) -> Expectation:
        """The agent calls ``tool``; listed keyword arguments are checked, others are not."""
        return self._add(tool, args)

    def then_calls(self, tool: str, /, **args: Any) -> Expectation:
        """The agent calls ``tool`` next. Expected calls are always an ordered list (order
        counts through sequence accuracy, or the mode given with ``with_options``), so this
        is ``calls`` under a name that reads in that order; it may start a chain too."""
        return self._add(tool, args)

    def does_not_call(self, tool: str | None, /, **args: Any) -> Expectation:
        """The agent must never call ``tool`` (with these arguments, when given)."""
        if tool is not None and (not isinstance(tool, str) or not tool):
            raise InputError(f"does_not_call() needs a tool name, not {tool!r}")
        rule = ForbiddenRule(tool=tool, args=args or None, reason="forbidden by does_not_call()")
        self.forbidden = (*self.forbidden, rule)
        return self

    def with_score(self, min_score: float) -> Expectation:
        """The lowest acceptable score, in [0, 1] (default 0.9 when calls are expected)."""
        if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0 <= min_score <= 1:
            raise InputError(f"with_score() needs a number between 0 and 1, not {min_score!r}")
        self.min_score = float(min_score)
        return self

    def with_weights(self, **weights: float) -> Expectation:
        """Re-weight metrics for this check (``redundancy=0.5``); checked when it runs."""
        return self.with_options(weights={**self.options.get("weights", {}), **weights})

    def with_strict_args(self, strict: bool = True) -> Expectation:
        """Plain expected numbers must also have the same type (``1`` is not ``1.0``)."""
        return self.with_options(strict=strict)

    def with_options(self, **evaluate_kwargs: Any) -> Expectation:
        """Extra arguments for :func:`toolscore.evaluate` (``mode=``, ``weights=``, ``format=``)."""
        self.options = {**self.options, **evaluate_kwargs}
        return self

    def copy(self) -> Expectation:
        """An independent copy, to extend one shared base in several tests."""
        return attrs.evolve(self, options=dict(self.options))

    def _add(self, tool: str, args: dict[str, Any]) -> Expectation:
        if not isinstance(tool, str) or not tool:
            raise InputError(f"a tool name must be a non-empty string, not {tool!r}")
        call = ExpectedCall(tool=tool, args=dict(args) if args else None)
        self.expected = (*self.expected, call)
        return self

    # -- checking -------------------------------------------------------------------------
    def _bar(self) -> float | None:
        if self.min_score is not None:
            return self.min_score
        # With only does_not_call() rules there is nothing to score: only the rules count.
        return DEFAULT_MIN_SCORE if self.expected else None

    def _is_agent(self) -> bool:
        return callable(self.subject) and not isinstance(self.subject, (Trace, list, tuple, dict))

    def _response(self) -> Any:
        if not self._is_agent():
            if self.prompt is not _UNSET:
                raise InputError("on(prompt) was given but expect() received a trace, not an agent",
                                 hint="Pass the agent callable to expect(), or drop .on(...)")
            return self.subject
        if self.prompt is _UNSET:
            raise InputError("expect(agent) needs .on(prompt) to know what to ask the agent")
        from toolscore_core.scoring.preflight import check_before_calling

        # every option checked before the (possibly paid) agent call, as test_agent does
        check_before_calling(self.subject, list(self.expected), self._bar(), self.options)
        return self.subject(self.prompt)

    def _check(self, response: Any) -> Evaluation:
        from toolscore_core.scoring.evaluation import evaluate

        bar = self._bar()
        evaluation = evaluate(list(self.expected), response, forbidden=list(self.forbidden) or None,
                              min_score=bar, **self.options)
        return check(evaluation, bar)

    def run(self) -> Evaluation:
        """Run the agent (if any), evaluate, and raise on failure; returns the Evaluation."""
        response = self._response()
        if inspect.isawaitable(response):
            if inspect.iscoroutine(response):
                response.close()
            raise TypeError("the agent is async: use `await expect(agent)...run_async()`")
        return self._check(response)

    async def run_async(self) -> Evaluation:
        """:meth:`run` for async agents (sync agents and traces work too)."""
        response = self._response()
        if inspect.isawaitable(response):
            response = await response
        return self._check(response)


def expect(agent_or_trace: Any) -> Expectation:
    """Start an expectation about an agent (a callable) or a trace it already produced."""
    return Expectation(subject=agent_or_trace)


__all__ = ["Expectation", "expect"]
