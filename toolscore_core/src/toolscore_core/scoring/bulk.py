"""Bulk scoring: many trace files against a gold, one result row per trace, resumable.

``evaluate_many("gold.json", "traces/**/*.json", output="results.jsonl")`` is what
``toolscore eval GOLD --traces PATTERN -o results.jsonl`` runs. The decisions, and why:

- **Which gold scores which trace.** GOLD is a file: every trace is scored against it.
  GOLD is a directory: a trace found at ``a/b.json`` below the fixed part of its pattern
  (``traces/`` for ``traces/**/*.json``) is scored against ``GOLD/a/b.json``, the same
  relative path; a trace whose gold is missing is an error row naming the file it looked
  for. One rule, no fallbacks, so a row never silently used a gold it was not meant for.
- **Work goes out in shards of several paths** through :func:`get_executor`, never one
  trace per task: scoring a small trace takes about a millisecond, less than sending a task
  to a worker process (or a cluster) costs. The worker function, :func:`score_shard`, is a
  top-level function that gets paths and returns small row dicts, as every executor
  (processes, Ray) needs.
- **Failures are rows.** A trace that cannot be read (empty, not JSON, invalid UTF-8, too
  big, no tool call) is a row whose ``error`` carries the InputError text; a shard whose
  worker died is an error row for each of its traces. Nothing but bad invocation (no trace
  matched, an unreadable gold file, an output file that is not ours) stops the run.
- **The caller is the single writer.** Rows stream back as shards finish and this process
  appends each one (one ``write`` per line, fsync) through the kernel's append-only file,
  which also moves a torn last line of a killed run aside on open.
- **Resume by path and content.** A trace whose ``(path, sha256)`` is already in the output
  is skipped, so rerunning the same command after a crash finishes the job, and a trace
  file that changed since is scored again (its new row is the one that counts). A row whose
  worker died (or that hit an internal error) is not a result: its trace is scored again.
- **The summary** (score distribution, grade counts, worst traces, findings by kind) is
  computed over the latest row of every trace matched by this invocation, new or resumed,
  and written next to the output as ``<output stem>.summary.json`` (see
  :mod:`toolscore_core.scoring.bulk_report`), so the results file stays uniform rows that
  any JSON Lines reader loads.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel.errors import InputError

#: Key on every row: marks a results file as ours (a resume refuses any other file).
ROW_MARK = "toolscore_bulk"
ROW_VERSION = 1

#: Largest shard. Each shard costs the driver about 1.7 ms of CPU whatever its size (the
#: pool's hand-off, one write and one fsync of its rows), on the same cores as the workers:
#: with 64 small traces a shard (~45 ms of scoring) that was a tenth of the driver's CPU; with
#: 256 the driver's CPU on 10,000 traces fell from ~0.5 to ~0.3 s (bench/RESULTS.md). A shard
#: is still under a second of work, so a run's tail and a resume lose little.
MAX_SHARD = 256
#: Shards per worker the work is cut into when there are few traces, so workers stay busy.
SHARDS_PER_WORKER = 4

#: The metrics a row carries (the rest is in a single-trace report).
ROW_METRICS = ("selection_accuracy", "argument_f1", "sequence_accuracy", "required_call_recall", "redundancy")

_GLOB_CHARS = frozenset("*?[")


@attrs.frozen
class TraceRef:
    """One trace to score: its path as found, and its path relative to its pattern's base."""

    path: str
    relative: str


@attrs.frozen
class BulkJob:
    """What every trace of a run is scored with; picklable, sent with each shard.

    ``gold`` is a file, or a directory when ``gold_is_dir`` (see the module docstring).
    ``forbidden`` is a file path; ``weights``/``metric_options`` plain dicts.
    """

    gold: str
    gold_is_dir: bool = False
    format: str | None = None
    forbidden: str | None = None
    weights: Mapping[str, float] | None = None
    mode: str | None = None
    min_score: float | None = None
    metric_options: Mapping[str, Mapping[str, Any]] | None = None

    def gold_for(self, ref: TraceRef) -> Path:
        return Path(self.gold) / ref.relative if self.gold_is_dir else Path(self.gold)


@attrs.frozen
class BulkResult:
    """What :func:`evaluate_many` did: the rows it wrote (this run), what it skipped, the summary."""

    rows: tuple[dict[str, Any], ...]
    skipped: int
    summary: dict[str, Any]
    output: Path | None = None
    summary_path: Path | None = None

    @property
    def exit_code(self) -> int:
        """0 every trace scored at or above its bar; 1 a trace below it or unreadable."""
        return int(self.summary["exit_code"])


