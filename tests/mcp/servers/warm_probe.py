"""A probe for warm start: prints what a server sees of its start, then obeys one command.

Run as ``python -m warm_probe [exit CODE | raise | wait]`` from this folder. It writes one
JSON line (argv, cwd, an env var, its session, sys.path[0], __name__, whether it could read
stdin) and then: exits with CODE, raises, or waits for stdin to close.
"""

import json
import os
import sys

line = sys.stdin.readline() if sys.argv[1:2] != ["wait"] else ""
report = {
    "argv": sys.argv[1:],
    "argv0_is_file": sys.argv[0].endswith("warm_probe.py"),
    "cwd": os.getcwd(),
    "probe_env": os.environ.get("TOOLSCORE_PROBE"),
    "leads_session": os.getsid(0) == os.getpid(),
    "path0": sys.path[0],
    "name": __name__,
    "stdin": line.strip(),
}
print(json.dumps(report), flush=True)
print("probe stderr", file=sys.stderr, flush=True)
if sys.argv[1:2] == ["exit"]:
    sys.exit(int(sys.argv[2]))
if sys.argv[1:2] == ["raise"]:
    raise RuntimeError("the probe crashed on purpose")
if sys.argv[1:2] == ["wait"]:
    sys.stdin.read()
