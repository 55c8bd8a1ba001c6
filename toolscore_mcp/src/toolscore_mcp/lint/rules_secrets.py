"""Credentials in a definition: not poisoning, a leak to every client that lists the tools.

The detector is the one every output of toolscore redacts with
(:func:`toolscore_core.scoring.secrets.find_secrets`), so what lint flags and what
reports hide are the same set.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import BaseRule


class CredentialInDefinition(BaseRule):
    """A credential written into a definition (a description's example call, a schema's
    ``default``, ``const``, ``enum`` or ``examples``, the server instructions) is sent to
    every client that lists the tools, and from there into model contexts and logs. The
    finding shows only the credential's redacted preview (``ghp_…Xy``)."""

    name: ClassVar[str] = "secret-in-definition"
    description: ClassVar[str] = "a credential (API key, token, private key) in a description, schema or the instructions"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        from toolscore_core.scoring.secrets import find_secrets

        found = []
        subjects: list[tuple[str | None, object]] = [(None, {"instructions": server.instructions or ""})]
        for tool in server.tools:
            subjects.append((tool.name, {
                "name": tool.name, "title": tool.title or "", "description": tool.description or "",
                "inputSchema": tool.input_schema, "outputSchema": tool.output_schema or {},
                "annotations": tool.annotations, "_meta": tool.meta,
            }))
        for tool_name, subject in subjects:
            by_path: dict[str, list[str]] = {}
            for hit in find_secrets(subject):
                by_path.setdefault(hit.path, []).append(f"{hit.kind} {hit.preview}")
            for path, hits in by_path.items():
                where = "the server instructions" if tool_name is None else path
                found.append(self.finding(
                    f"{where} contain{'' if tool_name is None else 's'} a credential ({', '.join(hits[:3])})",
                    tool=tool_name, key=path, evidence=", ".join(hits),
                    fix="Remove the credential and revoke it: every client that lists this server's tools has read it.",
                ))
        return found
