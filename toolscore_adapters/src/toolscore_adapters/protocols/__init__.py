"""Adapters for protocols (see the modules in this package)."""

from __future__ import annotations

from typing import Any

ADAPTERS: list[Any] = []
