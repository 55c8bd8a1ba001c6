"""toolscore-export needs only the kernel: an export of run rows works, and imports no adapter, when the
adapters' distribution is not installed (issue 11).

Why: the per-trace pool's module once imported the plain trace reader, and through it the otel adapter,
at its top, and every export imports that module's MIN_BYTES: without toolscore-adapters an export of
run rows raised ModuleNotFoundError, and with it each export spent ~16 ms importing span readers it
never used. A fresh interpreter each, with ``toolscore_adapters`` made unimportable or watched.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
if sys.argv[1] == 'blocked':
    sys.modules['toolscore_adapters'] = None  # import toolscore_adapters... raises ImportError
from pathlib import Path
from toolscore_core import RunCall, RunRow
from toolscore_export import export_runs
import toolscore_export.per_trace_pool  # importable without the adapters, and without importing them
folder = Path(sys.argv[2])
row = RunRow(task_id='t', arm_id='a', repetition=1, status='completed', outcome='pass', order=1, seed=1,
             study='s', provider='scripted', model='scripted', turns=1, final_answer='done',
             calls=(RunCall(tool='create_note', id='c1', args={'title': 'x'}, result='ok', is_error=False),))
import json
(folder / 'runs.jsonl').write_text(json.dumps(row.to_dict()) + '\\n', encoding='utf-8')
result = export_runs([folder / 'runs.jsonl'], folder / 'out.jsonl', workers=1)
print(result.records, any(name.startswith('toolscore_adapters.') for name in sys.modules))
"""


def _export(mode: str, folder: Path) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, mode, str(folder)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_run_rows_export_without_the_adapters_installed(tmp_path: Path) -> None:
    assert _export("blocked", tmp_path) == "1 False"


def test_run_rows_export_imports_no_adapter_when_installed(tmp_path: Path) -> None:
    assert _export("installed", tmp_path) == "1 False"
