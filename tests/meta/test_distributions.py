"""The distributions move in lockstep and declare their plugins correctly."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from toolscore_core.kernel.plugins import GROUPS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = ["toolscore_core", "toolscore_adapters", "toolscore_mcp", "toolscore_agent", "toolscore_export",
                 "plugins/toolscore_providers", "plugins/toolscore_judge", "plugins/toolscore_pytest",
                 "plugins/toolscore_ray"]


def package(folder: str) -> str:
    """The import package of a distribution folder (``plugins/toolscore_providers`` -> ``toolscore_providers``)."""
    return Path(folder).name


def test_every_plugin_distribution_is_listed_here():
    found = {f"plugins/{p.parent.name}" for p in (ROOT / "plugins").glob("*/pyproject.toml")}
    assert found <= set(DISTRIBUTIONS), f"add to DISTRIBUTIONS (and the Makefile): {sorted(found - set(DISTRIBUTIONS))}"


def pyproject(folder: str) -> dict:
    return tomllib.loads((ROOT / folder / "pyproject.toml").read_text())


def test_versions_are_in_lockstep_with_package_versions():
    versions = {d: pyproject(d)["project"]["version"] for d in DISTRIBUTIONS}
    assert len(set(versions.values())) == 1, versions
    version = versions["toolscore_core"]
    for folder in DISTRIBUTIONS:
        init = (ROOT / folder / "src" / package(folder) / "__init__.py").read_text()
        assert f'__version__ = "{version}"' in init, folder


def test_first_party_dependencies_pin_the_same_version():
    version = pyproject("toolscore_core")["project"]["version"]
    for folder in DISTRIBUTIONS:
        for dep in pyproject(folder)["project"].get("dependencies", []):
            if dep.startswith("toolscore-"):
                assert dep.endswith(f"=={version}"), f"{folder}: {dep}"


def test_each_distribution_has_the_shape_the_design_asks_for():
    for folder in DISTRIBUTIONS:
        base = ROOT / folder
        assert (base / "README.md").is_file(), folder
        assert (base / "src" / package(folder) / "py.typed").is_file(), folder
        data = pyproject(folder)
        assert data["build-system"]["build-backend"] == "hatchling.build"
        assert "tool" not in data or "pytest" not in data["tool"], "pytest config lives at the root only"
        if folder != "toolscore_core":
            assert (base / "src" / package(folder) / "plugin.py").is_file(), folder


def test_entry_points_use_known_groups_and_name_the_plugin_module():
    pattern = re.compile(r"^\w+(\.\w+)*$")
    folders = [*DISTRIBUTIONS, "examples/third_party_plugin"]
    for folder in folders:
        data = pyproject(folder)
        name = data["project"]["name"]
        for group, entries in data["project"].get("entry-points", {}).items():
            if group == "pytest11":  # a pytest plugin (snapshot replays, the judge's pytest options)
                assert list(entries) == [name] and all(v.endswith(".pytest_plugin") for v in entries.values()), entries
                continue
            assert pattern.match(group), group
            assert group.startswith("toolscore.") and group.split(".", 1)[1] in GROUPS, group
            assert list(entries) == [name], f"{folder}: entry point name must be the distribution name"
            assert all(v.endswith(".plugin") for v in entries.values()), entries


def test_root_pyproject_is_the_toolscore_metapackage_and_the_tool_configuration():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "pytest" in data["tool"] and "ruff" in data["tool"] and "mypy" in data["tool"]
    project = data["project"]
    assert project["name"] == "toolscore"
    assert project["version"] == pyproject("toolscore_core")["project"]["version"]
    assert "entry-points" not in project and "scripts" not in project, "the metapackage has no code"
    assert data["tool"]["hatch"]["build"]["targets"]["wheel"]["bypass-selection"] is True
    version = project["version"]
    pins = [*project["dependencies"], *(d for ds in project["optional-dependencies"].values() for d in ds)]
    for dep in pins:
        if dep.startswith("toolscore-"):
            assert dep.endswith(f"=={version}"), dep
