"""Hook implementations of toolscore-adapters: the trace formats it reads.

The only module named by this distribution's entry points. It imports no SDK: adapters
recognise live SDK objects by their class's module and name, without importing the SDK.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl


@hookimpl
def toolscore_register_adapters() -> list[Any]:
    from toolscore_adapters.frameworks import ADAPTERS as FRAMEWORKS
    from toolscore_adapters.protocols import ADAPTERS as PROTOCOLS
    from toolscore_adapters.providers import ADAPTERS as PROVIDERS

    return [*PROVIDERS, *FRAMEWORKS, *PROTOCOLS]
