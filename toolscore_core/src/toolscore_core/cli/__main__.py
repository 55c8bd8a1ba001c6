"""``python -m toolscore_core.cli``: the same as the ``toolscore`` command."""

from toolscore_core.cli import main

main()
