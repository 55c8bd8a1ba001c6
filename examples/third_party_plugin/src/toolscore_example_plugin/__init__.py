"""An example third-party Toolscore plugin (see README.md)."""

__version__ = "0.1.0"
