"""MCP lint: rules are plugins (``toolscore_register_lint_rules``); this package holds the
built-in ones, the runner and the report formats.

Use from other code (the scorecard's "lint %" comes from here)::

    from toolscore_mcp.lint.runner import lint_server

    result = lint_server(server_definition)        # every installed rule, default severities
    result.score        # float in [0, 1]; formula in toolscore_mcp.lint.runner
    result.counts       # {"error": 1, "warning": 1, "info": 0}
    result.findings     # sorted Findings: severity, code (rule id), tool, message, fix
    result.summary()    # "93% (1 errors, 1 warnings)"

``lint_server(server, rules=[...])`` runs a given list instead of the registry, and
``plugin_manager=pm`` picks the manager the rules are collected from. Modules:

- ``rules.py`` (``builtin_rules()``) and ``rules_*.py``: the built-in rules by theme;
- ``runner.py``: ``lint_server``, ``LintResult``, the lint score;
- ``config.py``: disabling rules and changing severities (file and flags);
- ``baseline.py``: known findings, so CI fails only on new ones;
- ``saved.py``: a saved ``tools/list`` result as a ServerDefinition (``--from-json``);
- ``reports.py``: the ``lint-console``, ``lint-md``, ``lint-json`` and ``lint-sarif`` exporters.
"""
