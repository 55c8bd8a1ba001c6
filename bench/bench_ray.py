"""Bulk scoring on Ray against the local executor, on the same machine: the overhead ratio.

Run: .venv/bin/python bench/bench_ray.py [--traces 10000] [--calls 10] [--repeat 3] [--background 0]
Writes the OpenAI-message traces of bench_bulk.py, then times ``evaluate_many`` with the
``local`` executor at 1 and 2 workers and with the ``ray`` executor on a private local Ray
instance of 2 CPUs (its start-up timed apart, then the runs on the already started instance),
in ``--repeat`` interleaved rounds, and reports the medians. ``--background N`` runs N busy
loops at normal priority beside, as on a shared CI machine. ``--two-nodes`` then runs the Ray
arm on a cluster of two ``ray start`` nodes of one CPU each (a head and a second node), to
measure what spreading over nodes costs against one node of two CPUs.
Ray binds to the machine's interface address unless loopback is the only interface, so the
script re-runs itself inside a new network namespace (``unshare --net``, ``lo`` up): nothing
it does leaves the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_bulk import make_traces  # noqa: E402


def _burn() -> None:
    """A busy loop at normal priority: the other job a shared CI machine usually runs."""
    while True:
        pass


def _spin(_: object = None) -> float:
    """Seconds a fixed pure-Python loop takes here."""
    start = time.perf_counter()
    total = 0
    for number in range(10_000_000):
        total += number
    return time.perf_counter() - start


def two_process_ceiling() -> float:
    """What two processes can gain over one on this machine, for pure-Python work: twice the
    loop's time alone over the slower of two copies run side by side (2.0 on two real idle
    cores; less where the two CPUs share a core or the host is busy)."""
    import multiprocessing
    import statistics

    context = multiprocessing.get_context("fork")  # nothing else runs yet in this process
    ratios = []
    with context.Pool(2) as pool:
        for _ in range(3):
            alone = _spin()
            side_by_side = max(pool.map(_spin, range(2)))
            ratios.append(2 * alone / side_by_side)
    return statistics.median(ratios)


def _timed(label: str, traces: int, run: object) -> float:
    start = time.perf_counter()
    cpu = time.process_time()
    summary = run()  # type: ignore[operator]
    seconds = time.perf_counter() - start
    print(f"  {label}: {seconds:.2f} s wall, {traces / seconds:.0f} traces/s, driver CPU "
          f"{time.process_time() - cpu:.2f} s, scored {summary['scored']}, errors {summary['errors']}"
          + (f" {summary['error_examples'][:1]}" if summary["errors"] else ""))
    return seconds


def inside(opts: argparse.Namespace) -> int:
    import multiprocessing
    import statistics

    from toolscore_core import evaluate_many
    from toolscore_core.kernel.executors import Executor
    from toolscore_ray import RayExecutor

    print(f"this machine's two-process ceiling (a pure-Python loop, 2 copies vs 1): x{two_process_ceiling():.2f}")
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(opts.background)]
    for burner in burners:
        burner.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            gold = make_traces(folder, opts.traces, opts.calls)
            pattern = str(folder / "traces" / "**" / "*.json")
            print(f"{opts.traces} traces of {opts.calls} calls, {os.cpu_count()} CPUs, "
                  f"{opts.background} busy loop(s) beside, load average {os.getloadavg()[0]:.1f}")

            def run(executor: str, workers: int, name: str) -> dict:
                output = folder / f"{name}.jsonl"
                output.unlink(missing_ok=True)  # a fresh run each round, not a resume of the last
                return evaluate_many(gold, pattern, output=output, workers=workers,
                                     executor=executor, keep_rows=False).summary

            start = time.perf_counter()
            ray_executor: Executor = RayExecutor(workers=2)
            ray_executor.connect()  # type: ignore[attr-defined]
            print(f"ray start-up (private instance, 2 CPUs): {time.perf_counter() - start:.2f} s")
            times: dict[str, list[float]] = {"one": [], "two": [], "ray": []}
            for round_number in range(1, opts.repeat + 1):  # interleaved, so drift hits every arm
                print(f"round {round_number}:")
                times["one"].append(_timed("local, 1 worker", opts.traces, lambda: run("local", 1, "l1")))
                times["two"].append(_timed("local, 2 workers", opts.traces, lambda: run("local", 2, "l2")))
                times["ray"].append(_timed("ray, 2 CPUs", opts.traces, lambda: run("ray", 2, "r2")))
            ray_executor.close()
            one, two, on_ray = (statistics.median(times[arm]) for arm in ("one", "two", "ray"))
            print(f"medians of {opts.repeat}: local 1 worker {one:.2f} s, local 2 workers {two:.2f} s, "
                  f"ray {on_ray:.2f} s")
            print(f"local 2 workers vs 1: x{one / two:.2f} (goal >= 1.8); ray vs local 2 workers: "
                  f"{on_ray / two:.2f}x the time (goal <= 1.3)")
            if opts.two_nodes:
                nodes = _two_node_rounds(opts, folder)
                print(f"two nodes of 1 CPU vs one node of 2 CPUs: {nodes / on_ray:.2f}x the time")
    finally:
        for burner in burners:
            burner.kill()
    return 0


def _two_node_rounds(opts: argparse.Namespace, folder: Path) -> float:
    """Median time of the bulk run on a cluster of two ``ray start`` nodes of one CPU each (a
    head and a second node, each its own process group and temp dir), which it then kills.

    The runs are made by a fresh driver process: one that had already run a private Ray
    instance lost its tasks on the second node to ``OwnerDiedError`` (Ray kept stale state
    of the first session), which a real user's one-command process never meets.
    """
    ray_bin = str(Path(sys.executable).with_name("ray"))
    env = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_worker_niceness="0")
    common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats"]
    groups: list[subprocess.Popen[bytes]] = []
    temps = [tempfile.mkdtemp(prefix="rt", dir="/tmp") for _ in range(2)]  # short: Ray's socket paths
    try:
        start = time.perf_counter()
        for args in (["--head", "--port=6391", "--include-dashboard=false"], ["--address=127.0.0.1:6391"]):
            node = subprocess.Popen([ray_bin, "start", *args, *common, f"--temp-dir={temps[len(groups)]}"],
                                    env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            groups.append(node)
            if node.wait(timeout=120) != 0:
                raise SystemExit(f"ray start {' '.join(args)} failed")
        print(f"two nodes up in {time.perf_counter() - start:.2f} s")
        driver = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--cluster-driver", str(folder),
                                 "--traces", str(opts.traces), "--repeat", str(opts.repeat)],
                                env=env, capture_output=True, text=True, timeout=3600)
        lines = driver.stdout.splitlines()
        print("\n".join(line for line in lines if not line.startswith("MEDIAN")))
        medians = [float(line.split()[1]) for line in lines if line.startswith("MEDIAN")]
        if driver.returncode != 0 or not medians:
            raise SystemExit(f"the cluster driver failed: {driver.stderr[-2000:]}")
        return medians[0]
    finally:
        for node in groups:  # every Ray process a node started is in its process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(node.pid, signal.SIGKILL)
        time.sleep(0.5)
        for temp in temps:
            shutil.rmtree(temp, ignore_errors=True)


def cluster_driver(opts: argparse.Namespace) -> int:
    """The runs of :func:`_two_node_rounds`, in their own process, attached to the cluster."""
    import statistics

    from toolscore_core import evaluate_many
    from toolscore_ray import RayExecutor

    folder = Path(opts.cluster_driver)
    executor = RayExecutor(workers=2, address="127.0.0.1:6391")
    print(f"cluster CPUs {executor.cluster_cpus()}")
    output = folder / "n2.jsonl"

    def run() -> dict:
        output.unlink(missing_ok=True)  # a fresh run each round, not a resume of the last
        return evaluate_many(folder / "gold.json", str(folder / "traces" / "**" / "*.json"), output=output,
                             workers=2, executor="ray", keep_rows=False).summary

    times = []
    for round_number in range(1, opts.repeat + 1):
        print(f"two nodes, round {round_number}:")
        times.append(_timed("ray, 2 nodes x 1 CPU", opts.traces, run))
    executor.close()
    print(f"MEDIAN {statistics.median(times)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians reported")
    parser.add_argument("--background", type=int, default=0,
                        help="busy loops at normal priority running beside (a loaded machine)")
    parser.add_argument("--two-nodes", action="store_true",
                        help="then the same runs on a cluster of two `ray start` nodes of 1 CPU each")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cluster-driver", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.cluster_driver:
        return cluster_driver(opts)
    if opts.inside:
        return inside(opts)
    if shutil.which("unshare") is None:
        print("needs `unshare --net` to keep Ray on loopback", file=sys.stderr)
        return 2
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    command = (f"ip link set lo up && exec {sys.executable} {Path(__file__).resolve()} --inside "
               f"--traces {opts.traces} --calls {opts.calls} --repeat {opts.repeat} "
               f"--background {opts.background}" + (" --two-nodes" if opts.two_nodes else ""))
    return subprocess.run(["unshare", "--net", "sh", "-c", command], env=env).returncode


if __name__ == "__main__":
    raise SystemExit(main())
