"""Rendering evaluations for people and CI systems: console, Markdown, HTML, JUnit.

``summary`` decides what a report says (once, for every format); ``alignment`` pairs
expected and actual calls into table rows; ``text`` turns values into short, redacted
text; one module per format draws it. The exporters that expose these as ``--report``
formats are in :mod:`toolscore_core.builtin.exporters`.
"""