# --- finding the traces ---------------------------------------------------------------------------


def pattern_base(pattern: str) -> str:
    """The fixed leading directories of a glob ``pattern`` (``traces`` for ``traces/**/*.json``)."""
    parts = Path(pattern).parts
    fixed: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part):
            break
        fixed.append(part)
    return str(Path(*fixed)) if fixed else "."


def find_traces(patterns: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
                exclude: Iterable[str | os.PathLike[str]] = ()) -> list[TraceRef]:
    """Every file matched by ``patterns`` (``**`` recurses), each once, in sorted order.

    A pattern without glob characters is one file. Directories are left out, and so are the
    ``exclude`` files (the output and its summary, when they sit among the traces). No file
    matched is an InputError naming the patterns.
    """
    given = [os.fspath(patterns)] if isinstance(patterns, (str, os.PathLike)) else [os.fspath(p) for p in patterns]
    if not given:
        raise InputError("no trace pattern given", expected="e.g. --traces 'traces/**/*.json'")
    skip = _file_ids(exclude)
    seen: set[str] = set()
    refs: list[TraceRef] = []
    for pattern in given:
        base = pattern_base(pattern)
        matches = glob.glob(pattern, recursive=True) if _GLOB_CHARS & set(pattern) else [pattern]
        for found in sorted(matches):
            path = os.path.normpath(found)
            if path in seen:
                continue
            identity = _regular_file_id(path)
            if identity is None or identity in skip:
                continue
            seen.add(path)
            refs.append(TraceRef(path=path, relative=_relative(path, base)))
    if not refs:
        raise InputError(f"no trace file matched {', '.join(repr(p) for p in given)}",
                         hint="Quote the pattern so the shell does not expand it, e.g. --traces 'traces/**/*.json'")
    return refs


