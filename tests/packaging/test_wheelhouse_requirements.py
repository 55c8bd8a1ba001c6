"""scripts/wheelhouse_requirements.py: the third-party list comes from the pyprojects, pins followed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "wheelhouse_requirements.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wheelhouse_requirements_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_project(folder: Path, name: str, deps: list[str], extras: dict[str, list[str]] | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["[project]", f'name = "{name}"', 'version = "0.1.0"', f"dependencies = {json.dumps(deps)}"]
    if extras:
        lines.append("[project.optional-dependencies]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in extras.items()]
    (folder / "pyproject.toml").write_text("\n".join(lines) + "\n")


def make_repo(tmp_path: Path) -> Path:
    (tmp_path / "Makefile").write_text("DISTS  := core_dist mcp_dist\n")
    write_project(tmp_path, "toolscore", ["toolscore-core==0.1.0", "Toolscore_MCP==0.1.0"],
                  {"extra": ["toolscore-plug[fast]==0.1.0"]})
    write_project(tmp_path / "core_dist", "toolscore-core", ["click>=8.1", "tomli>=2 ; python_version < '3.11'"])
    write_project(tmp_path / "mcp_dist", "toolscore-mcp", ["toolscore-core==0.1.0", "httpx>=0.27"])
    write_project(tmp_path / "plugins" / "plug", "toolscore-plug", ["toolscore-core==0.1.0"],
                  {"fast": ["orjson>=3.9"]})
    return tmp_path


def test_first_party_pins_are_followed_to_their_folders_and_markers_kept(tmp_path: Path) -> None:
    reqs = load()
    root = make_repo(tmp_path)
    assert [f.name for f in reqs.distribution_folders(root)] == [root.name, "core_dist", "mcp_dist", "plug"]
    assert reqs.third_party(["toolscore"], root) == ["click>=8.1", "httpx>=0.27",
                                                     "tomli>=2 ; python_version < '3.11'"]
    assert "orjson>=3.9" in reqs.third_party(["toolscore[extra]"], root), "extras of a pinned extra too"
    assert "orjson>=3.9" not in reqs.third_party(["toolscore-plug"], root)


def test_the_real_repository_list_has_the_core_dependencies_and_no_first_party_names() -> None:
    listed = load().third_party(["toolscore", "toolscore-agent"])
    names = {line.split(">")[0].split("=")[0].split(";")[0].strip().lower() for line in listed}
    assert {"click", "pluggy", "httpx", "pytest"} <= names
    assert not any(n.startswith("toolscore") for n in names), listed


def test_an_unknown_distribution_is_refused_with_exit_code_2() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "toolscore-nope"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert "toolscore-nope: no distribution of that name" in result.stderr and "Traceback" not in result.stderr
