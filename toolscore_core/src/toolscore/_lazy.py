"""How the facade resolves a name that lives in another distribution, on first use.

Users write ``from toolscore.mcp import MCPStdioClient`` whatever they installed. When the
distribution behind a name is missing, or installed in a version that does not have the
name yet, they should read which package to install or upgrade, not a bare
``ModuleNotFoundError`` from deep inside an import. Both cases raise
:class:`FeatureUnavailableError`, an ``ImportError``: Python turns an ``AttributeError``
from a module's ``__getattr__`` into a generic "cannot import name" during ``from ... import``
and drops our message, while an ``ImportError`` reaches the user as written.

Nothing here imports a feature distribution at module level, so ``import toolscore`` and
its subpackages stay cheap.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


class FeatureUnavailableError(ImportError):
    """A facade name whose distribution is not installed, or does not provide it yet.

    ``distribution`` is the package to install (``toolscore-mcp``); ``installed_version``
    is the version found, or ``None`` when the distribution is absent.
    """

    def __init__(self, message: str, *, distribution: str, installed_version: str | None,
                 module: str) -> None:
        super().__init__(message, name=module)
        self.distribution = distribution
        self.installed_version = installed_version


def _installed_version(top_package: str) -> str | None:
    # The package's own __version__: importlib.metadata would parse every installed
    # distribution's METADATA, far more than a failed lookup deserves.
    module = sys.modules.get(top_package)
    version = getattr(module, "__version__", None)
    return str(version) if version is not None else None


def resolve(public_name: str, module_name: str, distribution: str, attribute: str) -> Any:
    """Import ``module_name`` and return its ``attribute``, for the facade name ``public_name``
    (such as ``toolscore.mcp.MCPStdioClient``), explaining what to install when that fails."""
    top_package = module_name.split(".")[0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == top_package:
            raise FeatureUnavailableError(
                f"{public_name} needs the {distribution} distribution: pip install {distribution}",
                distribution=distribution, installed_version=None, module=module_name,
            ) from exc
        if missing.startswith(top_package + ".") and module_name.startswith(missing):
            raise _not_provided(public_name, module_name, distribution, top_package) from exc
        raise
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise _not_provided(public_name, module_name, distribution, top_package) from None


def _not_provided(public_name: str, module_name: str, distribution: str, top_package: str) -> FeatureUnavailableError:
    version = _installed_version(top_package)
    return FeatureUnavailableError(
        f"{public_name} is not provided by the installed {distribution} "
        f"{version or '(version unknown)'} yet; upgrade it when a release that has it is out: "
        f"pip install --upgrade {distribution}",
        distribution=distribution, installed_version=version, module=module_name,
    )


def missing_attribute(module: str, name: str) -> AttributeError:
    """The ordinary error for a name the facade module does not define at all."""
    return AttributeError(f"module {module!r} has no attribute {name!r}")
