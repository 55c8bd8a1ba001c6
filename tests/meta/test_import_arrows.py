"""The import arrows the design forbids, checked on every source file of every distribution.

Why a test and not a convention: a forbidden arrow works on a developer's machine, where
every distribution is installed, and breaks only for the user who installed the kernel
alone, or it quietly turns two features into one. The rules below are the whole picture of
which way dependencies point; a failure lists each breach as ``file:line imports X (rule)``.

Every import counts: those at module level, inside functions and under ``TYPE_CHECKING``,
because each of them names a dependency somebody must install (or type-check against). The
one exception is the facade ``toolscore``, whose job is to name feature distributions
lazily: it may do so inside a function or under ``TYPE_CHECKING``, never in code that runs
when it is imported.

The kernel's own module-level imports must also form no cycle. A cycle works only as long as
every module in it happens to be imported in a lucky order, and it makes the kernel
impossible to split. Imports inside functions and under ``TYPE_CHECKING`` are left out
there: they are how a cycle is cut.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FEATURES = frozenset({"toolscore_adapters", "toolscore_mcp", "toolscore_agent", "toolscore_export"})
FIRST_PARTY = FEATURES | {"toolscore_core", "toolscore"}


@dataclass(frozen=True)
class Arrow:
    """One forbidden arrow: modules of ``importers`` may not import ``targets``."""

    rule: str
    importers: frozenset[str]
    targets: frozenset[str]
    run_time_only: bool = False  # allowed inside a function or under TYPE_CHECKING


# The design, as a table. Two further rules need more than a pair of package sets and are
# checked by functions below: "public-api-only" (code under plugins/ and examples/ imports
# only toolscore_core.__all__ names from toolscore_core, toolscore.__all__ names from the
# facade, and the toolscore_core.testing fixtures module, as an outside author must) and
# "private-module" (nobody imports another distribution's _private module or name).
ARROWS: tuple[Arrow, ...] = (
    Arrow("kernel-imports-no-feature", frozenset({"toolscore_core"}), FEATURES),
    Arrow("facade-names-features-lazily", frozenset({"toolscore"}), FEATURES, run_time_only=True),
    Arrow("mcp-never-imports-agent", frozenset({"toolscore_mcp"}), frozenset({"toolscore_agent"})),
    Arrow("export-never-imports-agent-or-mcp", frozenset({"toolscore_export"}),
          frozenset({"toolscore_agent", "toolscore_mcp"})),
    Arrow("adapters-and-mcp-share-through-the-kernel", frozenset({"toolscore_adapters"}),
          frozenset({"toolscore_mcp"})),
    Arrow("adapters-and-mcp-share-through-the-kernel", frozenset({"toolscore_mcp"}),
          frozenset({"toolscore_adapters"})),
)
PUBLIC_ONLY_FOLDERS = ("plugins", "examples")
PUBLIC_MODULES = frozenset({"toolscore_core.testing"})
SKIPPED_PARTS = frozenset({".venv", ".cache", ".git", "__pycache__", "node_modules"})
SKIPPED_PREFIXES = (("tests", "fixtures"),)

@dataclass(frozen=True)
class Source:
    """One .py file: where it is, which distribution folder holds it, its module name."""

    path: Path
    distribution: str  # folder relative to the root: "toolscore_mcp", "plugins/toolscore_judge"
    module: str | None  # dotted name when it sits in a src layout, else None
    is_package: bool


@dataclass(frozen=True)
class Import:
    line: int
    module: str  # absolute dotted module named by the statement
    names: tuple[str, ...]  # for ``from module import a, b``; empty for ``import module``
    module_level: bool  # runs when the file is imported (not in a function, not TYPE_CHECKING)


# -- finding the files ---------------------------------------------------------------------
def distribution_folders(root: Path) -> list[Path]:
    """Each folder that builds one distribution: toolscore_*/, plugins/*/, examples/*/."""
    folders = [p for p in sorted(root.glob("toolscore_*")) if (p / "pyproject.toml").is_file()]
    for parent in PUBLIC_ONLY_FOLDERS:
        folders += [p for p in sorted((root / parent).glob("*")) if (p / "pyproject.toml").is_file()]
    return folders


def _skipped(relative: Path) -> bool:
    parts = relative.parts
    if SKIPPED_PARTS.intersection(parts):
        return True
    return any(parts[i:i + len(prefix)] == prefix for prefix in SKIPPED_PREFIXES for i in range(len(parts)))


def sources(root: Path) -> list[Source]:
    found = []
    for folder in distribution_folders(root):
        distribution = folder.relative_to(root).as_posix()
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(root)
            if _skipped(relative):
                continue
            module = None
            inner = path.relative_to(folder).parts
            if inner[0] == "src" and len(inner) > 2:
                dotted = [*inner[1:-1], path.stem]
                module = ".".join(dotted[:-1] if path.stem == "__init__" else dotted)
            found.append(Source(path, distribution, module, path.stem == "__init__"))
    return found


def package_owners(found: list[Source]) -> dict[str, str]:
    """Top-level package -> the distribution folder that ships it."""
    return {s.module.split(".")[0]: s.distribution for s in found if s.module}


# -- reading the imports -------------------------------------------------------------------
def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(node: ast.ImportFrom, source: Source) -> str | None:
    if not node.level:
        return node.module
    if source.module is None:
        return None  # a relative import outside a src layout: nothing to resolve it against
    package = source.module.split(".") if source.is_package else source.module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base) or None


def imports(source: Source, tree: ast.AST | None = None) -> Iterator[Import]:
    """Every import statement in the file, each marked with when it runs."""
    if tree is None:
        tree = ast.parse(source.path.read_text(encoding="utf-8"), filename=str(source.path))

    def walk(node: ast.AST, module_level: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(child.lineno, alias.name, (), module_level)
            elif isinstance(child, ast.ImportFrom):
                module = _absolute(child, source)
                if module:
                    yield Import(child.lineno, module, tuple(a.name for a in child.names), module_level)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from walk(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for statement in child.body:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), False)
                for statement in child.orelse:
                    yield from walk(ast.Module(body=[statement], type_ignores=[]), module_level)
            else:
                yield from walk(child, module_level)

    yield from walk(tree, True)


def _top(module: str) -> str:
    return module.split(".")[0]


def _is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


# -- the rules -----------------------------------------------------------------------------
def arrow_violations(source: Source, found: Import) -> Iterator[str]:
    if source.module is None:
        return
    importer, target = _top(source.module), _top(found.module)
    for arrow in ARROWS:
        if importer in arrow.importers and target in arrow.targets:
            if arrow.run_time_only and not found.module_level:
                continue
            yield arrow.rule


def public_api_violations(found: Import, public: dict[str, frozenset[str]]) -> Iterator[str]:
    """What an outside author may not import; ``public`` maps a module to its public names."""
    if _top(found.module) not in FIRST_PARTY or found.module in PUBLIC_MODULES:
        return
    if found.module not in public:
        yield found.module
        return
    if not found.names:
        return  # ``import toolscore_core``: every later attribute use is a public name or a typo
    for name in found.names:
        if name not in public[found.module]:
            yield f"{found.module}.{name}"


def private_violations(source: Source, found: Import, owners: dict[str, str]) -> Iterator[str]:
    """A ``_private`` module or name of another distribution."""
    owner = owners.get(_top(found.module))
    if owner is None or owner == source.distribution:
        return
    parts = found.module.split(".")
    if any(_is_private(p) for p in parts[1:]):
        yield found.module
        return
    for name in found.names:
        if _is_private(name):
            yield f"{found.module}.{name}"


def check_arrows(root: Path, public: dict[str, frozenset[str]]) -> list[str]:
    """Every forbidden import under ``root``, one ``file:line imports X (rule)`` each."""
    found = sources(root)
    owners = package_owners(found)
    problems = []
    for source in found:
        where = source.path.relative_to(root).as_posix()
        public_only = source.distribution.split("/")[0] in PUBLIC_ONLY_FOLDERS
        for item in imports(source):
            named = ", ".join(f"{item.module}.{n}" for n in item.names) if item.names else item.module
            problems += [f"{where}:{item.line} imports {named} ({rule})"
                         for rule in arrow_violations(source, item)]
            if public_only:
                problems += [f"{where}:{item.line} imports {name} (public-api-only)"
                             for name in public_api_violations(item, public)]
            problems += [f"{where}:{item.line} imports {name} (private-module)"
                         for name in private_violations(source, item, owners)]
    return problems


# -- kernel cycles -------------------------------------------------------------------------
def kernel_graph(root: Path, package: str = "toolscore_core") -> dict[str, set[str]]:
    """Module -> the kernel modules it imports at module level (what runs on import)."""
    found = [s for s in sources(root) if s.module and _top(s.module) == package]
    modules = {s.module for s in found if s.module}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for source in found:
        assert source.module is not None
        for item in imports(source):
            if not item.module_level or _top(item.module) != package:
                continue
            targets = {f"{item.module}.{n}" for n in item.names} & modules
            if item.module in modules and (not item.names or len(targets) < len(item.names)):
                targets.add(item.module)
            graph[source.module] |= targets - {source.module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) for each group of modules that
    import each other, found with Tarjan's strongly connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_path_through(group, graph) for group in groups]


def _path_through(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest cycle from the group's first module back to itself (breadth first)."""
    start = min(group)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if nxt not in previous:
                    previous[nxt] = node
                    following.append(nxt)
        frontier = following
    return sorted(group)  # unreachable for a strongly connected group


