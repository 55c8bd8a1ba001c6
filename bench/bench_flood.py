"""Memory of the stdio client under a notification flood (issue 8, item 12).

Run: .venv/bin/python bench/bench_flood.py [--seconds 3] [--text-bytes 2000] [--uncapped]

Starts tests/mcp/servers/flood_server.py (mode ``notifications``): during one tools/call
it writes notifications/progress messages as fast as this client reads them, for
``--seconds``. Prints one JSON object: RSS before the call and at its peak (VmHWM, reset
before the call where the kernel allows, else ru_maxrss), the growth, the wall time, and
how many notifications arrived, were kept and were dropped. ``--uncapped`` lifts the
per-session notification budget, to show what the cap saves.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLOOD_SERVER = REPO / "tests" / "mcp" / "servers" / "flood_server.py"


def rss_mb(field: str) -> float:
    """A VmRSS / VmHWM line of /proc/self/status in MB (ru_maxrss where there is none)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux: write 5 to clear_refs); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--text-bytes", type=int, default=2000)
    parser.add_argument("--uncapped", action="store_true", help="lift the notification budget (the old behaviour)")
    options = parser.parse_args()

    from toolscore_mcp import session
    from toolscore_mcp.client import MCPStdioClient

    if options.uncapped:
        session.MAX_NOTIFICATIONS_KEPT = 10**12
        session.MAX_NOTIFICATION_BYTES_KEPT = 10**15
    client = MCPStdioClient([sys.executable, str(FLOOD_SERVER), "notifications"], timeout=options.seconds + 60)
    with client:
        before = rss_mb("VmRSS")
        peak_reset = reset_peak()
        began = time.perf_counter()
        outcome = client.call_tool("flood", {"seconds": options.seconds, "text_bytes": options.text_bytes})
        wall = time.perf_counter() - began
        peak = rss_mb("VmHWM")
        received = len(client.notifications) + client.notifications_dropped
        report = {
            "seconds": options.seconds, "text_bytes": options.text_bytes, "capped": not options.uncapped,
            "ok": outcome.ok, "written": _written(outcome.result),
            "received": received, "kept": len(client.notifications), "dropped": client.notifications_dropped,
            "rss_before_mb": round(before, 1), "rss_peak_mb": round(peak, 1), "growth_mb": round(peak - before, 1),
            "peak_measure": "VmHWM reset before the call" if peak_reset else "ru_maxrss (whole process)",
            "wall_s": round(wall, 2),
        }
    print(json.dumps(report))
    return 0 if outcome.ok else 1


def _written(result: dict | None) -> int | None:
    try:
        return int(json.loads(result["content"][0]["text"])["written"]) if result else None
    except (KeyError, IndexError, TypeError, ValueError):
        return None


if __name__ == "__main__":
    raise SystemExit(main())
