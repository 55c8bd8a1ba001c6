"""The error types Toolscore raises on purpose, and how each one reads.

Every problem with what a user gave us (a file, a flag, an argument to ``evaluate``) is an
:class:`InputError`. The CLI turns it into one short paragraph and exit code 2, never a
traceback: it names the file, the place inside it, what was expected and, when we know
it, how to fix it.
"""

from __future__ import annotations

from os import PathLike
from typing import Union

Path = Union[str, "PathLike[str]"]


class ToolscoreError(Exception):
    """Base class of every error Toolscore raises deliberately.

    ``exit_code`` is what the CLI exits with when this error ends a command: each error
    says its own, so a command never has to know which kinds of error can reach it.
    """

    exit_code: int = 2


class InputError(ToolscoreError, ValueError):
    """Something the user supplied cannot be used as it is.

    :param message: what is wrong, in one sentence.
    :param file: the file it came from, if any.
    :param location: where inside it (a JSON path such as ``$[2].args.city``, or
        ``line 3, column 7``).
    :param expected: what would have been accepted.
    :param hint: how to fix it.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: Path | None = None,
        location: str | None = None,
        expected: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None  # PathLike or str
        self.location = location
        self.expected = expected
        self.hint = hint
        super().__init__(self.render())

    def with_file(self, file: Path) -> InputError:
        """Return a copy naming ``file`` (for errors raised before the file was known)."""
        if self.file is not None:
            return self
        return InputError(
            self.message, file=file, location=self.location, expected=self.expected, hint=self.hint
        )

    def render(self) -> str:
        """One paragraph: ``FILE, at PLACE: MESSAGE. Expected ... . Fix ...``."""
        where = ", ".join(part for part in (self.file, f"at {self.location}" if self.location else None) if part)
        text = _sentence(f"{where}: {self.message}" if where else self.message)
        if self.expected:
            text += " " + _sentence(f"Expected {self.expected}")
        if self.hint:
            text += " " + _sentence(self.hint)
        return text


def _sentence(text: str) -> str:
    """End ``text`` with exactly one full stop, unless it already ends a sentence."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


class BudgetStopped(ToolscoreError):
    """The next model call could cost more than the budget has left, so nothing more is spent.

    Exit code 3: distinct from a failed check (1) and from bad input (2), so CI can tell
    "the study was stopped to protect the budget" from "the agent did badly".
    """

    exit_code = 3

    def __init__(self, message: str, *, spent_usd: float | None = None, limit_usd: float | None = None,
                 next_call_usd: float | None = None) -> None:
        self.spent_usd = spent_usd
        self.limit_usd = limit_usd
        self.next_call_usd = next_call_usd
        super().__init__(message)


class PluginError(ToolscoreError):
    """A plugin could not be loaded or used (raised only in strict mode)."""


class PluginConflictError(PluginError):
    """Two plugins claimed the same name within one kind."""


class UnknownNameError(InputError):
    """A name (format, metric, exporter, rule ...) that no installed plugin provides."""