def _short(module: str) -> str:
    return module.rsplit(".", 1)[-1]


# -- the tests -----------------------------------------------------------------------------
def _public_names() -> dict[str, frozenset[str]]:
    import toolscore
    import toolscore_core

    return {"toolscore_core": frozenset(toolscore_core.__all__), "toolscore": frozenset(toolscore.__all__)}


def test_the_checker_reads_every_distribution() -> None:
    found = sources(ROOT)
    names = {s.distribution for s in found}
    assert {"toolscore_core", "toolscore_adapters", "toolscore_mcp", "examples/third_party_plugin"} <= names
    assert any(s.module == "toolscore_core.kernel.plugins" for s in found)
    assert not any("fixtures" in s.path.relative_to(ROOT).parts for s in found)


def test_no_forbidden_import_arrows() -> None:
    problems = check_arrows(ROOT, _public_names())
    assert problems == [], "forbidden imports:\n" + "\n".join(problems)


def test_kernel_module_level_imports_form_no_cycle() -> None:
    found = cycles(kernel_graph(ROOT))
    described = [" -> ".join(_short(m) for m in cycle) for cycle in found]
    assert found == [], "kernel import cycles (cut one with a function-level import):\n" + "\n".join(described)


# -- proof that each rule can fail ---------------------------------------------------------
def _write(root: Path, relative: str, text: str = "") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tiny_repo(root: Path) -> None:
    """Five distributions and one example, each with one import the design forbids."""
    for folder in ("toolscore_core", "toolscore_adapters", "toolscore_mcp", "toolscore_agent",
                   "toolscore_export", "examples/demo"):
        _write(root, f"{folder}/pyproject.toml")
    _write(root, "toolscore_core/src/toolscore_core/__init__.py")
    _write(root, "toolscore_core/src/toolscore_core/_secret.py")
    _write(root, "toolscore_core/src/toolscore_core/kernel/__init__.py")
    _write(root, "toolscore_core/src/toolscore_core/kernel/files.py")
    _write(root, "toolscore_core/src/toolscore_core/kernel/model.py",
           "from typing import TYPE_CHECKING\n"
           "if TYPE_CHECKING:\n    from toolscore_mcp.client import MCPClient\n")
    _write(root, "toolscore_core/src/toolscore/__init__.py",
           "from typing import TYPE_CHECKING\nimport toolscore_adapters.helpers\n"
           "if TYPE_CHECKING:\n    from toolscore_mcp.client import MCPClient\n\n"
           "def __getattr__(name):\n    import toolscore_mcp.client\n")
    _write(root, "toolscore_adapters/src/toolscore_adapters/__init__.py")
    _write(root, "toolscore_adapters/src/toolscore_adapters/_common.py", "from . import helpers\n")
    _write(root, "toolscore_adapters/src/toolscore_adapters/helpers.py",
           "def load():\n    from toolscore_mcp.recorder import SessionRecorder\n")
    _write(root, "toolscore_mcp/src/toolscore_mcp/__init__.py")
    _write(root, "toolscore_mcp/src/toolscore_mcp/client.py",
           "from toolscore_agent import harness\nfrom toolscore_core import _secret\n")
    _write(root, "toolscore_agent/src/toolscore_agent/__init__.py")
    _write(root, "toolscore_agent/src/toolscore_agent/harness.py",
           "from toolscore_adapters._common import to_plain\n")
    _write(root, "toolscore_export/src/toolscore_export/__init__.py",
           "import toolscore_agent\nfrom toolscore_mcp import client\n")
    _write(root, "examples/demo/src/demo/__init__.py",
           "from toolscore_core import ToolCall, Hidden\nfrom toolscore_core.kernel.files import load\n"
           "import toolscore_core.testing\nfrom . import helpers\n")
    _write(root, "examples/demo/src/demo/helpers.py")
    _write(root, "examples/demo/tests/fixtures/bad.py", "import toolscore_core.kernel.model\n")


