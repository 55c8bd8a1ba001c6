"""Valid but extreme input never gives a traceback, and nothing written is ever half a file.

Issue 8, items 12 (YAML alias bombs, files read whole), 13 (slow regexes), 15 (nesting,
long integers, lone surrogates, huge and NaN durations, XML-illegal characters), 20
(atomic output files) and 21 (a session file whose last line is cut off).

The matrix test runs every hostile input through every command and report format and
asserts the three things a user relies on: the exit code is one the CLI documents (0, 1,
2), stderr holds no traceback, and every report written parses (strict JSON, XML).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

ROOT = Path(__file__).resolve().parents[2]
OTEL_EXAMPLE = ROOT / "examples" / "otel_genai_spans.json"
SESSION = Path(__file__).parent / "fixtures" / "eval_example1" / "session.json"
SESSION_GOLD = Path(__file__).parent / "fixtures" / "eval_example1" / "gold.json"
GOLD = [{"tool": "search", "args": {"q": "x"}}]


def _nest(levels: int) -> str:
    return "[" * levels + "]" * levels


def _calls(arg: str, *, tool: str = '"search"', extra: str = "") -> str:
    return f'[{{"tool": {tool}, "args": {{"q": {arg}}}, "result": "ok"{extra}}}]'


def _openai(arguments: str) -> str:
    return json.dumps({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": arguments}}]}}]})


def _otel(change: Callable[[dict[str, Any]], None]) -> str:
    data = json.loads(OTEL_EXAMPLE.read_text(encoding="utf-8"))
    change(data)
    return json.dumps(data)


def _spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for r in data["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]


def _otel_deep_arguments(data: dict[str, Any]) -> None:
    for span in _spans(data):
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.tool.call.arguments":
                attribute["value"] = {"stringValue": '{"q": ' + _nest(900) + '}'}
                return


def _otel_huge_times(data: dict[str, Any]) -> None:
    for span in _spans(data):
        span["endTimeUnixNano"] = "9" * 400


_BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True))

# name -> (file name, text). Each is valid JSON or YAML; each once crashed a command.
TRACES: dict[str, tuple[str, str]] = {
    "nesting-700": ("deep.json", _calls(_nest(700))),
    "nesting-990": ("deep990.json", _calls(_nest(990))),
    "openai-arguments-nesting-900": ("openai.json", _openai('{"q": ' + _nest(900) + '}')),
    "openai-arguments-5000-digit-int": ("openai_int.json", _openai('{"q": ' + "9" * 5000 + '}')),
    "otel-attribute-nesting-900": ("otel.json", _otel(_otel_deep_arguments)),
    "otel-400-digit-timestamps": ("otel_time.json", _otel(_otel_huge_times)),
    "int-5000-digits": ("bigint.json", _calls("9" * 5000)),
    "lone-surrogate": ("surrogate.json", _calls('"\\ud800 and \\udfff"', tool='"search\\ud800"')),
    "duration-400-digits": ("dur400.json", _calls('"x"', extra=', "duration": ' + "9" * 400)),
    "duration-nan": ("durnan.json", _calls('"x"', extra=', "duration": NaN')),
    "duration-infinity": ("durinf.json", _calls('"x"', extra=', "duration": -Infinity')),
    "xml-illegal-chars": ("uffff.json", _calls('"\\uffff\\u0001\\u001b[2J"', tool='"search\\uffff\\ufffe\\u0007"')),
    "yaml-alias-bomb": ("bomb.yaml", _BOMB + "calls:\n  - {tool: search, args: {q: *i}}\n"),
    "yaml-self-alias": ("self.yaml", "- &a\n  tool: search\n  args: {q: *a}\n"),
    "yaml-complex-key": ("key.yaml", "- tool: search\n  args:\n    ? [a, b]\n    : 1\n"),
}

# command -> (argv builder, report file suffix or None). {trace} and {gold} are filled in.
COMMANDS: dict[str, tuple[list[str], str | None]] = {
    "validate": (["validate", "{trace}"], None),
    "validate-json": (["validate", "--json", "{trace}"], None),
    "eval-console": (["eval", "{gold}", "{trace}"], None),
    "eval-json": (["eval", "{gold}", "{trace}", "--report", "json", "-o", "{out}"], ".json"),
    "eval-html": (["eval", "{gold}", "{trace}", "--report", "html", "-o", "{out}"], ".html"),
    "eval-md": (["eval", "{gold}", "{trace}", "--report", "md", "-o", "{out}"], ".md"),
    "eval-junit": (["eval", "{gold}", "{trace}", "--report", "junit", "-o", "{out}"], ".xml"),
    "eval-baseline": (["eval", "{gold}", "{trace}", "--save-baseline", "{out}"], ".json"),
    "eval-as-gold": (["eval", "{trace}", "{good}"], None),
    "regression": (["regression", "{baseline}", "{trace}", "--gold-file", "{gold}"], None),
}


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"bare {constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _check_written(path: Path) -> None:
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # strict: a lone surrogate cannot have been written
    if path.suffix == ".json":
        _strict_json(text)
    elif path.suffix == ".xml":
        ET.fromstring(raw)
    assert text.strip()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("hostile")
    (base / "gold.json").write_text(json.dumps(GOLD), encoding="utf-8")
    (base / "good.json").write_text(_calls('"x"'), encoding="utf-8")
    for name, text in TRACES.values():
        (base / name).write_text(text, encoding="utf-8")
    return base


@pytest.fixture(scope="module")
def run_cli() -> Callable[..., Any]:
    """The real CLI in-process (installed plugins: every adapter), stderr kept apart."""
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli
    from toolscore_core.kernel.plugins import PluginManager

    pm = PluginManager(autoload=True, strict=True)

    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, list(args), obj=App(pm=pm), catch_exceptions=True)

    return run


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("kind", list(TRACES))
def test_extreme_input_never_a_traceback(kind: str, command: str, workdir: Path, run_cli: Any,
                                         tmp_path: Path) -> None:
    argv, suffix = COMMANDS[command]
    out = tmp_path / f"report{suffix or ''}"
    baseline = workdir / "baseline.json"
    if command == "regression" and not baseline.exists():
        made = run_cli("eval", str(workdir / "gold.json"), str(workdir / "good.json"), "--save-baseline", str(baseline))
        assert made.exit_code in (0, 1), made.output
    values = {"trace": str(workdir / TRACES[kind][0]), "gold": str(workdir / "gold.json"), "out": str(out),
              "good": str(workdir / "good.json"), "baseline": str(baseline)}
    started = time.monotonic()
    result = run_cli(*(part.format(**values) for part in argv))
    assert time.monotonic() - started < 20, "a hostile input must not make a command hang"
    problem = result.exception if not isinstance(result.exception, SystemExit) else None
    assert problem is None, f"{type(problem).__name__}: {problem}"
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert result.stderr.startswith("toolscore: error:") or result.stderr.startswith("Usage:"), result.stderr
        assert len(result.stderr.strip().splitlines()) <= 3  # one paragraph
    if command == "validate-json" and result.exit_code == 0:
        _strict_json(result.stdout)
    if suffix is not None and out.exists():
        _check_written(out)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []  # a failed write leaves no temporary file behind


def test_the_real_process_writes_valid_reports_for_surrogates_and_xml_illegal_names(workdir: Path,
                                                                                    tmp_path: Path) -> None:
    """Through a real process (real UTF-8 stdout): the cases that crashed every report format."""
    for kind in ("lone-surrogate", "xml-illegal-chars", "duration-nan"):
        trace = workdir / TRACES[kind][0]
        for fmt, suffix in (("console", ".txt"), ("json", ".json"), ("junit", ".xml"), ("html", ".html"),
                            ("md", ".md")):
            out = tmp_path / f"{kind}{suffix}"
            done = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "eval", str(workdir / "gold.json"),
                                   str(trace), "--report", fmt, "-o", str(out)],
                                  capture_output=True, text=True, errors="replace", timeout=60)
            assert "Traceback" not in done.stderr, done.stderr
            assert done.returncode in (0, 1), (kind, fmt, done.stderr)
            _check_written(out)
    junit = (tmp_path / "xml-illegal-chars.xml").read_text(encoding="utf-8")
    assert "search\ufffd\ufffd" in junit  # U+FFFF and U+FFFE shown as U+FFFD, not dropped silently
    assert "\uffff" not in junit and "\x07" not in junit


def test_what_each_refusal_says(workdir: Path, run_cli: Any) -> None:
    def error(kind: str) -> str:
        result = run_cli("validate", str(workdir / TRACES[kind][0]))
        assert result.exit_code == 2, result.output
        return result.stderr

    assert "nested more than 100 levels deep" in error("nesting-700")
    assert "integer of 5,000 digits" in error("int-5000-digits") and "line 1, column" in error("int-5000-digits")
    assert "function.arguments" in error("openai-arguments-5000-digit-int")
    bomb = error("yaml-alias-bomb")
    assert "bomb.yaml" in bomb and "aliases that expand it to" in bomb and "alias bomb" in bomb
    assert "alias inside its own anchor" in error("yaml-self-alias") and "line 1" in error("yaml-self-alias")
    assert "uses a sequence as a mapping key" in error("yaml-complex-key")


def test_values_past_no_limit_are_read_as_they_are(workdir: Path, run_cli: Any) -> None:
    """Read safely, reported correctly: a surrogate becomes U+FFFD, a NaN or huge duration unknown."""
    result = run_cli("validate", "--json", str(workdir / TRACES["lone-surrogate"][0]))
    assert result.exit_code == 0, result.output
    call = _strict_json(result.stdout)["calls"][0]
    assert call["tool"] == "search\ufffd"
    assert call["args"] == {"q": "\ufffd and \ufffd"}
    for kind in ("duration-nan", "duration-400-digits", "duration-infinity"):
        result = run_cli("validate", "--json", str(workdir / TRACES[kind][0]))
        assert result.exit_code == 0, result.output
        assert _strict_json(result.stdout)["calls"][0]["duration"] is None


def test_a_yaml_alias_bomb_is_refused_in_little_time_and_memory(tmp_path: Path) -> None:
    from toolscore_core.kernel.errors import InputError
    from toolscore_core.scoring.contracts import load_contract

    gold = tmp_path / "gold.yaml"
    gold.write_text(_BOMB + "expected:\n  - {tool: search, args: {q: *i}}\n", encoding="utf-8")
    assert gold.stat().st_size < 600
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(InputError, match="alias"):
            load_contract(gold)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 5
    assert peak < 20 * 1024 * 1024


def test_a_few_aliases_still_work(tmp_path: Path) -> None:
    from toolscore_core.scoring.contracts import load_contract

    gold = tmp_path / "gold.yaml"
    gold.write_text("expected:\n  - {tool: search, args: &q {q: x, n: [1, 2]}}\n  - {tool: search, args: *q}\n",
                    encoding="utf-8")
    contract = load_contract(gold)
    assert [c.args for c in contract.expected] == [{"q": "x", "n": [1, 2]}] * 2


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.kernel.errors import InputError
    from toolscore_core.kernel.files import load_data_file

    big = tmp_path / "big.json"
    with big.open("wb") as handle:  # sparse: 300 MB on paper, nothing on disk
        handle.truncate(300 * 1024 * 1024)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            load_data_file(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "big.json" in str(caught.value) and "256 MB" in str(caught.value)
    assert "TOOLSCORE_MAX_INPUT_MB" in str(caught.value)
    assert peak < 10 * 1024 * 1024
    monkeypatch.setenv("TOOLSCORE_MAX_INPUT_MB", "1")
    small = tmp_path / "small.json"
    small.write_text(json.dumps([{"tool": "t", "args": {"q": "x" * (2 * 1024 * 1024)}}]), encoding="utf-8")
    with pytest.raises(InputError, match="over the 1 MB"):
        load_data_file(small)
    monkeypatch.setenv("TOOLSCORE_MAX_INPUT_MB", "nan")
    with pytest.raises(InputError, match="TOOLSCORE_MAX_INPUT_MB"):
        load_data_file(small)


def test_the_read_limits_cost_nothing_on_ordinary_data() -> None:
    from toolscore_core.kernel import readlimits

    value = {"a": [1, 2, {"b": "c"}]}
    assert readlimits.settle(value, json.dumps(value)) is value
    assert readlimits.loads('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}  # a pair is one character
    assert readlimits.loads(_nest(100)) is not None  # exactly the limit is read
    with pytest.raises(readlimits.InputError):
        readlimits.loads(_nest(101))


# --- item 13: a regex that backtracks forever -------------------------------------------------------------


@pytest.mark.parametrize("where", ["forbidden", "gold"])
def test_a_catastrophic_regex_is_stopped_and_named(where: str, tmp_path: Path, run_cli: Any) -> None:
    pattern = "(a|aa)+b"
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([{"tool": "search", "args": {"q": "a" * 5000}, "result": "ok"}]), encoding="utf-8")
    rules = tmp_path / "rules.json"
    if where == "forbidden":
        rules.write_text(json.dumps([{"tool": "search", "args": {"q": {"$regex": pattern}}, "reason": "r"}]),
                         encoding="utf-8")
        gold = tmp_path / "gold.json"
        gold.write_text(json.dumps(GOLD), encoding="utf-8")
        argv = ["eval", str(gold), str(trace), "--forbidden", str(rules)]
    else:
        rules.write_text(json.dumps([{"tool": "search", "args": {"q": {"$regex": pattern}}}]), encoding="utf-8")
        argv = ["eval", str(rules), str(trace)]
    started = time.monotonic()
    result = run_cli(*argv)
    assert time.monotonic() - started < 15  # Python's re takes hours on this
    assert result.exit_code == 2, result.output
    assert "rules.json, at $[0].args.q" in result.stderr
    assert "(a|aa)+b" in result.stderr and "catastrophic backtracking" in result.stderr


def test_an_ordinary_regex_still_matches_as_before() -> None:
    from toolscore_core.scoring.matchers import Regex

    assert Regex(r"FL-\d+").matches("FL-100")
    assert not Regex(r"FL-\d+").matches("FL-100x")
    assert Regex("rm -rf").search("sudo rm -rf /srv")
    assert Regex(r"(\w+\s?)*;").search("a b c;")


# --- item 20: every output file is written atomically ------------------------------------------------------


def test_concurrent_save_baseline_never_leaves_a_broken_file(tmp_path: Path) -> None:
    """Eight processes save the same baseline again and again; a reader always finds one whole file."""
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(GOLD), encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([{"tool": "search", "args": {"q": "x" * 200_000}, "result": "ok"}]),
                     encoding="utf-8")
    baseline = tmp_path / "baseline.json"
    script = tmp_path / "writer.py"
    script.write_text(
        "import sys\n"
        "from pathlib import Path\n"
        "from toolscore_core.kernel.traces import load_trace_file\n"
        "from toolscore_core.reports.baseline import save_baseline\n"
        "from toolscore_core.scoring.evaluation import evaluate_trace\n"
        "evaluation = evaluate_trace(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "for _ in range(25):\n"
        "    save_baseline(evaluation, sys.argv[3], gold_file='g' * 50_000, trace_file=sys.argv[2])\n",
        encoding="utf-8")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    writers = [subprocess.Popen([sys.executable, str(script), str(gold), str(trace), str(baseline)], env=env,
                                stderr=subprocess.PIPE) for _ in range(8)]
    reads = 0
    try:
        deadline = time.monotonic() + 60
        while any(w.poll() is None for w in writers) and time.monotonic() < deadline:
            if baseline.exists():
                data = _strict_json(baseline.read_text(encoding="utf-8"))
                assert data["toolscore_baseline"] == 1 and len(data["gold_file"]) == 50_000
                reads += 1
    finally:
        for w in writers:
            _, err = w.communicate(timeout=60)
            assert w.returncode == 0, err.decode(errors="replace")
    data = _strict_json(baseline.read_text(encoding="utf-8"))
    assert data["counts"]["actual_calls"] == 1
    assert reads > 0
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_write_atomic_keeps_the_old_file_when_rendering_fails(tmp_path: Path) -> None:
    from toolscore_core.kernel.errors import InputError
    from toolscore_core.kernel.files import write_atomic

    target = tmp_path / "report.json"
    write_atomic(target, '{"old": true}\n')
    target.chmod(0o640)

    def broken(stream: Any) -> None:
        stream.write('{"half": ')
        raise RuntimeError("renderer crashed")

    with pytest.raises(RuntimeError):
        write_atomic(target, broken)
    assert _strict_json(target.read_text(encoding="utf-8")) == {"old": True}
    write_atomic(target, '{"new": true}\n')
    assert target.stat().st_mode & 0o777 == 0o640  # the mode the file had is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    with pytest.raises(InputError, match="cannot write the report"):
        write_atomic(tmp_path / "missing" / "r.json", "{}", what="the report")


# --- item 21: a session file whose last line is cut off ------------------------------------------------------


def test_a_cut_off_last_line_is_skipped_and_said(tmp_path: Path, run_cli: Any) -> None:
    whole = SESSION.read_bytes()
    assert whole.endswith(b"\n")
    cut = tmp_path / "session.jsonl"
    cut.write_bytes(whole[:-40])  # a recorder killed in the middle of its last line
    result = run_cli("validate", "--json", str(cut))
    assert result.exit_code == 0, result.output
    assert "the last line is cut off" in result.stderr and "session.jsonl, line" in result.stderr
    assert len(_strict_json(result.stdout)["calls"]) == 1
    scored = run_cli("eval", str(SESSION_GOLD), str(cut))
    assert scored.exit_code in (0, 1), scored.output
    assert scored.stderr.count("the last line is cut off") == 1
    intact = run_cli("validate", str(SESSION))
    assert "cut off" not in intact.stderr


def test_a_bad_line_before_the_last_is_still_an_error(tmp_path: Path, run_cli: Any) -> None:
    lines = SESSION.read_text(encoding="utf-8").splitlines()
    damaged = tmp_path / "session.jsonl"
    damaged.write_text("\n".join([lines[0], lines[1][:-5], *lines[2:]]) + "\n", encoding="utf-8")
    result = run_cli("validate", str(damaged))
    assert result.exit_code == 2
    assert "line 2" in result.stderr and "not valid JSON" in result.stderr
