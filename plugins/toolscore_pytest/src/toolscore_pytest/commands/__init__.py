"""The snapshot commands: ``toolscore approve``, ``toolscore snapshots`` and ``toolscore record``.

Each lives in its own module, imported only when its command runs (see
:mod:`toolscore_pytest.plugin`), so ``toolscore --help`` pays for none of them.
"""