def test_each_rule_reports_its_bad_import(tmp_path: Path) -> None:
    _tiny_repo(tmp_path)
    public = {"toolscore_core": frozenset({"ToolCall"}), "toolscore": frozenset()}
    problems = check_arrows(tmp_path, public)
    assert sorted(problems) == sorted([
        "toolscore_core/src/toolscore_core/kernel/model.py:3 imports toolscore_mcp.client.MCPClient"
        " (kernel-imports-no-feature)",
        "toolscore_core/src/toolscore/__init__.py:2 imports toolscore_adapters.helpers"
        " (facade-names-features-lazily)",
        "toolscore_mcp/src/toolscore_mcp/client.py:1 imports toolscore_agent.harness (mcp-never-imports-agent)",
        "toolscore_mcp/src/toolscore_mcp/client.py:2 imports toolscore_core._secret (private-module)",
        "toolscore_export/src/toolscore_export/__init__.py:1 imports toolscore_agent"
        " (export-never-imports-agent-or-mcp)",
        "toolscore_export/src/toolscore_export/__init__.py:2 imports toolscore_mcp.client"
        " (export-never-imports-agent-or-mcp)",
        "toolscore_adapters/src/toolscore_adapters/helpers.py:2 imports toolscore_mcp.recorder.SessionRecorder"
        " (adapters-and-mcp-share-through-the-kernel)",
        "toolscore_agent/src/toolscore_agent/harness.py:1 imports toolscore_adapters._common"
        " (private-module)",
        "examples/demo/src/demo/__init__.py:1 imports toolscore_core.Hidden (public-api-only)",
        "examples/demo/src/demo/__init__.py:2 imports toolscore_core.kernel.files (public-api-only)",
    ]), "\n".join(problems)


def test_the_cycle_check_reports_a_module_level_cycle_only(tmp_path: Path) -> None:
    _write(tmp_path, "toolscore_core/pyproject.toml")
    _write(tmp_path, "toolscore_core/src/toolscore_core/__init__.py")
    _write(tmp_path, "toolscore_core/src/toolscore_core/a.py", "from toolscore_core import b\n")
    _write(tmp_path, "toolscore_core/src/toolscore_core/b.py", "from toolscore_core.c import thing\n")
    _write(tmp_path, "toolscore_core/src/toolscore_core/c.py",
           "import toolscore_core.a\n\ndef later():\n    from toolscore_core import d\n")
    _write(tmp_path, "toolscore_core/src/toolscore_core/d.py",
           "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toolscore_core import c\n")
    assert [[_short(m) for m in cycle] for cycle in cycles(kernel_graph(tmp_path))] == [["a", "b", "c", "a"]]
