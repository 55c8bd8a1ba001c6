"""A stdio "MCP server" that dies at start-up and tells why on stderr, quoting secrets.

    python secret_argv_server.py --token ghp_... [--password PW] [ANY...]

It reads nothing: it prints its own command line (as a careless server's usage error does)
and a retry URL carrying ``?key=`` on stderr, then exits 3 before ``initialize`` is answered.
Tests run ``toolscore mcp list / lint / test`` on it and check that no secret from its
command line or its stderr reaches our output.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    print(f"fatal: bad arguments {sys.argv!r}", file=sys.stderr)
    key = next((arg.partition("=")[2] for arg in sys.argv if arg.startswith("--api-key=")), "")
    print(f"last request: GET https://api.example.com/v1/ping?key={key}&page=1 (401)", file=sys.stderr)
    sys.stderr.flush()
    sys.exit(3)
