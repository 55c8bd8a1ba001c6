"""``toolscore init [PATH]``: detect the agent framework and scaffold a passing snapshot suite.

Why it exists: the README's quickstart is ``toolscore init``, ``pytest``, ``toolscore
approve --all``, ``pytest``. Init has to leave a suite that passes on the first run (it
records pending snapshots) and a CI workflow that replays them, without the user writing an
expected-call file, and without ever destroying a file they already have.

Exit codes: 0 files written (or, with ``--dry-run``, would be); 1 nothing written because
every file already exists (``--force`` overwrites); 2 bad input (unknown framework, PATH not
a folder) or a file that could not be written.
"""

from __future__ import annotations

from pathlib import Path

import click

from toolscore_core import InputError, run_command
from toolscore_pytest.init.detect import Detection, detect
from toolscore_pytest.init.frameworks import Framework, framework_names, lookup
from toolscore_pytest.init.scaffold import BLOCKED, OVERWRITE, SKIP, WRITE, Planned, plan, write

_PRIORITY_NOTE = ("agent frameworks come before provider SDKs, then plain MCP; "
                  "choose another with --framework NAME")
_DONE = {WRITE: "wrote", OVERWRITE: "overwrote", SKIP: "skipped", BLOCKED: "FAILED"}
_DRY = {WRITE: "would write", OVERWRITE: "would overwrite", SKIP: "would skip", BLOCKED: "cannot write"}


def _shown(text: object, limit: int = 200) -> str:
    """Text from the user's project (file names, parser messages) made safe to print."""
    from toolscore_core import visible

    return visible(str(text), limit, redacted=False)


@click.command("init")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--framework", "framework_name", metavar="NAME", default=None,
              help="Scaffold for this framework instead of detecting it: " + ", ".join(framework_names()) + ".")
@click.option("--force", is_flag=True, help="Overwrite files that already exist (otherwise they are skipped).")
@click.option("--dry-run", is_flag=True, help="Show what would be written, and write nothing.")
@click.option("--no-workflow", "--no-ci", "no_workflow", is_flag=True,
              help="Do not write the GitHub Actions workflow.")
@click.option("--dir", "dir_option", type=click.Path(path_type=Path), default=None, hidden=True,
              help="The project folder (tool-scorer 1.10.0 spelling of PATH).")
@click.option("-y", "--yes", is_flag=True, hidden=True,
              help="Accepted for tool-scorer 1.10.0 scripts; init never prompts.")
@run_command
def init(path: Path | None, framework_name: str | None, force: bool, dry_run: bool, no_workflow: bool,
         dir_option: Path | None, yes: bool) -> None:
    """Detect the agent framework in PATH (default: the current folder) and scaffold a
    pytest snapshot suite that passes on its first run, plus a GitHub Actions workflow that
    replays the approved snapshots in CI.

    The framework is read from Python imports, pyproject.toml and requirements*.txt. When
    several are found, the first in --framework's list wins (agent frameworks before
    provider SDKs, then plain MCP) and the others are named.

    Writes tests/test_toolscore_snapshots.py, .github/workflows/toolscore.yml and
    .toolscore/README.md. An existing file is never overwritten without --force.
    Exit 1 when every file already existed, 2 on bad input or a file that cannot be written.
    """
    root = _root(path, dir_option)
    detection = detect(root)
    framework = _choose(framework_name, detection)
    files = plan(root, framework, workflow=not no_workflow, force=force)
    if not dry_run:
        write(root, files)
    _report(root, framework, framework_name is not None, detection, files, dry_run)
    if any(f.action == BLOCKED for f in files):
        raise SystemExit(2)
    if not dry_run and all(f.action == SKIP for f in files):
        click.echo("Nothing written: every file already exists (--force overwrites them).")
        raise SystemExit(1)


def _root(path: Path | None, dir_option: Path | None) -> Path:
    if path is not None and dir_option is not None and path.resolve() != dir_option.resolve():
        raise InputError(f"PATH {_shown(path)} and --dir {_shown(dir_option)} name different folders",
                         hint="give the project folder once")
    root = path or dir_option or Path(".")
    if not root.exists():
        raise InputError("folder not found", file=root, hint="pass an existing project folder as PATH")
    if not root.is_dir():
        raise InputError("is not a folder", file=root, hint="pass the project folder, not a file")
    return root


def _choose(name: str | None, detection: Detection) -> Framework:
    if name is None:
        return detection.chosen
    framework = lookup(name)
    if framework is None:
        raise InputError(f"unknown framework '{_shown(name, 60)}' (--framework)",
                         expected="one of " + ", ".join(framework_names()))
    return framework


def _report(root: Path, framework: Framework, forced: bool, detection: Detection, files: list[Planned],
            dry_run: bool) -> None:
    for warning in detection.warnings:
        click.echo(f"warning: {_shown(warning)}")
    if detection.truncated:
        click.echo(f"note: stopped scanning after {detection.files_scanned} Python files")
    found = detection.found
    if forced:
        click.echo(f"Framework: {framework.label} (given with --framework)")
    elif found:
        click.echo(f"Detected framework: {framework.label} ({_evidence(detection, framework)})")
        others = [f for f in found if f.key != framework.key]
        if others:
            click.echo("Also seen: " + ", ".join(f"{f.label} ({_evidence(detection, f)})" for f in others))
            click.echo(f"{framework.label} was chosen: {_PRIORITY_NOTE}.")
    else:
        click.echo(f"No agent framework detected: scaffolding the {framework.label} "
                   "(--framework NAME picks one).")
    labels = _DRY if dry_run else _DONE
    width = max(len(v) for v in labels.values())
    for item in files:
        reason = f" ({_shown(item.reason)})" if item.reason else ""
        click.echo(f"  {labels[item.action]:<{width}}  {item.relpath}{reason}")
    if dry_run:
        click.echo("Dry run: nothing was written.")
        return
    if any(f.action in (WRITE, OVERWRITE) for f in files):
        where = "" if root.resolve() == Path.cwd().resolve() else f" (in {_shown(root)})"
        click.echo(f"Next: run `pytest`{where} to record the snapshots, then `toolscore approve --all`.")


def _evidence(detection: Detection, framework: Framework) -> str:
    seen = detection.evidence.get(framework.key, [])
    text = "; ".join(_shown(s, 120) for s in seen[:3])
    return text + (f"; {len(seen) - 3} more" if len(seen) > 3 else "")
