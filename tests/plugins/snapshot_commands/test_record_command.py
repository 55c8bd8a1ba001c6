"""``toolscore record -- CMD``: real agents (the real openai and anthropic SDKs) talking to the
scripted model server on 127.0.0.1, run as children of the real ``toolscore`` command.

The server answers tool calls; the child's traffic is captured by our sitecustomize, and
the snapshot must hold exactly the calls the server sent, pending, ready for approve.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toolscore_pytest.commands.capture import CAPTURE_ENV, SITE_DIR

from toolscore_providers.fake_server import FakeModelServer

TOOLSCORE = [sys.executable, "-m", "toolscore_core.cli"]
KEY = "test-key-do-not-leak-7f3a9c"
WEATHER = {"tool": "get_weather", "args": {"city": "Paris"}}
BOOK = {"tool": "book_flight", "args": {"to": "NYC", "seats": 2}}

OPENAI_AGENT = textwrap.dedent("""
    import json, os, sys
    import openai

    client = openai.OpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key=os.environ["MODEL_KEY"], max_retries=0)
    messages = [{"role": "user", "content": "weather in Paris, then book"}]
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
             for n in ("get_weather", "book_flight")]
    for _ in range(5):
        reply = client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools)
        message = reply.choices[0].message
        if not message.tool_calls:
            break
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "ok"})
    print("agent done:", message.content)
    sys.exit(int(os.environ.get("AGENT_EXIT", "0")))
""")

ANTHROPIC_AGENT = textwrap.dedent("""
    import os
    import anthropic

    client = anthropic.Anthropic(base_url=os.environ["MODEL_BASE_URL"], api_key=os.environ["MODEL_KEY"], max_retries=0)
    messages = [{"role": "user", "content": "book"}]
    for _ in range(5):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=100, messages=messages,
                                       tools=[{"name": "book_flight", "input_schema": {"type": "object"}}])
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            break
        messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": u.id, "content": "ok"}
                                                     for u in uses]})
    print("agent done")
""")

STREAMING_AGENT = textwrap.dedent("""
    import os
    import openai

    client = openai.OpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key=os.environ["MODEL_KEY"], max_retries=0)
    for _chunk in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}],
                                                 stream=True):
        pass
    print("streamed")
