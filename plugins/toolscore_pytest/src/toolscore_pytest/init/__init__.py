"""``toolscore init``: detect a project's agent framework and scaffold a snapshot suite.

Split by job: :mod:`.frameworks` (the known frameworks and their sample runs),
:mod:`.detect` (scanning a project), :mod:`.templates` (the files' text),
:mod:`.scaffold` (deciding and writing files) and :mod:`.init_cmd` (the command).
"""
