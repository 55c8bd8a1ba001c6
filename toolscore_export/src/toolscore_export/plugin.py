"""Hook implementations of toolscore-export.

The neutral run-record exporters have not landed yet, so this distribution declares no
entry points and registers nothing. When they do, this module is the only one the entry
points name.
"""
