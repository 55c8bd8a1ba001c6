"""The built-in lint rules, registered through ``toolscore_register_lint_rules``.

Each rule is a :class:`toolscore_core.kernel.interfaces.LintRule` with a stable id (its
``name``) and a default severity; users disable rules or change severities by id
(``toolscore mcp lint --disable ID --severity ID=LEVEL`` or a lint config file). The
rules live in one module per theme:

- :mod:`~toolscore_mcp.lint.rules_schema`: schema hygiene (types, descriptions, arrays,
  ``required``, values described in prose instead of an ``enum``);
- :mod:`~toolscore_mcp.lint.rules_references`: references to tools the server does not
  expose, and to parameters a tool does not have;
- :mod:`~toolscore_mcp.lint.rules_poisoning`: instruction overrides, hiding things from the
  user, pointers to key files, ``<IMPORTANT>`` blocks, scripted replies; its
  ``POISONING_RULES`` also holds the rules of :mod:`~toolscore_mcp.lint.rules_hidden`
  (hidden Unicode), :mod:`~toolscore_mcp.lint.rules_escapes` (terminal escape sequences)
  and :mod:`~toolscore_mcp.lint.rules_secrets` (credentials written into a definition);
- :mod:`~toolscore_mcp.lint.rules_compat`: schemas that Claude Code, OpenAI (strict mode)
  or Gemini reject.
"""

from __future__ import annotations

from typing import Any


def builtin_rules() -> list[Any]:
    """Every built-in rule class, in a stable order."""
    from toolscore_mcp.lint.rules_compat import COMPAT_RULES
    from toolscore_mcp.lint.rules_poisoning import POISONING_RULES
    from toolscore_mcp.lint.rules_references import REFERENCE_RULES
    from toolscore_mcp.lint.rules_schema import SCHEMA_RULES

    return [*SCHEMA_RULES, *REFERENCE_RULES, *POISONING_RULES, *COMPAT_RULES]
