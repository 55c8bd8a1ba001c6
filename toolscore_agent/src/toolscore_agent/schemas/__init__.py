"""JSON Schemas shipped with toolscore-agent (read with importlib.resources)."""
