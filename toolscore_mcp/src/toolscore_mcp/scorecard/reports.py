"""Report formats for scorecards (registered as exporters of subject ``scorecard``)."""

from __future__ import annotations

from typing import Any

EXPORTERS: list[Any] = []
