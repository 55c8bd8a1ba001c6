"""The error types Toolscore raises on purpose, and how each one reads.

Every problem with what a user gave us (a file, a flag, an argument to ``evaluate``) is an
:class:`InputError`. The CLI turns it into one short paragraph and exit code 2, never a
traceback: it names the file, the place inside it, what was expected and, when we know
it, how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterable
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


class ProviderError(ToolscoreError):
    """A model provider could not turn a request into a turn (the API, not the agent, failed).

    Providers translate their SDK's exceptions into this family so the agent harness and the
    LLM judge decide what to do (retry, record the run as ``error``, stop) without knowing any
    SDK. ``retryable`` says whether the same request may succeed later; ``retry_after`` is the
    wait in seconds the server asked for (``None`` when it did not say); ``status`` the HTTP
    status, ``None`` when no response arrived.

    The message is redacted on the way in: SDK errors sometimes echo request headers, and a
    message may reach a terminal, a run row or a CI log. Known key formats are always hidden;
    pass ``secrets=`` (the provider's own key, whatever its format) to hide those too.
    Exit code 2 when one ends a command: Toolscore could not do what was asked, which is not a
    failed check (1).
    """

    retryable_by_default: bool = False

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
        secrets: Iterable[str | None] = (),
    ) -> None:
        self.message = _redact(message, secrets)
        self.provider = provider
        self.status = status
        self.retryable = self.retryable_by_default if retryable is None else retryable
        self.retry_after = retry_after
        super().__init__(f"{provider}: {self.message}" if provider else self.message)


class RateLimited(ProviderError):
    """HTTP 429: too many requests or tokens for now. Retry after ``retry_after`` seconds.

    A spent quota or spending limit is also a 429 on the wire but is not worth retrying:
    providers raise it with ``retryable=False``."""

    retryable_by_default = True


class Overloaded(ProviderError):
    """The service is up but cannot take the request now (HTTP 529, 503, most 5xx); retry later."""

    retryable_by_default = True


class Refused(ProviderError):
    """The API refused to answer this request on policy grounds (a content filter ended it).

    Different from a turn whose ``stop_reason`` is ``"refusal"``: that is a normal answer to
    record as the agent's outcome; this is a request that produced no turn at all."""


class BadRequest(ProviderError):
    """The API rejected the request itself (HTTP 400, 401, 403, 404, 413, 422): a bug, a wrong
    model id or key, or a conversation too long. Sending it again gives the same answer."""


class ProviderTransportError(ProviderError):
    """No answer arrived: connection refused or reset, DNS, TLS or a timeout. Retrying is
    safe for a model call (it has no side effects), though a timed-out call may be billed."""

    retryable_by_default = True


def _redact(message: str, secrets: Iterable[str | None]) -> str:
    """``message`` with known key formats and each of ``secrets`` hidden.

    Why both: the pattern scan knows vendor formats only, while a self-hosted server's key can
    be any string; a value given explicitly is removed whatever it looks like (values shorter
    than 6 characters are skipped: hiding every "abc" would shred the message, and such a
    key protects nothing)."""
    from toolscore_core.scoring.secrets import redact_text

    for secret in secrets:
        if secret and len(secret) >= 6:
            message = message.replace(secret, "[redacted]")
    return redact_text(message)


class PluginError(ToolscoreError):
    """A plugin could not be loaded or used (raised only in strict mode)."""


class PluginConflictError(PluginError):
    """Two plugins claimed the same name within one kind."""


class UnknownNameError(InputError):
    """A name (format, metric, exporter, rule ...) that no installed plugin provides."""
