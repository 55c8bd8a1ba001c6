"""Build every distribution and install Toolscore as a user does: from wheels, into a clean venv.

Why: editable installs hide packaging mistakes. A module left out of a wheel, a missing
entry point, a first-party pin that names nothing, a README that is not in the sdist: all of
them pass the rest of the suite and break ``pip install toolscore`` on a user's machine.
Here each distribution is built as sdist and wheel (``python -m build`` builds the wheel
*from* the sdist, so an incomplete sdist fails too), its metadata is checked against its
pyproject.toml, and then a fresh venv gets ``toolscore`` and later ``toolscore-agent`` from
those wheels and a local wheelhouse alone (``--no-index``: no registry at test time).

The third-party wheels come from ``make wheelhouse`` (``make test`` runs it). Without them
this test fails and says so: skipping would let a CI machine pass without ever installing.
"""

from __future__ import annotations

import configparser
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
WHEELHOUSE = ROOT / ".cache" / "wheelhouse"
USER_INSTALLS = ["toolscore", "toolscore-agent"]  # what the Makefile's wheelhouse target covers
# sdist members that would mean the build picked up the workspace instead of the distribution
NOT_IN_SDIST = ("/tests/", "/.cache/", "/.venv/", "__pycache__", ".pyc", "/.git/")


