"""The short cuts of reading and recording an OTLP trace file, each against the general rule it
stands for: ``prepare`` without a redactor (by exact type), the first lines of a text found
without splitting all of it, a pretty-printed first line refused without parsing it, and an
empty text told without a stripped copy. The traces of every adapter fixture, and of mutated
copies of them, must be what the general rules give."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_adapters.protocols import jsonl_stream
from toolscore_core import InputError
from toolscore_core.kernel import files, traces
from toolscore_core.kernel.interfaces import TraceAdapter
from toolscore_core.kernel.traces import load_trace_bytes
from toolscore_export import canonical
from toolscore_export.canonical import prepare

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
TRACES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".jsonl"))


# ---------------------------------------------------------------- references (the general rules)

def reference_prepare(value: Any, text: Callable[[str], str] | None = None) -> Any:
    """``prepare`` by the general walk all the way down (no exact-type path): the reference."""
    fast = canonical.prepare
    canonical.prepare = canonical._prepare_general  # type: ignore[assignment]
    try:
        return canonical._prepare_general(value, text)
    finally:
        canonical.prepare = fast


def reference_lines(text: str) -> Iterator[str]:
    return (line for line in text.splitlines() if line.strip())


def reference_looks_like_json_lines(text: str) -> bool:
    """The JSON Lines test on every line of the text, the first one parsed."""
    lines = list(reference_lines(text))
    if len(lines) < 2 or not lines[0].strip().startswith(("{", "[")):
        return False
    try:
        json.loads(lines[0].strip())
    except (ValueError, RecursionError):
        return False
    return True


def reference_first_line(head: bytes) -> Any:
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text.startswith(b"{"):
        return None
    newline = text.find(b"\n")
    line = text if newline < 0 else text[:newline]
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


# ---------------------------------------------------------------- prepare

class Key(str):
    pass


class Count(int):
    pass


class Thing:
    def __str__(self) -> str:
        return "thing"


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    leaves: list[Callable[[], Any]] = [
        lambda: rng.choice(["", "a", "é\u2028", "\ud800"]), lambda: rng.randint(-5, 2**70), lambda: rng.random(),
        lambda: rng.choice([1.0, -0.0, 1e-7, 1e16, 1e300, math.nan, math.inf]), lambda: None,
        lambda: rng.choice([True, False]), lambda: Key("k"), lambda: Count(3), lambda: Thing(),
        lambda: canonical.StdlibFloat(1e-6),
    ]
    if depth > 3 or rng.random() < 0.4:
        return rng.choice(leaves)()
    kind = rng.randrange(3)
    items = [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if kind == 0:
        keys: list[Any] = [rng.choice(["a", "b", Key("c"), 1, None, True, 2.5, Thing()]) for _ in items]
        return dict(zip(keys, items, strict=True))
    return items if kind == 1 else tuple(items)


def _same(a: Any, b: Any) -> bool:
    """Equal, of the same types all the way down (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(type(k) is type(j) for k, j in zip(a, b, strict=True)) and all(
            _same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def test_prepare_without_a_redactor_is_the_general_walk_on_random_values() -> None:
    rng = random.Random(11)
    for _ in range(5000):
        value = _random_value(rng)
        assert _same(prepare(value), reference_prepare(value)), repr(value)


def test_prepare_with_a_redactor_is_unchanged() -> None:
    rng = random.Random(12)
    for _ in range(1000):
        value = _random_value(rng)
        assert _same(prepare(value, str.upper), reference_prepare(value, str.upper)), repr(value)


def test_prepare_of_every_fixture_is_the_general_walk() -> None:
    for path in TRACES:
        text = path.read_text(encoding="utf-8")
        data = [json.loads(line) for line in text.splitlines() if line.strip()] if path.suffix == ".jsonl" \
            else json.loads(text)
        assert _same(prepare(data), reference_prepare(data)), path.name


def test_prepare_refuses_nothing_new_on_deep_values() -> None:
    deep: Any = "x"
    for _ in range(150):
        deep = {"a": [deep]}
    assert _same(prepare(deep), reference_prepare(deep))


# ---------------------------------------------------------------- lines, first line, empty text

_PIECES = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", " ", "\t", "a",
           "{", "}", "[", "]", "1", '"', ",", ":", "\x1f", "\xa0", '{"a": 1}', "[1, 2]", "{ }"]


def _random_text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 14)))


def test_non_blank_lines_are_splitlines_lines_on_random_text() -> None:
    rng = random.Random(13)
    for _ in range(20000):
        text = _random_text(rng)
        assert list(files._non_blank_lines(text)) == list(reference_lines(text)), repr(text)


def test_every_line_boundary_of_splitlines_is_one() -> None:
    for code in range(0x110000):
        breaks = len(("a" + chr(code) + "b").splitlines()) == 2
        assert breaks == bool(files._LINE_BREAK.search(chr(code))), hex(code)


def test_json_lines_test_is_the_whole_rule_on_random_text() -> None:
    rng = random.Random(14)
    for _ in range(20000):
        text = _random_text(rng)
        assert files.looks_like_json_lines(text) == reference_looks_like_json_lines(text), repr(text)


