"""Scoring: how a trace is measured against what the task needed.

``evaluation`` is the front door (``evaluate`` / ``evaluate_trace``); it builds one
``EvaluationContext`` per evaluation, with the ``pairing`` of expected to actual calls
(``matchers`` decide argument matches, ``assignment`` solves the pairing, ``modes`` the
order modes), and hands it to every metric. ``behaviour`` and ``secrets`` produce the
findings a score alone hides, ``contracts`` reads gold and forbidden files, ``verdict``
holds the pass-bar rule, ``assertions`` and ``fluent`` are the test-suite API.
"""