def _load_requirements_script() -> ModuleType:
    path = ROOT / "scripts" / "wheelhouse_requirements.py"
    spec = importlib.util.spec_from_file_location("wheelhouse_requirements", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REQS = _load_requirements_script()


def clean_env(venv: Path | None = None) -> dict[str, str]:
    """The environment of a user's shell: no pip configuration, no extra indexes or find-links,
    no PYTHONPATH, no Toolscore switches; ``venv``'s bin first on PATH."""
    keep = {"HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "TERM"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = os.pathsep.join([*([str(venv / "bin")] if venv else []), os.defpath])
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    env["COLUMNS"] = "200"
    return env


def run(args: list[str | Path], *, env: dict[str, str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=timeout)
    return result


@dataclass(frozen=True)
class Built:
    folder: Path
    project: dict
    entry_points: dict[str, dict[str, str]]
    sdist: Path
    wheel: Path


def _normalized(name: str) -> str:
    return REQS.canonical(name).replace("-", "_")


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    """The third-party wheels, current with the pyprojects, or a failure that names the fix."""
    listed = WHEELHOUSE / "requirements.txt"
    if not listed.is_file() or not (WHEELHOUSE / ".done").is_file():
        pytest.fail(f"no wheelhouse at {WHEELHOUSE.relative_to(ROOT)}: run `make wheelhouse` "
                    "(make test does) to download the third-party wheels this test installs offline")
    wanted = REQS.third_party(USER_INSTALLS)
    have = ["".join(line.split()) for line in listed.read_text(encoding="utf-8").splitlines() if line.strip()]
    if sorted(have) != sorted("".join(w.split()) for w in wanted):
        pytest.fail("the wheelhouse is older than the pyprojects: run `make wheelhouse` again "
                    f"(it lists {sorted(have)}, the pyprojects need {wanted})")
    return WHEELHOUSE


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    """Every distribution built once for the module: canonical name -> its sdist and wheel."""
    missing = [m for m in ("build", "hatchling") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed: `pip install -r requirements-dev.txt` (make test does)")
    out = tmp_path_factory.mktemp("dist")
    result: dict[str, Built] = {}
    for folder in REQS.distribution_folders(ROOT):
        data = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
        project = data["project"]
        stem = f"{_normalized(project['name'])}-{project['version']}"
        build = run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, folder],
                    env={**os.environ, "PIP_NO_INDEX": "1"}, cwd=ROOT)
        assert build.returncode == 0, f"{folder.relative_to(ROOT)} does not build:\n{build.stdout}\n{build.stderr}"
        sdist, wheel = out / f"{stem}.tar.gz", out / f"{stem}-py3-none-any.whl"
        assert sdist.is_file() and wheel.is_file(), sorted(p.name for p in out.iterdir())
        entry_points = {group: dict(items) for group, items in project.get("entry-points", {}).items()}
        if project.get("scripts"):
            entry_points["console_scripts"] = dict(project["scripts"])
        result[REQS.canonical(project["name"])] = Built(folder, project, entry_points, sdist, wheel)
    return result


def _wheel_text(wheel: Path, member: str) -> str | None:
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.endswith(f".dist-info/{member}")]
        return archive.read(names[0]).decode() if names else None


def _norm(requirement: str) -> str:
    """One spelling per requirement: canonical name (``ruamel.yaml`` is ``ruamel-yaml``), then the rest."""
    req = Requirement(requirement)
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    marker = f"; {req.marker}" if req.marker else ""
    return f"{REQS.canonical(req.name)}{extras}{req.specifier}{marker}"


def _declared_requirements(project: dict) -> set[str]:
    """The Requires-Dist lines the pyproject asks for, normalised by ``_norm``."""
    declared = {_norm(d) for d in project.get("dependencies", [])}
    for extra, deps in project.get("optional-dependencies", {}).items():
        for dep in deps:
            req = Requirement(dep)
            marker = f'extra == "{extra}"'
            req_text = str(req).split(";")[0].strip()
            joined = f"({req.marker}) and {marker}" if req.marker else marker
            declared.add(_norm(f"{req_text}; {joined}"))
    return declared


def test_the_distribution_list_covers_the_makefile_the_root_and_every_plugin(built: dict[str, Built]) -> None:
    folders = {b.folder.resolve() for b in built.values()}
    assert ROOT.resolve() in folders
    for name in REQS.makefile_dists(ROOT):
        assert (ROOT / name).resolve() in folders, name
    for pyproject in (ROOT / "plugins").glob("*/pyproject.toml"):
        assert pyproject.parent.resolve() in folders, pyproject
    assert {"toolscore", "toolscore-core", "toolscore-pytest"} <= set(built)


def test_every_wheel_carries_the_metadata_its_pyproject_declares(built: dict[str, Built]) -> None:
    for name, dist in built.items():
        metadata_text = _wheel_text(dist.wheel, "METADATA")
        assert metadata_text is not None, dist.wheel
        metadata = Parser().parsestr(metadata_text)
        project = dist.project
        assert REQS.canonical(metadata["Name"]) == name
        assert metadata["Version"] == project["version"]
        assert metadata["Requires-Python"] == project["requires-python"]
        assert metadata["License-Expression"] == project["license"], name
        assert metadata["Description-Content-Type"] == "text/markdown", name
        readme = (dist.folder / project["readme"]).read_text(encoding="utf-8")
        assert str(metadata.get_payload()).strip() == readme.strip(), f"{name}: the README is not the description"
        requires = {_norm(r) for r in metadata.get_all("Requires-Dist") or []}
        assert requires == _declared_requirements(project), name
        assert set(metadata.get_all("Provides-Extra") or []) == set(project.get("optional-dependencies", {}))
        entry_text = _wheel_text(dist.wheel, "entry_points.txt")
        found: dict[str, dict[str, str]] = {}
        if entry_text is not None:
            parser = configparser.ConfigParser(delimiters=("=",))
            parser.optionxform = str  # type: ignore[assignment,method-assign]
            parser.read_string(entry_text)
            found = {s: {k: v.strip() for k, v in parser[s].items()} for s in parser.sections()}
        assert found == dist.entry_points, name
    pytest_entry = built["toolscore-pytest"].entry_points
    assert "pytest11" in pytest_entry, "toolscore-pytest must declare its pytest11 entry point"


def test_every_sdist_holds_what_the_wheel_needs_and_nothing_of_the_workspace(built: dict[str, Built]) -> None:
    for name, dist in built.items():
        with tarfile.open(dist.sdist) as archive:
            members = archive.getnames()
            top = members[0].split("/")[0]
            pkg_info = archive.extractfile(f"{top}/PKG-INFO")
            assert pkg_info is not None
            info = Parser().parsestr(pkg_info.read().decode())
        assert REQS.canonical(info["Name"]) == name and info["Version"] == dist.project["version"]
        assert f"{top}/pyproject.toml" in members and f"{top}/{dist.project['readme']}" in members, name
        stray = [m for m in members if any(part in f"/{m}" for part in NOT_IN_SDIST)]
        assert not stray, f"{name} sdist carries workspace files: {stray[:5]}"


def test_the_root_toolscore_wheel_is_a_metapackage_and_its_sdist_is_minimal(built: dict[str, Built]) -> None:
    root = built["toolscore"]
    with zipfile.ZipFile(root.wheel) as archive:
        code = [n for n in archive.namelist() if not n.startswith("toolscore-")]
    assert code == [], f"the toolscore wheel must hold no code: {code}"
    with tarfile.open(root.sdist) as archive:
        names = sorted(n.split("/", 1)[1] for n in archive.getnames() if "/" in n)
    assert set(names) <= {"PKG-INFO", "pyproject.toml", "README.md", "LICENSE", ".gitignore"}, names
    pins = set(root.project["dependencies"])
    assert {"toolscore-core==0.1.0", "toolscore-adapters==0.1.0", "toolscore-mcp==0.1.0",
            "toolscore-pytest==0.1.0"} <= pins
    extras = root.project["optional-dependencies"]
    assert {"agent", "export", "judge", "llm", "openai", "anthropic", "gemini", "all"} <= set(extras)


@pytest.fixture(scope="module")
def dev_inventory() -> dict[str, dict[str, list[str]]]:
    """What each distribution registers in the development venv (editable installs of the same sources)."""
    result = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "plugins", "--json"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120,
                            env={k: v for k, v in os.environ.items() if not k.startswith("TOOLSCORE_")})
    assert result.returncode == 0, result.stderr
    return _inventory(result.stdout)