""")


@pytest.fixture
def model_server():
    servers = []

    def start(script):
        server = FakeModelServer(script).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _env(server, **extra):
    return {"MODEL_BASE_URL": server.base_url, "MODEL_KEY": KEY, **extra}


@pytest.mark.slow  # a child process imports the real SDK: seconds on a loaded machine
def test_openai_agent_is_recorded_then_approved_listed_shown_diffed_removed(
        project, store, model_server, run_toolscore, cli, tmp_path):
    server = model_server([{"calls": [WEATHER]}, {"calls": [BOOK]}, {"text": "booked"}])
    (project / "agent.py").write_text(OPENAI_AGENT, encoding="utf-8")
    result = run_toolscore("record", "--name", "booking", "--", sys.executable, "agent.py", env=_env(server))
    assert result.returncode == 0, result.stderr
    assert "agent done: booked" in result.stdout  # the program itself ran unchanged
    snapshot = store.load("booking")
    assert snapshot is not None and not snapshot.approved and snapshot.source == "record"
    assert snapshot.calls == (WEATHER, BOOK)
    assert "Recorded snapshot 'booking' (2 call(s)) - pending approval." in result.stdout

    # The rest of the loop in-process (the same CLI, without a child's start-up cost).
    listed = cli("snapshots", "list", "--json")
    assert [(r["name"], r["state"], r["calls"]) for r in json.loads(listed.output)] == [("booking", "pending", 2)]
    assert cli("approve", "booking").exit_code == 0
    assert store.load("booking").approved
    shown = cli("snapshots", "show", "booking")
    assert "(approved)" in shown.output and "book_flight" in shown.output
    trace = tmp_path / "again.json"
    trace.write_text(json.dumps([WEATHER, {"tool": "book_flight", "args": {"to": "LAX", "seats": 2}}]))
    diffed = cli("snapshots", "diff", "booking", "--against", str(trace))
    assert diffed.exit_code == 1 and "args differ" in diffed.output
    assert cli("snapshots", "rm", "booking", "--yes").exit_code == 0
    assert store.list() == []


@pytest.mark.slow
def test_anthropic_agent_and_a_derived_name(project, store, model_server, run_toolscore):
    server = model_server([{"calls": [BOOK]}, {"text": "done"}])
    (project / "claude_agent.py").write_text(ANTHROPIC_AGENT, encoding="utf-8")
    result = run_toolscore("record", "--", sys.executable, "claude_agent.py", env=_env(server))
    assert result.returncode == 0, result.stderr
    [snapshot] = store.list()
    assert snapshot.name.startswith("record-") and "claude_agent.py" in snapshot.name
    assert f"'{snapshot.name}'" in result.stdout  # the derived name is printed
    assert snapshot.calls == (BOOK,)


@pytest.mark.slow
def test_user_sitecustomize_still_runs_and_exit_code_passes_through(project, store, model_server, run_toolscore,
                                                                   tmp_path):
    user_site = tmp_path / "user_site"
    user_site.mkdir()
    (user_site / "sitecustomize.py").write_text("print('user sitecustomize ran')\n", encoding="utf-8")
    server = model_server([{"calls": [WEATHER]}, {"text": "done"}])
    (project / "agent.py").write_text(OPENAI_AGENT, encoding="utf-8")
    result = run_toolscore("record", "--name", "w", "--", sys.executable, "agent.py",
                           env=_env(server, PYTHONPATH=str(user_site), AGENT_EXIT="3"))
    assert result.returncode == 3, result.stderr
    assert "user sitecustomize ran" in result.stdout
    assert store.load("w").calls == (WEATHER,)


def test_nothing_captured_is_exit_1_with_what_to_check(project, store, run_toolscore):
    result = run_toolscore("record", "--name", "x", "--", sys.executable, "-c", "print('no model here')")
    assert result.returncode == 1
    assert "nothing recorded" in result.stderr and "toolscore_snapshot" in result.stderr
    assert store.list() == []
    failing = run_toolscore("record", "--", sys.executable, "-c", "raise SystemExit(5)")
    assert failing.returncode == 5  # the child's failure wins over "nothing recorded"


def test_existing_name_is_refused_before_running(project, add_snapshot, run_toolscore, tmp_path):
    add_snapshot("x", [WEATHER], approved=True)
    marker = tmp_path / "ran"
    result = run_toolscore("record", "--name", "x", "--", sys.executable, "-c",
                           f"open({str(marker)!r}, 'w').close()")
    assert result.returncode == 2 and "--update" in result.stderr
    assert not marker.exists()


def test_missing_command_is_exit_2(project, run_toolscore):
    result = run_toolscore("record", "--", "no-such-command-c1")
    assert result.returncode == 2
    assert "command not found: no-such-command-c1" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_streamed_responses_are_counted_not_captured(project, store, model_server, run_toolscore):
    server = model_server([{"raw": "data: [DONE]\n\n", "content_type": "text/event-stream"}])
    (project / "stream.py").write_text(STREAMING_AGENT, encoding="utf-8")
    result = run_toolscore("record", "--name", "s", "--", sys.executable, "stream.py", env=_env(server))
    assert "streamed" in result.stdout  # the program read its stream: we did not consume it
    assert "1 streamed model response(s) were not captured" in result.stdout
    assert result.returncode == 1 and store.list() == []


def _capture_child(tmp_path: Path, code: str, server=None) -> tuple[subprocess.CompletedProcess[str], Path]:
    capture = tmp_path / "capture.jsonl"
    env = {**os.environ, CAPTURE_ENV: str(capture), "PYTHONPATH": str(SITE_DIR), "MODEL_KEY": KEY}
    if server is not None:
        env["MODEL_BASE_URL"] = server.base_url
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    return done, capture


def test_capture_never_imports_httpx_itself(tmp_path):
    done, _ = _capture_child(tmp_path, "import sys; print(bool({'httpx', 'httpx2'} & set(sys.modules)))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.slow
def test_capture_keeps_bodies_never_headers_or_keys(tmp_path, model_server):
    server = model_server([{"calls": [WEATHER]}, {"text": "done"}])
    done, capture = _capture_child(tmp_path, OPENAI_AGENT, server)
    assert done.returncode == 0, done.stderr
    text = capture.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["path"] for line in lines] == ["/v1/chat/completions"] * 2
    assert lines[0]["body"]["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert KEY not in text and "authorization" not in text.lower()
    assert server.requests[0].headers["authorization"] == "[redacted]"  # the key was sent, as a header


@pytest.mark.slow
def test_async_client_is_captured(tmp_path, model_server):
    server = model_server([{"calls": [BOOK]}])
    code = textwrap.dedent("""
        import asyncio, os, openai
        async def main():
            client = openai.AsyncOpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key=os.environ["MODEL_KEY"])
            await client.responses.create(model="gpt-4o", input="book")
        asyncio.run(main())
    """)
    done, capture = _capture_child(tmp_path, code, server)
    assert done.returncode == 0, done.stderr
    from toolscore_pytest.commands.capture import read_capture

    captured = read_capture(capture)
    assert captured.calls == (BOOK,) and captured.responses == 1


PYTEST_SUITE = textwrap.dedent("""
    import pytest

    @pytest.mark.parametrize("city", ["Paris", "Rome"])
    def test_weather(toolscore_snapshot, city):
        toolscore_snapshot([{"tool": "get_weather", "args": {"city": city}}])
