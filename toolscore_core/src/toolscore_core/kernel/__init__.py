"""The plugin kernel: what every feature distribution plugs into.

Read it in this order: ``hookspecs`` (the kinds of thing a plugin contributes and why each
hook returns its items), ``interfaces`` (the base class of each kind), ``plugins`` (the
manager that finds entry points and loads one group at a time), ``registry`` (items by
name, conflicts, protected core names), then the shared contracts: ``model`` (calls,
traces, findings), ``providers`` and ``guards`` (a model call and the decision about a
tool call), ``runs`` (the run row and its JSONL file), ``executors`` (where work runs),
``errors`` and ``files`` (reading what users give us) and ``traces`` (any input to a
Trace).

Nothing here imports scoring, reports or a feature distribution at module level: the
kernel stays cheap to import, because ``toolscore --help`` imports it.
"""
