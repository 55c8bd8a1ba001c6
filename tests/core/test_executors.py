"""Executors run real work in real worker processes: streaming, failures, deaths, closing.

Worker processes import the function they run by reference, and pytest's importlib mode
imports this module under a name no fresh interpreter can import. So every pooled test runs
one standard-library function, ``CALL`` (``CALL(item)`` is ``item()``), and each item is a
``functools.partial`` of a standard-library function that says what its worker does: sleep,
return its pid, raise, or die.
"""

from __future__ import annotations

import ctypes
import functools
import multiprocessing
import operator
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from toolscore_core import (
    Executor,
    InputError,
    UnknownNameError,
    WorkError,
    WorkResult,
    get_executor,
    hookimpl,
)
from toolscore_core.kernel.registry import collect

CALL = operator.methodcaller("__call__")


def sleep(seconds: float) -> functools.partial[Any]:
    return functools.partial(time.sleep, seconds)


GETPID = functools.partial(os.getpid)
RAISE_VALUE_ERROR = functools.partial(int, "not a number")


def worker_pids() -> set[int]:
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


def wait_until_gone(pids: set[int], timeout: float = 2.0) -> set[int]:
    """The pids still running (not reaped, not zombies) after up to ``timeout`` seconds."""
    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    end = time.monotonic() + timeout
    left = {p for p in pids if alive(p)}
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = {p for p in left if alive(p)}
    return left


def test_results_stream_as_they_finish_not_in_input_order():
    items = [("slow", sleep(1.5))] + [(f"fast-{i}", GETPID) for i in range(5)]
    arrived = [r.key for r in get_executor("local", workers=2).run(CALL, items)]
    assert arrived[-1] == "slow"
    assert sorted(arrived[:-1]) == [f"fast-{i}" for i in range(5)]


def test_items_run_in_other_processes_and_values_come_back():
    results = list(get_executor("local", workers=2).run(CALL, [(i, GETPID) for i in range(6)]))
    assert sorted(r.key for r in results) == list(range(6))
    assert all(r.ok and isinstance(r.value, int) for r in results)
    assert os.getpid() not in {r.value for r in results}


#: What a worker has loaded before its first item: (the scoring code imported, the
#: process-wide plugin manager built).
WARM = functools.partial(eval, "('toolscore_core.scoring.evaluation' in __import__('sys').modules, "
                               "__import__('toolscore_core.kernel.plugins', fromlist=['_'])"
                               ".get_plugin_manager.cache_info().currsize)")


def test_workers_start_with_the_scoring_code_and_plugin_manager_already_loaded():
    for _ in range(2):  # the first pool of a process starts the server, the second reuses it
        results = list(get_executor("local", workers=2).run(CALL, [(i, WARM) for i in range(4)]))
        assert [r.value for r in results] == [(True, 1)] * 4, [r.error for r in results]


def test_an_exception_is_an_error_result_with_its_type_and_the_run_goes_on():
    items = [("bad", RAISE_VALUE_ERROR), ("good", functools.partial(pow, 3, 2))]
    results = {r.key: r for r in get_executor("local", workers=2).run(CALL, items)}
    bad = results["bad"]
    assert not bad.ok and bad.value is None
    assert bad.error is not None and bad.error.type == "ValueError"
    assert "not a number" in bad.error.message
    assert bad.error.traceback_text is not None and "ValueError" in bad.error.traceback_text
    assert results["good"] == WorkResult(key="good", value=9)


def test_a_dying_worker_gives_its_item_an_error_and_every_other_item_completes():
    deaths = {
        "sigkill": functools.partial(signal.raise_signal, signal.SIGKILL),
        "os-exit": functools.partial(os._exit, 3),
        "segfault": functools.partial(ctypes.string_at, 0),
    }
    good = {f"ok-{i}": functools.partial(pow, i, 2) for i in range(8)}
    items = list(deaths.items()) + list(good.items())
    started = time.monotonic()
    results = {r.key: r for r in get_executor("local", workers=2).run(CALL, items)}
    assert time.monotonic() - started < 15  # no stall (a loaded CI machine takes seconds per pool)
    assert sorted(results) == sorted(items_key for items_key, _ in items)  # one result per key
    assert {k: results[k].value for k in good} == {f"ok-{i}": i * i for i in range(8)}
    messages = {}
    for key in deaths:
        error = results[key].error
        assert error is not None and error.type == WorkError.WORKER_DIED == "WorkerDied"
        messages[key] = error.message
    # How each worker died is told from its exit status, which the forkserver start method
    # sometimes loses under load (it then reports 255): the message says so instead of guessing.
    lost = "status 255 (or its exit status was lost)"
    assert "SIGKILL" in messages["sigkill"] or lost in messages["sigkill"]
    assert "status 3" in messages["os-exit"] or lost in messages["os-exit"]
    assert "SIGSEGV" in messages["segfault"] or lost in messages["segfault"]
    assert sum(lost in m for m in messages.values()) < 3, messages  # never all of them


