"""Send OTLP/JSON log requests to a collector over OTLP/HTTP (protobuf or JSON), bounded.

Why stdlib ``urllib`` and not the OpenTelemetry SDK's exporter: an export is a batch job
that must fail loudly (exit 2, one clear sentence) when the collector is not there, and the
SDK's exporter retries in the background and logs instead. Each request has a deadline, for
all of it, however slowly the collector reads or answers (:mod:`~toolscore_export.http_deadline`),
and at most :data:`MAX_ANSWER_BYTES` of the answer are read; the
statuses OTLP/HTTP calls retryable (429, 502, 503, 504) get a short, bounded number of
retries; anything else is an InputError naming the endpoint and how many events were
already accepted. Header values (an API key, say) never appear in a message.

``http/protobuf`` needs the official definitions (``opentelemetry-proto``, the
``toolscore-export[otlp]`` extra); ``http/json`` needs nothing.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

PROTOBUF = "http/protobuf"
JSON = "http/json"
PROTOCOLS = (PROTOBUF, JSON)
LOGS_PATH = "/v1/logs"
RETRYABLE = (429, 502, 503, 504)
RETRIES = 2
MAX_ANSWER_BYTES = 1 << 20  # of a collector's answer body read
_USER_INFO = re.compile(r"(?<=//)[^/?#]*@")  # what comes before a URL's host: a user name, a password


def logs_url(endpoint: str) -> str:
    """The URL to POST logs to: ``endpoint`` as given, or with ``/v1/logs`` when it has no path;
    a user name and password in it are taken out (:func:`basic_credentials` sends them)."""
    from toolscore_core import InputError

    try:
        parts = urlsplit(endpoint)
        parts.port  # noqa: B018 - a port that is not a number raises here, not at the first send
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--endpoint {shown_url(endpoint)} is not an http(s) URL",
                         expected="a collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318")
    if "@" in parts.netloc:
        endpoint = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    if parts.path in ("", "/"):
        return endpoint.rstrip("/") + LOGS_PATH
    return endpoint


def basic_credentials(endpoint: str) -> str | None:
    """The ``Authorization`` value for a user name and password written in ``endpoint``
    (``https://user:token@host``, as curl and requests take them); None when it has none.

    Why: urllib sends neither, and left in the URL they became part of the host name ("Name or
    service not known"), with the password in the error."""
    parts = urlsplit(endpoint)
    if parts.username is None and parts.password is None:
        return None
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def shown_url(url: str) -> str:
    """``url`` fit for a message or the terminal: a user name and password are ``***``, and a token
    in the query and control characters are not shown as they are (the kernel's :func:`visible`)."""
    from toolscore_core.reports.text import visible

    return visible(_USER_INFO.sub("***@", url, count=1), 300)


def has_protobuf() -> bool:
    try:
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2  # noqa: F401
    except ImportError:
        return False
    return True


def choose_protocol(protocol: str | None) -> str:
    """``protocol`` checked, or the default: protobuf when its definitions are installed, else JSON."""
    from toolscore_core import InputError

    if protocol is None:
        return PROTOBUF if has_protobuf() else JSON
    if protocol not in PROTOCOLS:
        raise InputError(f"--otlp-protocol {protocol!r} is not known", expected=" or ".join(PROTOCOLS))
    if protocol == PROTOBUF and not has_protobuf():
        raise InputError("--otlp-protocol http/protobuf needs the OpenTelemetry protobuf definitions",
                         hint="pip install 'toolscore-export[otlp]', or use --otlp-protocol http/json")
    return protocol


def _hex_to_base64(request: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of an OTLP/JSON request with hex ids as protobuf's JSON mapping wants them (base64)."""
    copy: dict[str, Any] = json.loads(json.dumps(request))
    for resource in copy.get("resourceLogs", []):
        for scope in resource.get("scopeLogs", []):
            for log in scope.get("logRecords", []):
                for key in ("traceId", "spanId"):
                    if key in log:
                        log[key] = base64.b64encode(bytes.fromhex(log[key])).decode("ascii")
    return copy


def encode(request: Mapping[str, Any], protocol: str) -> tuple[bytes, str]:
    """The body and content type of one request."""
    if protocol == JSON:
        return json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), "application/json"
    from google.protobuf import json_format
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    message = json_format.ParseDict(_hex_to_base64(request), ExportLogsServiceRequest())
    return message.SerializeToString(), "application/x-protobuf"


def _rejected(body: bytes, content_type: str, protocol: str) -> int:
    """How many log records the collector said it rejected (OTLP partial success), 0 if unsaid."""
    if not body:
        return 0
    try:
        if "json" in content_type:
            data = json.loads(body)
            return int((data.get("partialSuccess") or {}).get("rejectedLogRecords") or 0)
        if protocol == PROTOBUF:
            from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
                ExportLogsServiceResponse,
            )

            response = ExportLogsServiceResponse()
            response.ParseFromString(body)
            return int(response.partial_success.rejected_log_records)
    except Exception:  # a collector's odd answer body must not fail an accepted export
        return 0
    return 0


class OtlpSender:
    """POSTs log requests to one collector; counts what it accepted, for the error message."""

    def __init__(self, endpoint: str, *, protocol: str | None = None, timeout: float = 10.0,
                 headers: Mapping[str, str] | None = None) -> None:
        from toolscore_core import InputError

        self.url = logs_url(endpoint)
        self.protocol = choose_protocol(protocol)
        self.timeout = timeout
        self.headers = dict(headers or {})
        credentials = basic_credentials(endpoint)
        if credentials is not None:
            if any(name.lower() == "authorization" for name in self.headers):
                raise InputError("--endpoint holds a user name and password and --header an Authorization "
                                 "too: give the credentials once")
            self.headers["Authorization"] = credentials
        self.sent = 0

    def send(self, request: Mapping[str, Any], events: int) -> None:
        import urllib.error
        import urllib.request

        from toolscore_core import InputError
        from toolscore_export.http_deadline import opener

        body, content_type = encode(request, self.protocol)
        headers = {**self.headers, "Content-Type": content_type}
        problem = ""
        for attempt in range(RETRIES + 1):
            req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with opener(self.timeout).open(req, timeout=self.timeout) as answer:
                    # a partial-success answer is a few bytes; more is no collector's, and is not read
                    rejected = _rejected(answer.read(MAX_ANSWER_BYTES), answer.headers.get("Content-Type", ""),
                                         self.protocol)
            except urllib.error.HTTPError as exc:
                problem = f"it answered HTTP {exc.code} {exc.reason}"
                if exc.code not in RETRYABLE or attempt == RETRIES:
                    break
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, TimeoutError):
                    problem = f"it did not take them and answer within {self.timeout:g} s (--timeout)"
                else:
                    problem = f"cannot reach it ({getattr(reason, 'strerror', None) or reason})"
                break
            else:
                self.sent += events - rejected
                if not rejected:
                    return
                problem = f"it rejected {rejected} of {events} event(s) (OTLP partial success)"
                break
            time.sleep(0.2 * (attempt + 1))
        raise InputError(f"the OTLP endpoint {shown_url(self.url)} did not take the events: {problem}",
                         hint=f"{self.sent} event(s) were accepted before this; check that an OpenTelemetry "
                              "collector listens there (OTLP/HTTP, usually port 4318)")


__all__ = ["JSON", "LOGS_PATH", "PROTOBUF", "PROTOCOLS", "OtlpSender", "basic_credentials", "choose_protocol", "encode",
           "logs_url", "shown_url"]
