"""Report formats for lint results (registered as exporters of subject ``lint``)."""

from __future__ import annotations

from typing import Any

EXPORTERS: list[Any] = []
