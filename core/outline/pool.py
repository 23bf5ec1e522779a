"""Reading many files in worker processes, so a cold start of a large repository uses every CPU.

Each worker is a fresh interpreter (``python -P -m``
:mod:`ljtui.core.outline.worker`): never a fork of the calling process,
which may be running threads, and with the current folder (often the
repository, untrusted) kept off its import path. It gets the environment
of every child process (:func:`~ljtui.core.childenv.child_env`: no API
keys). The files are split into one batch per worker of about equal bytes;
a worker that fails or times out has its batch read in this process.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections import Counter
from pathlib import Path

from ljtui.core.childenv import child_env
from ljtui.core.outline.parse import MAX_FILE_BYTES, Batch, Entry, read_batch

POOL_MIN_FILES = 200
"""Fewer files to read than this are read in this process; more go to worker processes."""
MAX_WORKERS = 4
"""Most worker processes for one build (fewer when the machine has fewer CPUs)."""
WORKER_MODULE = "ljtui.core.outline.worker"
"""The worker's module, run with ``python -P -m``."""
WORKER_TIMEOUT_S = 600.0
"""A worker still running after this long is stopped and its files are read in this process."""

Item = tuple[str, str, "Entry | None"]
"""A file to read: its path, its language, and its cached entry (kept when the content hash matches)."""


def read_all(root: Path, items: list[Item], workers: int | None) -> Batch:
    """Read ``items`` here or, when there are many, in worker processes; the result keeps their order.

    Args:
        root: the repository root.
        items: ``(path, language, cached entry or None)`` for each file.
        workers: worker processes (``None``: one per CPU for :data:`POOL_MIN_FILES` files or more).
    """
    count = worker_count(workers, len(items))
    if count <= 1:
        return read_batch(str(root), items)
    batches = split_batches(root, items, count)
    children = [_start_worker(str(root), batch) for batch in batches]
    by_path: dict[str, Entry] = {}
    mentions: Counter[str] = Counter()
    for child, batch in zip(children, batches):
        result = _worker_result(child)
        if result is None or len(result.entries) != len(batch):
            result = read_batch(str(root), batch)
        by_path.update((entry.path, entry) for entry in result.entries)
        mentions.update(result.mentions)
    return Batch([by_path[path] for path, _, _ in items], dict(mentions))


def _start_worker(root: str, batch: list[Item]) -> subprocess.Popen | None:
    """A worker process started on ``batch`` (its whole input written), or None when it could not start.

    A worker reads all of its input before it writes anything, so writing
    every worker's input before reading any output cannot deadlock.
    """
    try:
        child = subprocess.Popen([sys.executable, "-P", "-m", WORKER_MODULE], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_env())
    except OSError:
        return None
    stdin, child.stdin = child.stdin, None
    if stdin is None:
        child.kill()
        child.wait()
        return None
    try:
        with stdin:
            stdin.write(pickle.dumps((root, batch), protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        child.kill()
        child.wait()
        return None
    return child


def _worker_result(child: subprocess.Popen | None) -> Batch | None:
    """What a worker read, or None when it could not finish (its batch is then read here)."""
    if child is None:
        return None
    try:
        out, _ = child.communicate(timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return None
    if child.returncode != 0:
        return None
    try:
        result = pickle.loads(out)
    except Exception:  # noqa: BLE001 - a worker that died mid-write leaves a truncated pickle
        return None
    return result if isinstance(result, Batch) else None


def worker_count(workers: int | None, files: int) -> int:
    """How many worker processes read ``files`` files (1: none, this process reads them)."""
    if workers is not None:
        return max(1, min(workers, files))
    if files < POOL_MIN_FILES:
        return 1
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def split_batches(root: Path, items: list[Item], count: int) -> list[list[Item]]:
    """``items`` split into ``count`` lists of about equal bytes (largest file first to the lightest list)."""
    sized = []
    for item in items:
        try:
            size = os.lstat(os.path.join(root, item[0])).st_size
        except OSError:
            size = 0
        sized.append((min(size, MAX_FILE_BYTES), item))
    sized.sort(key=lambda pair: (-pair[0], pair[1][0]))
    batches: list[list[Item]] = [[] for _ in range(count)]
    totals = [0] * count
    for size, item in sized:
        lightest = totals.index(min(totals))
        batches[lightest].append(item)
        totals[lightest] += size
    return [batch for batch in batches if batch]