""")


@pytest.mark.slow
def test_pytest_child_records_pending_snapshots_even_with_ci_set(project, store, run_toolscore):
    (project / "tests").mkdir()
    (project / "tests" / "test_agent.py").write_text(PYTEST_SUITE, encoding="utf-8")
    result = run_toolscore("record", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/",
                           env={"CI": "true"})
    assert result.returncode == 0, result.stdout + result.stderr
    names = sorted(s.name for s in store.list())
    assert names == ["tests/test_agent.py::test_weather[Paris]", "tests/test_agent.py::test_weather[Rome]"]
    assert all(not s.approved for s in store.list())
    assert "The command recorded 2 snapshot(s):" in result.stdout
    assert "nothing recorded" not in result.stderr
    # Recording the same calls again rewrites nothing; the message says what is still waiting.
    again = run_toolscore("record", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/",
                          env={"CI": "true"})
    assert again.returncode == 1, again.stdout + again.stderr
    assert "2 snapshot(s) recorded earlier are still pending approval" in again.stderr
    # Without record, CI refuses to create them: the same run fails and writes nothing new.
    store.delete(names[0])
    plain = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/"], cwd=project,
                           capture_output=True, text=True, timeout=120,
                           env={**{k: v for k, v in os.environ.items() if k != "TOOLSCORE_RECORD"}, "CI": "true"})
    assert plain.returncode != 0
    assert store.load(names[0]) is None


CHILD_WAITING_FOR_A_SIGNAL = textwrap.dedent("""
    import signal, sys, time
    def stop(signum, _frame):
        open(f"got-{signum}", "w").close()
        sys.exit(7)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    print("ready", flush=True)
    for _ in range(600):
        time.sleep(0.05)
    sys.exit(0)
""")


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_ctrl_c_and_sigterm_are_forwarded_to_the_child_and_its_code_returned(project, signame):
    import signal

    signum = getattr(signal, signame)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    # Its own session (no terminal): the signal goes to toolscore alone, which must pass it on.
    proc = subprocess.Popen([*TOOLSCORE, "record", "--name", "c", "--", sys.executable, "-c",
                             CHILD_WAITING_FOR_A_SIGNAL], cwd=project, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signum)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 7
    assert (project / f"got-{int(signum)}").exists()


GEMINI_BODY = {"candidates": [{"content": {"role": "model", "parts": [
    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}, "finishReason": "STOP"}],
    "modelVersion": "gemini-2.5-flash"}


@pytest.fixture
def gemini_server():
    """A 127.0.0.1 server answering a generateContent call (google-genai's REST shape)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args):
            return

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length") or 0))
            data = json.dumps(GEMINI_BODY).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_gemini_generate_content_is_captured_without_the_query_key(tmp_path, gemini_server):
    code = textwrap.dedent(f"""
        import httpx
        url = {gemini_server!r} + "/v1beta/models/gemini-2.5-flash:generateContent?key=SECRET-QUERY-KEY"
        httpx.post(url, json={{"contents": []}}, headers={{"x-goog-api-key": "SECRET-HEADER-KEY"}})
        httpx.post({gemini_server!r} + "/v1beta/models/other:countTokens", json={{}})
    """)
    done, capture = _capture_child(tmp_path, code)
    assert done.returncode == 0, done.stderr
    text = capture.read_text(encoding="utf-8")
    assert "SECRET" not in text  # neither the query string nor the headers are kept
    assert [json.loads(line)["path"] for line in text.splitlines()] == [
        "/v1beta/models/gemini-2.5-flash:generateContent"]  # countTokens is not a model turn
    from toolscore_pytest.commands.capture import read_capture

    assert read_capture(capture).calls == (WEATHER,)


def test_record_dir_reaches_a_pytest_child(project, run_toolscore):
    (project / "tests").mkdir()
    (project / "tests" / "test_agent.py").write_text(PYTEST_SUITE, encoding="utf-8")
    elsewhere = project / "baselines"
    result = run_toolscore("record", "--dir", str(elsewhere), "--", sys.executable, "-m", "pytest", "-q",
                           "-p", "no:cacheprovider", "tests/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "The command recorded 2 snapshot(s):" in result.stdout
    assert len(list(elsewhere.glob("*.json"))) == 2  # the child wrote where `record --dir` looks
    assert not (project / ".toolscore" / "snapshots").exists()


GEMINI_AGENT = textwrap.dedent("""
    import os
    from google import genai

    client = genai.Client(api_key=os.environ["MODEL_KEY"], http_options={"base_url": os.environ["MODEL_BASE_URL"]})
    reply = client.models.generate_content(model="gemini-2.5-flash", contents="weather in Paris?")
    print("agent done:", [part.function_call.name for part in reply.candidates[0].content.parts])
""")


@pytest.mark.slow
def test_gemini_agent_through_the_real_google_genai_sdk(project, store, model_server, run_toolscore):
    server = model_server([{"calls": [WEATHER]}])
    (project / "gemini_agent.py").write_text(GEMINI_AGENT, encoding="utf-8")
    result = run_toolscore("record", "--name", "gemini", "--", sys.executable, "gemini_agent.py", env=_env(server))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "agent done: ['get_weather']" in result.stdout
    snapshot = store.load("gemini")
    assert snapshot is not None and snapshot.calls == (WEATHER,) and not snapshot.approved
    assert KEY not in (store.path_for("gemini").read_text(encoding="utf-8") + result.stdout + result.stderr)
