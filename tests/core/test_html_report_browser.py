"""The HTML report in a real headless Chromium: what a person sees, offline.

``--dump-dom`` gives the document as the browser built it (text a reader sees), and a
screenshot shows the styles applied (the verdict's colour is on screen). The report is
written by the CLI, exactly as a user would get it.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (run `make browser`)"),
]
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
FAIL_RED = (0xCF, 0x22, 0x2E)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


class _VisibleText(HTMLParser):
    """The text a reader sees: everything outside <head>, <style> and <script>."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.parts: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"head", "style", "script", "title"}:
            self.hidden += 1
        for name, value in attrs:
            if name in {"src", "href"} and value and "://" in value:
                self.external.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in {"head", "style", "script", "title"}:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.parts.append(" ".join(data.split()))


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB(A) non-interlaced PNG (what Chromium writes) into rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0 and colour in (2, 6)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, channels, rows


@pytest.fixture
def report(invoke: Any, tmp_path: Path) -> Path:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([
        {"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}},
        {"tool": "book_flight", "args": {"flight_id": {"$regex": "FL-\\d+"}}},
    ]), encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([
        {"tool": "search_flights", "args": {"origin": "SFO", "destination": "<script>alert(1)</script>"},
         "result": []},
        {"tool": "http_post", "args": {"body": {"text": f"key {AWS_KEY}"}}, "is_error": True,
         "error": "HTTP 500"},
    ]), encoding="utf-8")
    target = tmp_path / "report.html"
    result = invoke("eval", str(gold), str(trace), "--report", "html", "--output", str(target))
    assert result.exit_code == 0, result.output
    return target


def test_report_reads_right_in_a_browser(report: Path, tmp_path: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert AWS_KEY not in html
    assert "<script>" not in html  # the argument is escaped, not markup
    done = _chromium(tmp_path, "--dump-dom", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    parser = _VisibleText()
    parser.feed(done.stdout)
    seen = " | ".join(parser.parts)
    assert "Grade F" in seen and "FAIL" in seen
    assert "Overall Score" in seen
    assert "Required calls completed: 1 of 2" in seen
    assert "destination: 'NYC' ≠ '<script>alert(1)</script>'" in seen  # shown as text
    assert "http_post passes a credential (aws_access_key_id)" in seen
    assert "AKIA…LE" in seen
    assert AWS_KEY not in done.stdout
    assert parser.external == []  # self-contained: no external URL


def test_verdict_colour_is_on_screen(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=640,360", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    width, channels, rows = _png_pixels(shot.read_bytes())
    red = sum(
        1
        for row in rows
        for x in range(0, width * channels, channels)
        if abs(row[x] - FAIL_RED[0]) < 24 and abs(row[x + 1] - FAIL_RED[1]) < 24 and abs(row[x + 2] - FAIL_RED[2]) < 24
    )
    assert red > 200  # the FAIL grade box (border and text) is drawn in the verdict colour