def test_items_or_values_that_cannot_be_pickled_are_error_results():
    items = [("lock-item", threading.Lock()), ("lock-value", functools.partial(threading.Lock)),
             ("fine", functools.partial(abs, -4))]
    results = {r.key: r for r in get_executor("local", workers=2).run(CALL, items)}
    assert results["fine"].value == 4
    for key in ("lock-item", "lock-value"):
        error = results[key].error
        assert error is not None and "pickle" in error.message


def test_in_flight_work_is_bounded_to_two_items_per_worker():
    pulled = 0

    def source() -> Iterator[tuple[int, Any]]:
        nonlocal pulled
        for i in range(40):
            pulled += 1
            yield i, sleep(0.005)

    outstanding = []
    received = 0
    for _ in get_executor("local", workers=2).run(CALL, source()):
        received += 1
        outstanding.append(pulled - received + 1)  # submitted and not yet handed back, this one included
    assert received == 40
    assert max(outstanding) == 4


def test_closing_early_stops_the_workers_promptly_and_reaps_them():
    items = [("fast", GETPID)] + [(f"slow-{i}", sleep(30)) for i in range(6)]
    before = worker_pids()
    results = get_executor("local", workers=2).run(CALL, items)
    first = next(results)
    assert first.key == "fast"
    pids = worker_pids() - before
    assert pids and first.value in pids
    started = time.monotonic()
    results.close()
    assert time.monotonic() - started < 10  # the items sleep 30 s: not waited for
    assert not pids & worker_pids()
    assert wait_until_gone(pids) == set()


def test_ctrl_c_while_waiting_stops_the_workers():
    timer = threading.Timer(0.6, os.kill, (os.getpid(), signal.SIGINT))
    seen: set[int] = set()
    before = worker_pids()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            for result in get_executor("local", workers=2).run(CALL, [(i, sleep(30)) for i in range(4)]):
                seen.add(result.key)  # never reached: nothing finishes before the interrupt
    finally:
        timer.cancel()
    assert seen == set()
    assert worker_pids() <= before


def test_workers_1_runs_in_this_process_in_order_with_the_same_results():
    before = worker_pids()
    items = [("a", GETPID), ("b", RAISE_VALUE_ERROR), ("c", functools.partial(pow, 2, 5))]
    results = list(get_executor("local", workers=1).run(CALL, items))
    assert [r.key for r in results] == ["a", "b", "c"]
    assert results[0].value == os.getpid()
    assert results[1].error is not None and results[1].error.type == "ValueError"
    assert results[2].value == 32
    assert worker_pids() == before


def test_workers_1_accepts_functions_a_pool_could_not_send():
    results = list(get_executor("local", workers=1).run(lambda x: x + 1, [("k", 1)]))
    assert results == [WorkResult(key="k", value=2)]


def test_a_function_workers_cannot_import_is_an_input_error_before_anything_starts():
    with pytest.raises(InputError) as info:
        get_executor("local", workers=2).run(lambda x: x, [("k", 1)])
    assert "top level" in str(info.value) and "workers=1" in str(info.value)


def test_items_that_are_not_pairs_are_an_input_error():
    with pytest.raises(InputError, match=r"\(key, item\) pairs"):
        list(get_executor("local", workers=1).run(CALL, [GETPID]))


@pytest.mark.parametrize("workers", [0, -1, 2.5, True, "4"])
def test_workers_must_be_a_positive_integer(workers):
    with pytest.raises(InputError, match="workers"):
        get_executor("local", workers=workers)


def test_workers_none_means_one_per_cpu():
    assert get_executor("local", workers=None).workers == (os.cpu_count() or 1)