def _inventory(text: str) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for dist in json.loads(text)["distributions"]:
        out[dist["name"]] = {g: sorted(v["items"]) for g, v in dist["groups"].items() if not v.get("error")}
    return out


@pytest.fixture(scope="module")
def user_venv(tmp_path_factory: pytest.TempPathFactory, built: dict[str, Built], wheelhouse: Path) -> Iterator[Path]:
    """A clean venv (no system site packages) with ``pip install toolscore`` from local wheels only.

    Shared by the module's two install tests, which run in file order: first ``toolscore``
    alone, then ``toolscore-agent`` added to it.
    """
    venv = tmp_path_factory.mktemp("user") / "venv"
    made = run([sys.executable, "-m", "venv", venv], env=clean_env(), cwd=venv.parent)
    assert made.returncode == 0, made.stderr
    pip_install(venv, built, wheelhouse, "toolscore")
    yield venv


def pip_install(venv: Path, built: dict[str, Built], wheelhouse: Path, name: str) -> None:
    dist_dir = next(iter(built.values())).wheel.parent
    # --no-compile: byte-compiling all of numpy and scipy is most of an install's CPU time; the
    # commands below compile what they import, as a user's first run does.
    result = run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-compile", "--no-index",
                  "--find-links", dist_dir, "--find-links", wheelhouse, name],
                 env=clean_env(venv), cwd=venv.parent)
    assert result.returncode == 0, f"pip install {name} from wheels alone failed:\n{result.stdout}\n{result.stderr}"


def toolscore(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run([venv / "bin" / "toolscore", *args], env=clean_env(venv), cwd=venv.parent, timeout=120)


def _pytest_commands(dev: dict[str, dict[str, list[str]]]) -> list[str]:
    return dev.get("toolscore-pytest", {}).get("toolscore.commands", [])


def test_pip_install_toolscore_from_wheels_gives_the_cli_mcp_and_the_pytest_plugin(
        user_venv: Path, dev_inventory: dict[str, dict[str, list[str]]]) -> None:
    demo = toolscore(user_venv, "demo")
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "MCP Scorecard: notes-server" in demo.stdout and "Grade " in demo.stdout, demo.stdout

    listed = toolscore(user_venv, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    installed = _inventory(listed.stdout)
    assert {"toolscore-core", "toolscore-adapters", "toolscore-mcp", "toolscore-pytest"} <= set(installed)
    assert "toolscore-agent" not in installed, "the agent harness is the [agent] extra, not a default"
    for name in installed:
        assert installed[name] == dev_inventory.get(name), (
            f"{name} registers other things from its wheel than from its source: a file is missing from the wheel")
    human = toolscore(user_venv, "plugins")
    assert "toolscore-pytest" in human.stdout and "toolscore-mcp" in human.stdout

    commands = _pytest_commands(dev_inventory)
    if (ROOT / "plugins/toolscore_pytest/src/toolscore_pytest/commands/approve_cmd.py").is_file():
        assert "approve" in commands, "the source has `approve`, but toolscore-pytest does not register it"
    root_help = toolscore(user_venv, "--help")
    assert root_help.returncode == 0, root_help.stderr
    assert all(c in root_help.stdout for c in commands), (commands, root_help.stdout)
    if "approve" in commands:  # one of them run for real: its module is in the wheel and imports
        helped = toolscore(user_venv, "approve", "--help")
        assert helped.returncode == 0 and "Usage:" in helped.stdout, helped.stdout + helped.stderr

    plugin_source = (ROOT / "plugins/toolscore_pytest/src/toolscore_pytest/pytest_plugin.py")
    if plugin_source.is_file() and "def toolscore_snapshot" in plugin_source.read_text(encoding="utf-8"):
        project = user_venv.parent / "project"
        project.mkdir(exist_ok=True)
        fixtures = run([user_venv / "bin" / "python", "-m", "pytest", "--fixtures", "-p", "no:cacheprovider"],
                       env=clean_env(user_venv), cwd=project, timeout=120)
        assert "toolscore_snapshot" in fixtures.stdout, fixtures.stdout + fixtures.stderr


def test_then_pip_install_toolscore_agent_adds_the_harness_commands(
        user_venv: Path, built: dict[str, Built], wheelhouse: Path,
        dev_inventory: dict[str, dict[str, list[str]]]) -> None:
    pip_install(user_venv, built, wheelhouse, "toolscore-agent")

    listed = toolscore(user_venv, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    installed = _inventory(listed.stdout)
    assert {"toolscore-agent", "toolscore-providers", "toolscore-pytest"} <= set(installed)
    agent_commands = installed["toolscore-agent"].get("toolscore.commands", [])
    assert "agent" in agent_commands, installed["toolscore-agent"]
    assert installed["toolscore-agent"] == dev_inventory["toolscore-agent"]
    helped = toolscore(user_venv, "agent", "--help")
    assert helped.returncode == 0 and "Usage:" in helped.stdout, helped.stdout + helped.stderr
