"""No docstring, comment or document names a path outside this repository.

Why: such a path is meaningful only on the machine it was written on. A reader who follows
it finds nothing, and it leaks how one developer's disk is laid out. Refer to the spec or
name the feature instead; an example path for users is written as ``/path/to/...``.

Checked: Markdown, TOML, YAML and JSON files whole; in Python files the comments and the
docstrings (string literals in code are data, such as a path a test feeds to a parser).
Left out: virtual environments, caches, git's own folder, and the recorded data under the
tests' ``fixtures`` folders, which holds what real programs printed.
"""

from __future__ import annotations

import ast
import io
import re
import tempfile
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = frozenset({".py", ".md", ".toml", ".yml", ".yaml", ".json"})
SKIPPED_PARTS = frozenset({".venv", ".cache", ".git", "__pycache__", ".mypy_cache", ".pytest_cache",
                           ".ruff_cache", ".hypothesis", "node_modules", "build", "dist"})

# what each pattern catches, so a failure says why the text is refused
OUTSIDE_PATHS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the shared spec folders", re.compile(r"shared/seeds|shared/reference|\.\./shared")),
    ("the library folder", re.compile(r"(?<![\w-])\.library\b")),
    ("a home directory", re.compile(r"(?<![\w.])(?:/home/[^/\s`'\"]+/|/Users/[^/\s`'\"]+/|/root/)")),
)


def _skipped(relative: Path) -> bool:
    parts = relative.parts
    if SKIPPED_PARTS.intersection(parts[:-1]):
        return True
    return parts[0] == "tests" and "fixtures" in parts[1:-1]


def checked_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()
                  and not _skipped(p.relative_to(root)))


def _docstrings(tree: ast.AST) -> Iterator[ast.Constant]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].value


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each piece of prose in the file."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        yield from enumerate(text.splitlines(), start=1)
        return
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for constant in _docstrings(ast.parse(text, filename=str(path))):
        for offset, line in enumerate(str(constant.value).splitlines()):
            yield constant.lineno + offset, line


def patterns_for(root: Path) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The fixed patterns, plus the tree's own absolute path and the folder it sits in, read
    from the disk rather than written here, so the check names no machine's layout and follows
    the tree wherever it is cloned. A clone placed straight into the system's temporary folder
    (as CI does) leaves that folder out: ``/tmp/...`` in an example is not a machine's layout."""
    here = root.resolve()
    checks = [*OUTSIDE_PATHS, ("the repository's own absolute path", re.compile(re.escape(here.as_posix() + "/")))]
    parent = here.parent
    if parent != parent.parent and parent != Path(tempfile.gettempdir()).resolve():
        checks.append(("the folder around the repository", re.compile(re.escape(parent.as_posix() + "/"))))
    return tuple(checks)


def outside_paths(root: Path) -> list[str]:
    """``file:line names <what>: <the text>`` for every outside path under ``root``."""
    problems = []
    checks = patterns_for(root)
    for path in checked_files(root):
        where = path.relative_to(root).as_posix()
        for line, text in prose(path):
            named = [what for what, pattern in checks if pattern.search(text)]
            if named:
                problems.append(f"{where}:{line} names {' and '.join(named)}: {text.strip()[:120]}")
    return problems


def test_the_check_reads_the_docs_and_the_sources() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in checked_files(ROOT)}
    assert "docs/architecture.md" in names and "pyproject.toml" in names
    assert "toolscore_core/src/toolscore_core/kernel/plugins.py" in names
    assert not any(n.startswith((".venv/", ".git/")) or "/fixtures/" in n for n in names)


def test_no_prose_names_a_path_outside_the_repository() -> None:
    problems = outside_paths(ROOT)
    assert problems == [], "paths outside the repository:\n" + "\n".join(problems)


def test_each_pattern_and_each_kind_of_file_is_checked(tmp_path: Path) -> None:
    around = tmp_path.resolve().parent.as_posix()  # where this tree sits: outside it
    files = {
        "docs/a.md": f"See {around}/notes/plan.md for details.\n",
        "pkg/mod.py": '"""Read shared/seeds/one.txt first."""\n\nPATH = "/root/data"  # from ../shared/x\n',
        "pkg/other.py": 'def f():\n    """Uses the .library index."""\n    return "/home/ada/acme-api"\n',
        "pyproject.toml": "# built from shared/reference/notes.md\n",
        "ci.yml": "run: cd /Users/ada/repo/\n",
        "data.json": '{"see": "/home/ada/x"}\n',
        "tests/core/fixtures/session.json": f'{{"cwd": "{around}/x"}}\n',
        ".venv/lib/site.py": f"# {around}/x\n",
        "docs/fine.md": "A path such as /path/to/sessions/notes.jsonl, or pydantic.library.\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    problems = outside_paths(tmp_path)
    assert [p.split(": ", 1)[0] for p in problems] == [
        "ci.yml:1 names a home directory",
        "data.json:1 names a home directory",
        "docs/a.md:1 names the folder around the repository",
        "pkg/mod.py:3 names the shared spec folders",
        "pkg/mod.py:1 names the shared spec folders",
        "pkg/other.py:2 names the library folder",
        "pyproject.toml:1 names the shared spec folders",
    ], "\n".join(problems)
