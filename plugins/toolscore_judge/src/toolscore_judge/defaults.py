"""The judge's default settings and the names its options accept, with no imports of their own.

Why a module of its own: ``toolscore eval`` builds the judge's options (and checks them) on
every run, judge or not. Read from :mod:`toolscore_judge.cache` and
:mod:`toolscore_judge.routing`, these few constants cost sqlite3, hashlib, the scorer's pairing
and the routing table at every start-up; here they cost nothing. Those modules re-export them.
"""

from __future__ import annotations

from typing import Literal

#: The model asked for when only ``--llm-judge`` is given: a small, cheap OpenAI model with
#: structured outputs and temperature support.
DEFAULT_MODEL = "gpt-4o-mini"

#: The providers :data:`toolscore_judge.routing.ROUTES` knows, in its order (a test keeps both equal).
ROUTE_NAMES: tuple[str, ...] = ("openai", "anthropic", "gemini", "openai-chat")

#: tool-scorer 1.10.0's provider names.
ALIASES = {"openai_compatible": "openai-chat"}

CacheMode = Literal["off", "read", "write"]
CACHE_MODES: tuple[str, ...] = ("off", "read", "write")
DEFAULT_MODE: CacheMode = "write"

__all__ = ["ALIASES", "CACHE_MODES", "DEFAULT_MODE", "DEFAULT_MODEL", "ROUTE_NAMES", "CacheMode"]
