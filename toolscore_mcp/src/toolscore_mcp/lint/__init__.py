"""MCP lint: rules are plugins (``toolscore_register_lint_rules``); this package holds the
built-in ones, the runner and the report formats."""
