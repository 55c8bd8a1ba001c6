"""The MCP scorecard: generated scenarios, grading and reports (``toolscore mcp test``)."""
