"""What the SDK-backed providers share: construction, the retry loop, name maps and errors.

Why one base: the three API providers differ in wire shapes only. How a client is made
(lazily, SDK retries off, the key read from the variable named by ``api_key_env``), how
rate limits are retried and counted, and how an SDK exception becomes a kernel
``ProviderError`` are the same for all of them, and a fix to one must reach all.
"""

from __future__ import annotations

import email.utils
import json
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from toolscore_core import (
    BadRequest,
    ModelRequest,
    ModelTurn,
    Overloaded,
    Provider,
    ProviderError,
    ProviderTransportError,
    RateLimited,
    Refused,
)
from toolscore_core import visible as kernel_visible
from toolscore_providers.names import ToolNameMap
from toolscore_providers.retry import RetryPolicy, call_with_retries

#: Longest piece of server text kept in an error message (server text is hostile).
MAX_MESSAGE = 500
_UNSET: Any = object()
_QUOTA_CODES = ("insufficient_quota", "billing_hard_limit_reached", "credit_balance_exhausted")
_REFUSAL_CODES = ("content_filter", "content_policy_violation", "content_policy")


def visible(text: Any, limit: int = MAX_MESSAGE) -> str:
    """``text`` bounded to ``limit`` characters with control characters made visible, so a
    hostile server cannot rewrite a terminal line or hide text in a log (the kernel's
    :func:`toolscore_core.visible`; ``ProviderError`` redacts the message it ends in)."""
    value = str(text)
    more = f"... ({len(value) - limit} more characters)" if len(value) > limit else ""
    return kernel_visible(value[:limit], None, redacted=False) + more


