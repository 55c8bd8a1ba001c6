"""One place knows URL credentials: the rows' ``strip_url_credentials`` is built on the
console's ``redact_command``, and is stricter (user info and secret-named values dropped).

Each case below was left whole by the rows' old URL cleaner, which knew only user info and
a list of query names, while ``redact_command`` already hid it on the console.
"""

from __future__ import annotations

import pytest

from toolscore_core.kernel.runs import ServerRecord, strip_url_credentials
from toolscore_core.scoring import secrets

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"


@pytest.mark.parametrize(("url", "secret"), [
    (f"https://mcp.example/{GITHUB}/mcp", GITHUB),                     # a vendor key in the path
    (f"https://mcp.example/mcp#access_token={JWT}", JWT),               # a token in the fragment
    ("https://mcp.example/mcp?pwd=hunter2secret", "hunter2secret"),     # a name the old list lacked
    (f"https://mcp.example/mcp?q={GITHUB}", GITHUB),                    # a key under an innocent name
])
def test_a_row_url_hides_what_the_console_hides(url: str, secret: str) -> None:
    assert secret not in secrets.redact_command(url)
    assert secret not in strip_url_credentials(url)  # type: ignore[operator]
    assert secret not in (ServerRecord(transport="streamable-http", url=url).url or "")


def test_rows_are_stricter_than_the_console() -> None:
    url = f"https://{GITHUB}@mcp.example/mcp?api_key=abc&team=x%20y&sessionKey=s1"
    assert strip_url_credentials(url) == "https://mcp.example/mcp?api_key=REDACTED&team=x%20y&sessionKey=REDACTED"
    assert strip_url_credentials("https://me:hunter2@mcp.example/mcp") == "https://mcp.example/mcp"
    assert strip_url_credentials("http://127.0.0.1:8000/mcp?team=a&b=") == "http://127.0.0.1:8000/mcp?team=a&b="


def test_the_kernel_function_is_the_shared_one() -> None:
    url = "https://me:pw@h/?token=t&x=1"
    assert strip_url_credentials(url) == secrets.strip_url_credentials(url) == "https://h/?token=REDACTED&x=1"
    assert strip_url_credentials(None) is None


def test_a_malformed_url_is_redacted_not_a_traceback() -> None:
    url = f"http://[::1/mcp?key={GITHUB}"
    assert GITHUB not in secrets.strip_url_credentials(url)
