"""MCP clients: session start, tools/list and per-call latency on real servers.

Run: .venv/bin/python bench/bench_mcp_clients.py [--calls N] [--sessions S]

Targets (from $TOOLSCORE_MCP_SERVERS, default .cache/mcp-servers; `make servers`):
- server-memory over stdio, era auto (server/discover probe, then the handshake) and
  era handshake (no probe): what the automatic era choice costs;
- server-memory behind `toolscore mcp record` (the relay's overhead per call);
- server-everything over Streamable HTTP on 127.0.0.1 (SSE replies, a session id).

For each: median "start" (spawn or connect + initialize, over S sessions), median
tools/list, and the median / p95 of N sequential tools/call round trips (read_graph on
memory, echo on everything). Wall-clock, single client, sequential calls.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolscore_mcp.client import MCPHttpClient, MCPStdioClient
from toolscore_mcp.session import MCPClient

REPO = Path(__file__).resolve().parents[1]
SERVERS = Path(os.environ.get("TOOLSCORE_MCP_SERVERS") or REPO / ".cache" / "mcp-servers")
PACKAGES = SERVERS / "node_modules" / "@modelcontextprotocol"


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(make: Callable[[], MCPClient], tool: str, args: dict[str, Any], calls: int, sessions: int) -> dict[str, Any]:
    starts, lists = [], []
    call_times: list[float] = []
    era = None
    for index in range(sessions):
        client = make()
        began = time.perf_counter()
        client.start()
        client.initialize()
        starts.append(time.perf_counter() - began)
        era = client.era
        began = time.perf_counter()
        client.list_tools()
        lists.append(time.perf_counter() - began)
        if index == 0:
            for _ in range(calls):
                outcome = client.call_tool(tool, args)
                if not outcome.ok:
                    raise SystemExit(f"{tool} failed: {outcome}")
                call_times.append(outcome.duration)
        client.close()
    return {
        "era": era,
        "start_ms": statistics.median(starts) * 1000,
        "list_ms": statistics.median(lists) * 1000,
        "call_median_ms": statistics.median(call_times) * 1000,
        "call_p95_ms": percentile(call_times, 0.95) * 1000,
        "calls_per_s": len(call_times) / sum(call_times),
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=5)
    opts = parser.parse_args()
    memory = ["node", str(PACKAGES / "server-memory" / "dist" / "index.js")]
    everything = PACKAGES / "server-everything" / "dist" / "index.js"
    if not everything.is_file():
        raise SystemExit(f"reference servers missing in {SERVERS}: run `make servers`")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"MEMORY_FILE_PATH": str(Path(tmp) / "memory.jsonl")}
        rows.append(("server-memory, stdio, era auto", measure(
            lambda: MCPStdioClient(memory, env=env), "read_graph", {}, opts.calls, opts.sessions)))
        rows.append(("server-memory, stdio, era handshake", measure(
            lambda: MCPStdioClient(memory, env=env, era="handshake"), "read_graph", {}, opts.calls, opts.sessions)))
        relay = [sys.executable, "-m", "toolscore_core.cli", "mcp", "record", "-o", str(Path(tmp) / "s.jsonl"), "--"]
        rows.append(("server-memory behind `mcp record`", measure(
            lambda: MCPStdioClient([*relay, *memory], env=env, era="handshake"), "read_graph", {}, opts.calls,
            opts.sessions)))
        port = free_port()
        log = open(Path(tmp) / "everything.log", "wb")  # noqa: SIM115 (closed below)
        server = subprocess.Popen(
            ["node", "--require", str(REPO / "tests" / "mcp" / "servers" / "bind_localhost.cjs"), str(everything),
             "streamableHttp"], env={**os.environ, "PORT": str(port)}, stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            url = f"http://127.0.0.1:{port}/mcp"
            rows.append(("server-everything, Streamable HTTP", measure(
                lambda: MCPHttpClient(url), "echo", {"message": "hi"}, opts.calls, opts.sessions)))
        finally:
            server.terminate()
            server.wait()
            log.close()
    print(f"calls per target: {opts.calls} sequential; sessions: {opts.sessions}")
    print("| target | era | start (median) | tools/list | call median | call p95 | calls/s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, row in rows:
        print(f"| {label} | {row['era']} | {row['start_ms']:.0f} ms | {row['list_ms']:.1f} ms | "
              f"{row['call_median_ms']:.2f} ms | {row['call_p95_ms']:.2f} ms | {row['calls_per_s']:.0f} |")


if __name__ == "__main__":
    main()
