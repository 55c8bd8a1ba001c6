"""The pytest plugin of toolscore-pytest (named by the ``pytest11`` entry point).

It loads in every pytest run of anyone who installs Toolscore, so at import it defines
options, one hook and one fixture and imports nothing else: the store and scoring are
imported the first time a test uses ``toolscore_snapshot``. A run that never uses the
fixture sees no difference except the options in ``pytest --help``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from toolscore_pytest.replay import SnapshotRunner

DEFAULT_DIR = ".toolscore/snapshots"
_RUNNER = pytest.StashKey["SnapshotRunner"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolscore", "Toolscore snapshot testing (toolscore_snapshot fixture)")
    group.addoption("--toolscore-update", action="store_true", default=False,
                    help="re-record every snapshot the run uses and approve it as the new baseline "
                         "(also TOOLSCORE_RECORD_UPDATE=1; refused when CI is set)")
    group.addoption("--toolscore-allow-pending", action="store_true", default=False,
                    help="in CI, a missing or pending snapshot only warns instead of failing "
                         "(nothing is written either way)")
    group.addoption("--toolscore-snapshot-dir", default=None, metavar="DIR",
                    help=f"snapshot directory, relative to the rootdir (default: $TOOLSCORE_SNAPSHOT_DIR, "
                         f"then ini toolscore_snapshot_dir, else {DEFAULT_DIR})")
    parser.addini("toolscore_snapshot_dir", f"snapshot directory, relative to the rootdir (default {DEFAULT_DIR})",
                  default=DEFAULT_DIR)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from toolscore_pytest import hooks

    pluginmanager.add_hookspecs(hooks)


def _runner(config: pytest.Config) -> SnapshotRunner:
    """The session's runner, built (and scoring imported) on the fixture's first use."""
    runner = config.stash.get(_RUNNER, None)
    if runner is None:
        from toolscore_pytest.replay import Settings, SnapshotRunner, env_flag

        # the option, then TOOLSCORE_SNAPSHOT_DIR (set by `toolscore record --dir`), then the ini
        chosen = (config.getoption("--toolscore-snapshot-dir") or os.environ.get("TOOLSCORE_SNAPSHOT_DIR")
                  or config.getini("toolscore_snapshot_dir") or DEFAULT_DIR)
        root = Path(chosen)
        if not root.is_absolute():
            root = Path(config.rootpath) / root
        settings = Settings(
            root=root,
            update=bool(config.getoption("--toolscore-update")) or env_flag("TOOLSCORE_RECORD_UPDATE"),
            allow_pending=bool(config.getoption("--toolscore-allow-pending")),
            ci=env_flag("CI"),
            record_wanted=env_flag("TOOLSCORE_RECORD"),
        )
        runner = SnapshotRunner(settings, judge_hook=lambda: config.hook.pytest_toolscore_judge(config=config))
        config.stash[_RUNNER] = runner
    return runner


class SnapshotFixture:
    """What ``toolscore_snapshot`` is: call it with the agent's output (see :meth:`__call__`)."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request
        self._uses = 0

    def __call__(self, agent_output: Any, *, name: str | None = None,
                 ignore_args: bool | Iterable[str] = (), args: Mapping[str, Any] | None = None,
                 mode: str | None = None, min_score: float | None = 1.0, format: str | None = None,
                 weights: Mapping[str, float] | None = None, strict: bool = False) -> Any:
        """Record, or replay against, this test's snapshot.

        :param agent_output: anything ``toolscore.evaluate()`` reads: a list of call dicts,
            a trace file path, an SDK / framework result object.
        :param name: the snapshot name; default the test's node id (a second call in the
            same test adds ``-2``, ``-3`` ..., as tool-scorer 1.10.0 did).
        :param ignore_args: argument names never compared (``["timestamp"]``), or True to
            compare tool names only.
        :param args: argument name -> matcher used instead of the recorded value
            (``{"query": ANY, "price": Approx(10, 0.5)}``).
        :param mode: order mode, as ``evaluate(mode=...)`` (``strict``, ``unordered`` ...).
        :param min_score: the score a replay needs (default 1.0: exactly the baseline).
        :param format: the trace format, when detection should not decide.
        :param weights: metric weights for the replay's score, as ``evaluate(weights=...)``.
        :param strict: plain numbers must also have the same type (``1`` is not ``1.0``).
        :returns: the Evaluation when an approved baseline was replayed, else None.
        """
        from toolscore_pytest.replay import MatchOptions

        options = MatchOptions.of(ignore_args, args, mode, min_score, weights=weights, strict=strict)
        self._uses += 1
        if name is None:
            name = self._request.node.nodeid + (f"-{self._uses}" if self._uses > 1 else "")
        return _runner(self._request.config).check(name, agent_output, options, format=format)


@pytest.fixture
def toolscore_snapshot(request: pytest.FixtureRequest) -> SnapshotFixture:
    """Snapshot testing for agents: record the agent's tool calls once, approve, replay.

    ``toolscore_snapshot(my_agent("book a flight"))`` records a pending snapshot on the
    first run; after ``toolscore approve`` every run replays it and fails on drift.
    """
    return SnapshotFixture(request)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    runner = config.stash.get(_RUNNER, None)
    line = runner.tally.summary() if runner is not None else None
    if line:
        terminalreporter.write_line(line)