def test_first_line_is_the_parsed_rule_on_random_heads() -> None:
    rng = random.Random(15)
    for _ in range(20000):
        head = _random_text(rng).encode("utf-8", "surrogatepass")
        if rng.random() < 0.2:
            head = b"\xef\xbb\xbf" + head
        assert jsonl_stream.first_line(head) == reference_first_line(head), repr(head)
    for head in (b"{", b"{\n", b"{ \r\n", b" {\x0c\n", b"{\t", b"{}", b'{"a": 1}\n', "{\n}".encode("utf-16-le")):
        assert jsonl_stream.first_line(head) == reference_first_line(head), repr(head)


def test_an_empty_text_is_told_as_strip_tells_it() -> None:
    for code in range(0x110000):
        char = chr(code)
        assert (not char or char.isspace()) == (not char.strip()), hex(code)
    for text in ("", " ", "\u3000\n", "\x1c", " x "):
        got = _outcome(lambda t=text: files.parse_data_text(t, Path("t.json"), allow_json_lines=True))
        assert ("is empty" in str(got)) == (not text.strip())


# ---------------------------------------------------------------- traces: fast rules against general ones

def _outcome(read: Callable[[], Any]) -> Any:
    try:
        return read()
    except InputError as exc:
        return ("error", exc.message, exc.location)


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put the general rules back in every place the fast ones are used."""
    from toolscore_adapters.protocols import jsonrpc, mcp_session, otel

    monkeypatch.setattr(files, "_non_blank_lines", reference_lines)
    monkeypatch.setattr(files, "looks_like_json_lines", reference_looks_like_json_lines)
    for module in (jsonl_stream, otel, jsonrpc, mcp_session):
        monkeypatch.setattr(module, "first_line", reference_first_line)
    monkeypatch.setattr(traces, "_reads_paths", lambda adapter: True)  # every adapter asked by path


def _mutations(raw: bytes, rng: random.Random) -> Iterator[bytes]:
    """The file, and copies a reader could meet: pretty-printed, compact, one line per item,
    a byte-order mark, blank lines, CRLF, cut off, with a byte changed."""
    yield raw
    yield b"\xef\xbb\xbf\n\n" + raw
    yield raw.replace(b"\n", b"\r\n")
    yield raw[: len(raw) // 2]
    cut = rng.randrange(len(raw))
    yield raw[:cut] + bytes([rng.randrange(256)]) + raw[cut + 1:]
    try:
        data = json.loads(raw)
    except ValueError:
        return
    yield json.dumps(data, indent=2).encode()
    yield json.dumps(data, separators=(",", ":")).encode()
    if isinstance(data, list) and len(data) > 1:
        yield b"\n".join(json.dumps(item).encode() for item in data) + b"\n"


def _read_all(paths: list[tuple[Path, bytes]]) -> list[Any]:
    return [_outcome(lambda p=p, r=r: load_trace_bytes(p, r, allow_empty=True)[0]) for p, r in paths]


def test_traces_of_fixtures_and_mutations_are_those_of_the_general_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(16)
    inputs: list[tuple[Path, bytes]] = []
    for n, fixture in enumerate(TRACES):
        for m, raw in enumerate(_mutations(fixture.read_bytes(), rng)):
            path = tmp_path / f"{n}-{m}{fixture.suffix if m % 2 else '.json'}"
            path.write_bytes(raw)
            inputs.append((path, raw))
    fast = _read_all(inputs)
    with monkeypatch.context() as patch:
        _general(patch)
        general = _read_all(inputs)
    assert len(fast) == len(general) > 100
    for (path, _), a, b in zip(inputs, fast, general, strict=True):
        assert a == b, path.name


class _Plain(TraceAdapter):
    name = "plain-test"

    def detect(self, data: Any) -> float:
        return 0.0


class _ByPath(_Plain):
    def detect_path(self, path: Path, head: bytes) -> float:
        return 1.0


def test_only_an_adapter_with_the_base_detect_path_is_skipped() -> None:
    from toolscore_adapters.protocols.otel import OtelAdapter

    assert not traces._reads_paths(_Plain())
    assert traces._reads_paths(_ByPath())
    assert traces._reads_paths(OtelAdapter())
    on_instance = _Plain()
    on_instance.detect_path = lambda path, head: 1.0  # type: ignore[method-assign]
    assert traces._reads_paths(on_instance)


def test_every_installed_adapter_that_claims_a_fixture_by_path_is_asked(tmp_path: Path) -> None:
    """The fixtures some adapter claims by their path must still be claimed so (mcp, otel
    JSON Lines): the adapters that keep the base detect_path are the only ones skipped."""
    registry = traces.adapter_registry()
    adapters = registry.instances()
    claimed = 0
    for fixture in TRACES:
        head = fixture.read_bytes()[: traces.HEAD_BYTES]
        for adapter in adapters:
            score = traces._safe_score(adapter.detect_path, fixture, head)
            if score > 0:
                claimed += 1
                assert traces._reads_paths(adapter), (adapter.name, fixture.name)
    assert claimed > 0
