"""One module per ``toolscore mcp`` subcommand (imported only when it runs)."""