def _regular_file_id(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of the regular file at ``path`` (links followed), else None.

    One ``stat`` per found file is all the search costs: comparing real paths instead (to
    leave out the output when it sits among the traces) took five ``lstat`` calls per file,
    most of the driver's time before the first trace was sent.
    """
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _file_ids(paths: Iterable[str | os.PathLike[str]]) -> set[tuple[int, int]]:
    """The identities of those ``paths`` that are files now (one not there yet matches nothing)."""
    ids = (_regular_file_id(os.fspath(path)) for path in paths)
    return {identity for identity in ids if identity is not None}


def _relative(path: str, base: str) -> str:
    """``os.path.relpath(path, base)``, without its two ``abspath`` calls when ``path`` is
    spelled under ``base`` (as every glob match of a pattern is, both normalised)."""
    if base == "." and not os.path.isabs(path) and not path.startswith(".."):
        return path
    prefix = base if base.endswith(os.sep) else base + os.sep
    if path.startswith(prefix) and base not in ("", "."):
        return path[len(prefix):]
    return os.path.relpath(path, base)


def file_sha256(path: str | os.PathLike[str]) -> str | None:
    """The sha256 of the file's bytes (read in chunks), or None when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


# --- the worker side ---------------------------------------------------------------------------------


def score_shard(shard: tuple[BulkJob, Sequence[TraceRef]]) -> list[dict[str, Any]]:
    """Score every trace of a shard; one row each, errors included (the executor's function)."""
    job, refs = shard
    return [score_one(job, ref) for ref in refs]


#: Parsed gold and forbidden files of this worker, by (path, mtime, size): one gold read per
#: worker instead of one per trace (a changed file is read again).
_PARSED: dict[tuple[str, str, int, int], Any] = {}
_PARSED_LIMIT = 1024


def _parsed(kind: str, path: Path) -> Any:
    from toolscore_core.scoring.contracts import load_contract, load_forbidden

    try:
        info = path.stat()
    except OSError:
        info = None
    key = (kind, str(path), info.st_mtime_ns if info else -1, info.st_size if info else -1)
    found = _PARSED.get(key)
    if found is None:
        found = load_contract(path) if kind == "gold" else load_forbidden(path)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[key] = found
    return found


def _evaluate(job: BulkJob, gold: Path, trace: Path) -> Any:
    """What :func:`~toolscore_core.scoring.evaluation.evaluate_trace` does (the tests check the
    two agree), with the gold and forbidden files read once per worker."""
    from toolscore_core.kernel.plugins import get_plugin_manager
    from toolscore_core.kernel.traces import load_trace_file
    from toolscore_core.scoring.evaluation import evaluate_loaded
    from toolscore_core.scoring.modes import check_mode

    contract = _parsed("gold", gold)
    pm = get_plugin_manager()
    loaded = load_trace_file(trace, format=job.format, pm=pm)
    extra = tuple(_parsed("forbidden", Path(job.forbidden))) if job.forbidden is not None else ()
    return evaluate_loaded(
        contract.expected, loaded, tuple(contract.forbidden) + extra, job.weights,
        mode=check_mode(job.mode if job.mode is not None else contract.mode, file=str(gold)),
        pm=pm, contract_weights=contract.weights, source=contract.source,
        min_score=job.min_score if job.min_score is not None else contract.min_score,
        metric_options=job.metric_options)


def score_one(job: BulkJob, ref: TraceRef) -> dict[str, Any]:
    """The row of one trace: its score and key figures, or the error that stopped it."""
    gold = job.gold_for(ref)
    row = _row_head(ref, gold, file_sha256(ref.path))
    try:
        if job.gold_is_dir and not gold.is_file():
            raise InputError(f"no gold file for this trace (looked for {gold})", file=Path(ref.path),
                             hint="A gold directory needs a gold at the trace's relative path")
        evaluation = _evaluate(job, gold, Path(ref.path))
    except InputError as exc:
        row["error"] = {"type": "InputError", "message": str(exc)}
        return row
    except Exception as exc:  # a bug or a plugin's failure: still this trace's row, not the run's end
        row["error"] = {"type": type(exc).__name__, "message": str(exc) or type(exc).__name__}
        return row
    return _scored(row, evaluation)


def _row_head(ref: TraceRef, gold: Path, sha: str | None) -> dict[str, Any]:
    return {ROW_MARK: ROW_VERSION, "path": ref.path, "sha256": sha, "gold": str(gold), "format": None,
            "score": None, "grade": None, "passed": None, "min_score": None, "calls": None,
            "metrics": {}, "findings": {}, "error": None}


def _scored(row: dict[str, Any], evaluation: Any) -> dict[str, Any]:
    from toolscore_core.scoring.verdict import below_bar

    findings: dict[str, int] = {}
    for finding in evaluation.findings:  # the capped "... and N more" line stands for N findings
        omitted = finding.details.get("omitted") if isinstance(finding.details, Mapping) else None
        findings[finding.code] = findings.get(finding.code, 0) + (omitted if isinstance(omitted, int) else 1)
    row.update(
        format=evaluation.actual.source_format,
        score=evaluation.score,
        grade=evaluation.grade,
        passed=not below_bar(evaluation.score, evaluation.min_score),
        min_score=evaluation.min_score,
        calls=len(evaluation.actual.calls),
        metrics={name: getattr(evaluation, name) for name in ROW_METRICS},
        findings=dict(sorted(findings.items())),
    )
    return row


def error_row(ref: TraceRef, job: BulkJob, error_type: str, message: str) -> dict[str, Any]:
    """The row of a trace whose shard never returned (its worker died, or it could not be sent)."""
    row = _row_head(ref, job.gold_for(ref), file_sha256(ref.path))
    row["error"] = {"type": error_type, "message": message}
    return row


# --- the results file ----------------------------------------------------------------------------------


def _first_line_is_ours(value: Any) -> str | None:
    if isinstance(value, dict) and ROW_MARK in value:
        return None
    return "is not a bulk results file (its first line is not a result row), so no row is appended to it"


def read_rows(path: str | os.PathLike[str], *, on_torn: Callable[[Any], None] | None = None
              ) -> Iterator[dict[str, Any]]:
    """The rows of a results file, streaming; a torn last line is skipped (and reported)."""
    from toolscore_core.kernel.jsonl import iter_json_objects

    file = Path(path)
    for number, row in iter_json_objects(file, on_torn=on_torn, what="a result row"):
        if number == 1 and ROW_MARK not in row:
            raise InputError(_first_line_is_ours(row) or "", file=file, location="line 1")
        yield row


def summary_path_for(output: str | os.PathLike[str]) -> Path:
    """Where the summary of ``output`` goes: ``results.jsonl`` -> ``results.summary.json``."""
    path = Path(output)
    return path.with_name(f"{path.stem if path.suffix else path.name}.summary.json")


def shard_size(count: int, workers: int) -> int:
    """Traces per shard: a few shards per worker for small runs, at most MAX_SHARD."""
    return max(1, min(MAX_SHARD, count // max(1, workers * SHARDS_PER_WORKER)))


# --- the driver ---------------------------------------------------------------------------------------------


def evaluate_many(
    gold: str | os.PathLike[str],
    traces: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    workers: int | None = None,
    executor: str = "local",
    output: str | os.PathLike[str] | None = None,
    format: str | None = None,
    forbidden: str | os.PathLike[str] | None = None,
    weights: Mapping[str, float] | None = None,
    mode: str | None = None,
    min_score: float | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    worst: int = 10,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_torn: Callable[[Any], None] | None = None,
    plugin_manager: Any = None,
    keep_rows: bool = True,
    executor_settings: Mapping[str, Any] | None = None,
) -> BulkResult:
    """Score every trace matched by ``traces`` against ``gold``; a row per trace, as each finishes.

    :param gold: a gold file (every trace), or a directory of golds at the traces' relative
        paths (see the module docstring).
    :param traces: a glob pattern (``**`` recurses), a path, or several of them.
    :param workers: traces scored at once (``None``: one per CPU; 1: in this process).
    :param executor: where the work runs: ``local`` (worker processes), ``thread``, or an
        installed plugin's executor (``toolscore plugins`` lists them).
    :param output: the JSONL results file; rows already in it (same path and content) are
        skipped, and the summary is written next to it. ``None``: rows only returned.
    :param on_row: hears each new row (after it is written); ``on_progress(done, total)``
        after each; ``on_torn`` about a torn last line moved aside on opening ``output``.
    :param executor_settings: more settings for the executor (e.g. ``{"address": ...}`` of
        a cluster); each executor takes the ones it names, ``None`` values are left out.
    :param keep_rows: return the new rows in :attr:`BulkResult.rows` (False: memory stays
        flat on millions of traces; the rows are in ``output``).
    The other options are those of :func:`~toolscore_core.scoring.evaluation.evaluate_trace`.
    """
    from toolscore_core.kernel.executors import get_executor
    from toolscore_core.scoring.bulk_report import Aggregate

    job = _checked_job(gold, format=format, forbidden=forbidden, weights=weights, mode=mode,
                       min_score=min_score, metric_options=metric_options, pm=plugin_manager)
    out = Path(output) if output is not None else None
    summary_file = summary_path_for(out) if out is not None else None
    ours = [out, summary_file, out.with_name(out.name + ".torn")] if out is not None and summary_file else []
    refs = find_traces(traces, exclude=ours)
    executor_obj = get_executor(executor, pm=plugin_manager, workers=workers,
                                **dict(executor_settings or {}))  # unknown name: exit 2, listed
    writer = _open_output(out, on_torn) if out is not None else None  # repairs a torn tail first
    aggregate = Aggregate(worst=worst)
    rows: list[dict[str, Any]] = []
    try:
        pending = _pending(refs, _previous_rows(out) if out is not None else {}, aggregate)
        skipped = len(refs) - len(pending)
        with executor_obj:
            done = skipped
            if on_progress is not None:
                on_progress(done, len(refs))
            for batch in _stream(executor_obj, job, pending, getattr(executor_obj, "workers", None) or 1):
                if writer is not None:  # a shard's rows in one write and one fsync
                    writer.write_lines(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                                       for row in batch)
                for row in batch:
                    if keep_rows:
                        rows.append(row)
                    aggregate.add(row)
                    done += 1
                    if on_row is not None:
                        on_row(row)
                if on_progress is not None:
                    on_progress(done, len(refs))
    finally:
        if writer is not None:
            writer.close()
    summary = aggregate.summary(traces=len(refs), new=len(refs) - skipped, skipped=skipped,
                                results=str(out) if out is not None else None)
    if summary_file is not None:
        from toolscore_core.kernel.files import write_atomic

        write_atomic(summary_file, json.dumps(summary, indent=2, ensure_ascii=False) + "\n", what="the summary")
    return BulkResult(rows=tuple(rows), skipped=skipped, summary=summary, output=out, summary_path=summary_file)


def _pending(refs: list[TraceRef], previous: dict[str, dict[str, dict[str, Any]]], aggregate: Any) -> list[TraceRef]:
    """The traces still to score; those already in the output (same path and content) go to the summary."""
    pending: list[TraceRef] = []
    for ref in refs:
        known = previous.get(ref.path)
        if known:
            sha = file_sha256(ref.path)
            if sha is not None and sha in known:
                aggregate.add(known[sha])
                continue
        pending.append(ref)
    return pending


def _stream(executor: Any, job: BulkJob, refs: list[TraceRef], workers: int) -> Iterator[list[dict[str, Any]]]:
    """The rows of each shard of ``refs`` as it finishes; each trace exactly once (deduped by
    path and hash, against an executor that returns a retried shard twice)."""
    size = shard_size(len(refs), workers)
    shards = {index: refs[start:start + size] for index, start in enumerate(range(0, len(refs), size))}
    items = ((index, (job, tuple(shard))) for index, shard in shards.items())
    emitted: set[tuple[str, str | None]] = set()
    for result in executor.run(score_shard, items):
        if result.ok and isinstance(result.value, list):
            batch = result.value
        else:
            error = result.error
            kind = error.type if error is not None else "WorkerError"
            message = error.message if error is not None else f"the executor returned {type(result.value).__name__}"
            batch = [error_row(ref, job, kind, message) for ref in shards.get(result.key, ())]
        fresh = []
        for row in batch:
            key = (row["path"], row["sha256"])
            if key not in emitted:
                emitted.add(key)
                fresh.append(row)
        if fresh:
            yield fresh


def _checked_job(gold: str | os.PathLike[str], *, format: str | None, forbidden: str | os.PathLike[str] | None,
                 weights: Mapping[str, float] | None, mode: str | None, min_score: float | None,
                 metric_options: Mapping[str, Mapping[str, Any]] | None, pm: Any) -> BulkJob:
    """The job, with everything that is the same for every trace checked once, up front (exit 2)."""
    from toolscore_core.scoring.contracts import load_contract, load_forbidden
    from toolscore_core.scoring.evaluation import (
        metric_registry,
        resolve_metric_options,
        resolve_weights,
    )
    from toolscore_core.scoring.modes import check_mode

    gold_path = Path(gold)
    if not gold_path.exists():
        raise InputError("gold file not found", file=gold_path, hint="Check the path (a file, or a directory of golds)")
    if min_score is not None and (isinstance(min_score, bool) or not isinstance(min_score, (int, float))
                                  or not 0 <= min_score <= 1):
        raise InputError(f"min_score {min_score!r} is not a number between 0 and 1")
    contract_weights = None
    if not gold_path.is_dir():
        contract = load_contract(gold_path)
        contract_weights = contract.weights
    if forbidden is not None:
        load_forbidden(Path(forbidden))
    if mode is not None:
        check_mode(mode)
    registry = metric_registry(pm)
    resolve_weights(registry, contract_weights, weights)
    resolve_metric_options(registry, metric_options)
    return BulkJob(gold=str(gold_path), gold_is_dir=gold_path.is_dir(), format=format,
                   forbidden=os.fspath(forbidden) if forbidden is not None else None,
                   weights=dict(weights) if weights else None, mode=mode, min_score=min_score,
                   metric_options={k: dict(v) for k, v in metric_options.items()} if metric_options else None)


def _previous_rows(out: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """path -> sha256 -> its latest row, from an earlier run's output (empty when there is none).

    A row whose error is not the trace's own (its worker died, an internal error) is left
    out, so resume scores that trace again: such a row says nothing about the trace, while
    an InputError row (an unreadable file) would only come out the same."""
    if not out.exists() or out.stat().st_size == 0:
        return {}
    previous: dict[str, dict[str, dict[str, Any]]] = {}
    for row in read_rows(out):
        path, sha, error = row.get("path"), row.get("sha256"), row.get("error")
        if not (isinstance(path, str) and isinstance(sha, str)):
            continue
        if error and not (isinstance(error, dict) and error.get("type") == "InputError"):
            previous.get(path, {}).pop(sha, None)  # a later failed attempt: score it again
            continue
        previous.setdefault(path, {})[sha] = row
    return previous


def _open_output(out: Path, on_torn: Callable[[Any], None] | None) -> Any:
    from toolscore_core.kernel.jsonl import AppendOnlyFile

    writer = AppendOnlyFile(out, check_first=_first_line_is_ours)
    if writer.repair is not None and on_torn is not None:
        on_torn(writer.repair)
    return writer


__all__ = [
    "BulkJob",
    "BulkResult",
    "TraceRef",
    "evaluate_many",
    "file_sha256",
    "find_traces",
    "pattern_base",
    "read_rows",
    "score_one",
    "score_shard",
    "shard_size",
    "summary_path_for",
]