def test_thread_executor_streams_and_accepts_closures():
    offset = 100
    items = [("slow", 1.0), ("fast-0", 0.0), ("fast-1", 0.0), ("bad", -1.0)]

    def work(seconds: float) -> float:
        time.sleep(seconds)  # a negative sleep raises ValueError
        return seconds + offset

    results = list(get_executor("thread", workers=2).run(work, items))
    assert [r.key for r in results][-1] == "slow"
    by_key = {r.key: r for r in results}
    assert by_key["fast-0"].value == 100.0
    assert by_key["bad"].error is not None and by_key["bad"].error.type == "ValueError"


def test_closing_thread_results_early_does_not_wait_for_running_items():
    items = [("fast", 0.0)] + [(f"slow-{i}", 1.0) for i in range(4)]
    results = get_executor("thread", workers=2).run(time.sleep, items)
    assert next(results).key == "fast"
    started = time.monotonic()
    results.close()
    assert time.monotonic() - started < 0.5


def test_unknown_executor_name_suggests_the_close_one(plugin_manager):
    with pytest.raises(UnknownNameError) as info:
        get_executor("lcoal", pm=plugin_manager)
    assert "did you mean 'local'" in str(info.value)


class InlineExecutor(Executor):
    """A third party's executor that names only the setting it uses."""

    name = "inline"
    made_with: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        InlineExecutor.made_with.append({"options": options})
        self.options = options or {}

    def run(self, fn, items):
        for key, item in items:
            try:
                yield WorkResult(key, fn(item) * self.options.get("scale", 1))
            except Exception as exc:
                yield WorkResult(key, error=WorkError.from_exception(exc))


def test_hook_toolscore_register_executors_third_party_chosen_by_name_gets_only_its_settings(
        plugin_manager, register_plugin):
    class Plugin:
        @hookimpl
        def toolscore_register_executors(self):
            return [InlineExecutor]

    register_plugin(Plugin(), name="inline-plugin")
    InlineExecutor.made_with.clear()
    executor = get_executor("inline", pm=plugin_manager, workers=3, address="10.0.0.1:6379",
                            options={"scale": 10})
    assert isinstance(executor, InlineExecutor)
    assert InlineExecutor.made_with == [{"options": {"scale": 10}}]  # not workers, not address
    assert [r.value for r in executor.run(abs, [("a", -2), ("b", 3)])] == [20, 30]
    assert collect(plugin_manager, "executors").entry("inline").plugin == "inline-plugin"


def test_a_plugin_cannot_take_the_name_local(plugin_manager, register_plugin):
    class Impostor(Executor):
        name = "local"

    class Plugin:
        @hookimpl
        def toolscore_register_executors(self):
            return [Impostor]

    register_plugin(Plugin())
    assert not isinstance(get_executor("local", pm=plugin_manager, workers=1), Impostor)


def test_toolscore_plugins_lists_the_builtin_executors(invoke):
    result = invoke("plugins")
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if "toolscore.executors" in line)
    assert "local" in line and "thread" in line


def test_executor_is_a_context_manager_that_closes():
    closed = []

    class Closing(Executor):
        name = "closing"

        def close(self) -> None:
            closed.append(True)

    with Closing() as executor:
        assert isinstance(executor, Closing)
    assert closed == [True]


#: A script that scores a few traces on two workers, its call guarded or not (GUARD).
BULK_SCRIPT = """\
import json, os
from toolscore import evaluate_many
GUARD
    result = evaluate_many("gold.json", "traces/*.json", workers=2, keep_rows=False)
    print(json.dumps({"scored": result.summary["scored"], "errors": result.summary["error_examples"]}))
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_a_script_that_starts_work_at_import_is_told_where_to_put_the_guard(tmp_path, guarded):
    import json
    import subprocess
    import sys

    (tmp_path / "gold.json").write_text('[{"tool": "a", "args": {}}]', encoding="utf-8")
    (tmp_path / "traces").mkdir()
    for i in range(3):
        (tmp_path / "traces" / f"t{i}.json").write_text('[{"tool": "a", "args": {}}]', encoding="utf-8")
    guard = 'if __name__ == "__main__":' if guarded else "if True:"
    (tmp_path / "score_all.py").write_text(BULK_SCRIPT.replace("GUARD", guard), encoding="utf-8")
    done = subprocess.run([sys.executable, "score_all.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    if guarded:
        assert summary == {"scored": 3, "errors": []}
    else:
        assert summary["scored"] == 0 and len(summary["errors"]) == 3
        message = summary["errors"][0]["message"]
        assert "if score_all.py starts this work when it is imported" in message
        assert 'under `if __name__ == "__main__":`' in message
