"""Framework detection of ``toolscore init``: imports, pyproject, requirements, priority, and
a bounded scan that never fails on a hostile project."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from toolscore_pytest.init.detect import MAX_FILE_BYTES, detect
from toolscore_pytest.init.frameworks import FRAMEWORKS, lookup

KEYS = ["openai", "anthropic", "langgraph", "pydantic_ai", "openai_agents", "claude_agent_sdk", "crewai", "mcp"]


@pytest.mark.parametrize("key", KEYS)
def test_detects_each_framework_from_an_import(tmp_path: Path, key: str, projects: dict[str, tuple[str, str]]) -> None:
    (tmp_path / "src" / "app").mkdir(parents=True)
    (tmp_path / "src" / "app" / "agent.py").write_text(projects[key][0])
    found = detect(tmp_path)
    assert found.chosen.key == key
    assert found.evidence[key] == ["import in src/app/agent.py"]


@pytest.mark.parametrize("key", KEYS)
def test_detects_each_framework_from_pyproject_dependencies(tmp_path: Path, key: str,
                                                            projects: dict[str, tuple[str, str]]) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\ndependencies = ["{projects[key][1]}"]\n')
    found = detect(tmp_path)
    assert found.chosen.key == key
    assert found.evidence[key] == ["dependency in pyproject.toml"]


@pytest.mark.parametrize("key", KEYS)
def test_detects_each_framework_from_requirements(tmp_path: Path, key: str,
                                                  projects: dict[str, tuple[str, str]]) -> None:
    (tmp_path / "requirements-dev.txt").write_text(f"# deps\n-e .\n  {projects[key][1]}  # pinned\n")
    found = detect(tmp_path)
    assert found.chosen.key == key
    assert found.evidence[key] == ["dependency in requirements-dev.txt"]


def test_other_pyproject_layouts(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project.optional-dependencies]\nllm = ["Anthropic>=0.3"]\n'
        '[dependency-groups]\ndev = ["pydantic_ai"]\n'
        '[tool.poetry.dependencies]\npython = "^3.11"\nCrewAI = "^0.80"\n'
        '[tool.poetry.group.agents.dependencies]\n"openai-agents" = "*"\n')
    found = detect(tmp_path)
    assert {f.key for f in found.found} == {"anthropic", "pydantic_ai", "crewai", "openai_agents"}


def test_priority_frameworks_before_sdks_before_mcp(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import openai\nimport mcp\nfrom anthropic import Anthropic\n")
    (tmp_path / "b.py").write_text("from langgraph.prebuilt import create_react_agent\n")
    found = detect(tmp_path)
    assert [f.key for f in found.found] == ["langgraph", "openai", "anthropic", "mcp"]
    assert found.chosen.key == "langgraph"


def test_priority_order_is_the_documented_one() -> None:
    assert [f.key for f in FRAMEWORKS] == ["claude_agent_sdk", "openai_agents", "langgraph", "pydantic_ai",
                                           "crewai", "openai", "anthropic", "mcp", "generic"]


def test_nothing_found_is_generic(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("import json\nprint('openai')  # import openai\n")
    found = detect(tmp_path)
    assert found.found == [] and found.chosen.key == "generic"


def test_a_local_agents_package_is_not_the_openai_agents_sdk(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "main.py").write_text("from agents import helper\n")
    assert detect(tmp_path).chosen.key == "generic"


def test_relative_imports_and_comments_do_not_count(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("from . import openai\n# import anthropic\ns = 'import crewai'\n")
    assert detect(tmp_path).found == []


def test_skips_environments_hidden_folders_and_big_files(tmp_path: Path) -> None:
    for folder in (".venv/lib", "node_modules/x", ".git/hooks", "build", ".hidden"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "m.py").write_text("import openai\n")
    (tmp_path / "big.py").write_text("import anthropic\n" + "#" * (MAX_FILE_BYTES + 1))
    assert detect(tmp_path).found == []


def test_a_file_that_does_not_parse_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "wip.py").write_text("from crewai import Crew\ndef broken(:\n")
    assert detect(tmp_path).chosen.key == "crewai"


def test_hostile_pyproject_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project\ndependencies = ["openai"\n\x1b]2;owned\x07')
    (tmp_path / "agent.py").write_text("import anthropic\n")
    found = detect(tmp_path)
    assert found.chosen.key == "anthropic"
    assert len(found.warnings) == 1 and found.warnings[0].startswith("pyproject.toml: not readable as TOML")


def test_pyproject_of_unexpected_types_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('project = 3\n[tool]\npoetry = "x"\n[dependency-groups]\na = [1, {b = 2}]\n')
    found = detect(tmp_path)
    assert found.found == [] and found.warnings == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="POSIX permissions; root reads anything")
def test_unreadable_file_is_a_warning(tmp_path: Path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text("openai\n")
    req.chmod(0)
    try:
        found = detect(tmp_path)
    finally:
        req.chmod(0o644)
    assert found.found == []
    assert found.warnings == ["requirements.txt: could not be read (Permission denied); skipped"]


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and symlinks")
def test_fifos_and_symlink_loops_do_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "requirements.txt")  # reading it would block forever
    os.mkfifo(tmp_path / "agent.py")
    (tmp_path / "loop").symlink_to(tmp_path)  # a symlinked folder is not followed
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    (tmp_path / "real.py").write_text("import mcp\n")
    found = detect(tmp_path)
    assert found.chosen.key == "mcp" and found.evidence["mcp"] == ["import in real.py"]


def test_lookup_accepts_other_spellings() -> None:
    assert lookup("Pydantic-AI").key == "pydantic_ai"  # type: ignore[union-attr]
    assert lookup(" openai_agents ").key == "openai_agents"  # type: ignore[union-attr]
    assert lookup("langchain") is None


def test_the_scan_is_bounded_in_files_and_depth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_pytest.init import detect as detect_module

    deep = tmp_path.joinpath(*[f"d{i}" for i in range(detect_module.MAX_DEPTH + 1)])
    deep.mkdir(parents=True)
    (deep / "m.py").write_text("import crewai\n")
    assert detect(tmp_path).found == []  # below the depth limit: not read
    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_text("import json\n")
    (tmp_path / "z.py").write_text("import openai\n")  # sorted last: past the file limit
    monkeypatch.setattr(detect_module, "MAX_FILES", 10)
    found = detect(tmp_path)
    assert found.truncated and found.files_scanned == 10 and found.found == []