def _header(headers: Any, name: str) -> str | None:
    if headers is None:
        return None
    try:
        value = headers.get(name)
    except Exception:  # an odd headers object means "no header"
        return None
    return str(value) if value is not None else None


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    millis = _header(headers, "retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = _header(headers, "retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_code(body: Any) -> str:
    """The error's ``code`` and ``type`` from either API's error body, lower-cased."""
    parts: list[str] = []
    for node in (body, body.get("error") if isinstance(body, Mapping) else None):
        if isinstance(node, Mapping):
            parts += [str(node.get(k)) for k in ("code", "type") if node.get(k) is not None]
    return " ".join(parts).lower()


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def translate_error(exc: BaseException, *, provider: str,
                    secrets: Iterable[str | None] = ()) -> ProviderError | None:
    """The kernel error for an SDK exception, or ``None`` when ``exc`` is not an API error.

    Works for both SDKs by their shared shape (``status_code``, ``response.headers``,
    ``body``) and class names, so no SDK is imported here and either may be missing.
    """
    if isinstance(exc, ProviderError):
        return exc
    names = _class_names(exc)
    status = getattr(exc, "status_code", None)
    message = visible(getattr(exc, "message", None) or str(exc) or type(exc).__name__)
    secrets = list(secrets)
    if not isinstance(status, int):
        if names & {"APIConnectionError", "APITimeoutError"}:
            return ProviderTransportError(f"no answer from the API: {message}", provider=provider,
                                          secrets=secrets)
        if "APIResponseValidationError" in names or isinstance(exc, json.JSONDecodeError):
            return ProviderError(f"the API's answer could not be read: {message}",
                                 provider=provider, secrets=secrets)
        return None
    headers = getattr(getattr(exc, "response", None), "headers", None)
    retry_after = parse_retry_after(headers)
    should_retry = _header(headers, "x-should-retry")
    code = _error_code(getattr(exc, "body", None))
    text = f"HTTP {status}: {message}"
    if status == 429:
        spent = (any(c in code for c in _QUOTA_CODES) or "quota" in message.lower()
                 or any("SpendLimit" in n for n in names))
        return RateLimited(text, provider=provider, status=status, retry_after=retry_after,
                           retryable=False if spent or should_retry == "false" else None,
                           secrets=secrets)
    if status in (408, 409) or status >= 500:
        return Overloaded(text, provider=provider, status=status, retry_after=retry_after,
                          retryable=False if should_retry == "false" else None, secrets=secrets)
    if any(c in code for c in _REFUSAL_CODES):
        return Refused(text, provider=provider, status=status, secrets=secrets)
    return BadRequest(text, provider=provider, status=status, secrets=secrets)


class SDKProvider(Provider):
    """An API provider: ``complete`` retries ``complete_once`` as :class:`RetryPolicy` says.

    Accepts the model and the client in either order, as ``Provider(client, "model")``
    (the spec's Python example) or ``Provider("model", client=client)`` (the registry).
    ``client`` is any object with the SDK method the provider calls; a real SDK client is
    used through ``with_options(max_retries=0)`` so the SDK never retries behind our back.
    ``last_retries`` is the number of retries the calling thread's last ``complete`` took
    (a per-thread value: study workers may share one provider).
    """

    default_api_key_env: str | None = None

    def __init__(self, model: Any = None, client: Any = None, *, base_url: str | None = None,
                 api_key_env: str | None = _UNSET, max_retries: int | None = None,
                 retry_policy: RetryPolicy | None = None, timeout: float | None = None,
                 **options: Any) -> None:
        if model is not None and not isinstance(model, str) and (client is None or isinstance(client, str)):
            model, client = client, model
        if api_key_env is _UNSET:
            api_key_env = self.default_api_key_env
        super().__init__(model, client=client, base_url=base_url, api_key_env=api_key_env, **options)
        policy = retry_policy or RetryPolicy()
        if max_retries is not None:
            policy = RetryPolicy(max_retries=max_retries, base_delay=policy.base_delay,
                                 max_delay=policy.max_delay, max_total_wait=policy.max_total_wait,
                                 jitter=policy.jitter, sleep=policy.sleep)
        self.retry_policy = policy
        self.timeout = timeout
        self._lock = threading.Lock()
        self._local = threading.local()
        self._made_client: Any = None

    # -- what subclasses implement -------------------------------------------------------

    def complete_once(self, request: ModelRequest) -> ModelTurn:
        """One attempt, no retry: for callers that own their retry policy."""
        raise NotImplementedError

    def make_client(self) -> Any:
        """Build the SDK client (the SDK is imported here, never at module top)."""
        raise NotImplementedError

    # -- shared behaviour ----------------------------------------------------------------

    def complete(self, request: ModelRequest) -> ModelTurn:
        """``complete_once`` with rate-limit and overload retries; see ``last_retries``."""
        self._local.retries = 0
        try:
            turn, retries = call_with_retries(lambda: self.complete_once(request), self.retry_policy)
        except ProviderError as exc:
            self._local.retries = getattr(exc, "retries", 0)
            raise
        self._local.retries = retries
        return turn

    @property
    def last_retries(self) -> int:
        """Retries the calling thread's last :meth:`complete` made (0 before any call)."""
        return int(getattr(self._local, "retries", 0))

    def tool_name_map(self, tools: Iterable[Any]) -> ToolNameMap:
        """How this provider names ``tools`` on the wire (``to_mcp`` maps a call back)."""
        return ToolNameMap.for_tools(tools)

    def sdk_client(self) -> Any:
        """The client to call: the one given (SDK retries off when it has options), or one
        built once from ``base_url`` and the key."""
        with self._lock:
            if self._made_client is None:
                self._made_client = self._without_retries(self.client) if self.client is not None \
                    else self.make_client()
            return self._made_client

    @staticmethod
    def _without_retries(client: Any) -> Any:
        with_options = getattr(client, "with_options", None)
        if not callable(with_options):
            return client  # a fake: nothing retries inside it
        try:
            return with_options(max_retries=0)
        except TypeError:
            return client

    def client_options(self) -> dict[str, Any]:
        """Options every SDK client gets: no SDK retries (we count ours), the timeout if set."""
        options: dict[str, Any] = {"max_retries": 0}
        if self.timeout is not None:
            options["timeout"] = self.timeout
        return options

    def secrets(self, client: Any) -> list[str | None]:
        """Values to hide from error messages: the client's key, whatever its format."""
        key = getattr(client, "api_key", None)
        return [key] if isinstance(key, str) else []

    def call(self, client: Any, method: Any, **kwargs: Any) -> Any:
        """``method(**kwargs)`` with SDK exceptions turned into kernel provider errors."""
        try:
            return method(**kwargs)
        except Exception as exc:
            error = translate_error(exc, provider=self.name, secrets=self.secrets(client))
            if error is None:
                raise
            raise error from None

    def malformed(self, client: Any, what: str) -> ProviderError:
        """The error for a 2xx answer this provider cannot read."""
        return ProviderError(f"the API's answer could not be read: {visible(what)}",
                             provider=self.name, secrets=self.secrets(client))


def split_extra(extra: Mapping[str, Any]) -> dict[str, Any]:
    """A study's ``extra`` as SDK keyword arguments: request parameters travel in
    ``extra_body`` (merged into the JSON body whatever this SDK version's signature names),
    while the SDK's own per-request options pass through as they are."""
    passthrough = {k: v for k, v in extra.items() if k in ("extra_headers", "extra_query", "timeout")}
    nested = extra.get("extra_body")
    body = dict(nested) if isinstance(nested, Mapping) else {}
    body.update({k: v for k, v in extra.items() if k not in passthrough and k != "extra_body"})
    if body:
        passthrough["extra_body"] = body
    return passthrough


def get(obj: Any, key: str, default: Any = None) -> Any:
    """``obj.key`` or ``obj[key]``: SDK models and plain dicts (fakes) read alike."""
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def dump(obj: Any) -> Any:
    """An SDK model (or a fake's dict) as JSON-safe primitives, unset fields left out."""
    if isinstance(obj, Mapping):
        return {k: dump(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [dump(v) for v in obj]
    model_dump = getattr(obj, "model_dump", None)
    if callable(model_dump):
        return model_dump(mode="json", exclude_none=True)
    return obj


def count(value: Any) -> int | None:
    """A token count from a response: a non-negative integer, else unknown (``None``)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
