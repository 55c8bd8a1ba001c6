"""The installed entry point registers every provider; the fake server runs standalone."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

from toolscore_core import ModelRequest, UserMessage, collect


def test_hook_toolscore_register_providers_from_the_installed_entry_point(installed_plugin_manager):
    providers = collect(installed_plugin_manager, "providers")
    assert {"scripted", "openai", "anthropic", "openai-chat"} <= set(providers.names())
    assert providers.entry("openai").distribution == "toolscore-providers"
    scripted = providers.create("scripted", model="scripted", client=None, base_url=None,
                                api_key_env=None, script=[{"text": "hi"}])
    assert scripted.complete(ModelRequest(messages=[UserMessage("x")])).text == "hi"
    openai = providers.create("openai", model="gpt-test", client=None, base_url="http://127.0.0.1:9/v1",
                              api_key_env="SOME_KEY_VAR", script=[])
    assert (openai.model, openai.base_url, openai.api_key_env) == ("gpt-test", "http://127.0.0.1:9/v1",
                                                                   "SOME_KEY_VAR")
    assert "SOME_KEY_VAR" in repr(openai)


def test_listing_providers_imports_no_sdk():
    code = ("import sys; from toolscore_core import collect; from toolscore_core.kernel.plugins import "
            "PluginManager; collect(PluginManager(autoload=True, strict=True), 'providers'); "
            "print(sorted(m for m in ('openai', 'anthropic', 'httpx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True)
    assert out.stdout.strip() == "[]"


def test_the_fake_server_runs_standalone_from_a_script_file(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "hello from the script"}]))
    proc = subprocess.Popen([sys.executable, "-m", "toolscore_providers.fake_server", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        base_url = line.strip().rsplit(" ", 1)[-1]
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        request = urllib.request.Request(f"{base_url}/chat/completions", method="POST",
                                         data=json.dumps({"model": "m", "messages": []}).encode(),
                                         headers={"content-type": "application/json"})
        started = time.monotonic()
        with urllib.request.urlopen(request, timeout=5) as answer:  # 127.0.0.1 only
            body = json.loads(answer.read())
        assert body["choices"][0]["message"]["content"] == "hello from the script"
        assert time.monotonic() - started < 2
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_the_standalone_server_refuses_a_bad_script(tmp_path):
    script = tmp_path / "script.json"
    script.write_text('{"not": "a list"}')
    out = subprocess.run([sys.executable, "-m", "toolscore_providers.fake_server", "--script", str(script)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "must be a JSON list" in out.stderr
