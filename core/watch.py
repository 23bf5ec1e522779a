"""Watching the repository for changes on disk (UI-7).

:func:`watch_repo` yields, in batches, the repo-relative paths that changed
— created, modified or deleted — leaving out ljtui's own journal so its
writes do not echo back, and the staging trees of delivery gates.

The watcher runs in its own thread, and only over a tree of at most
:data:`MAX_WATCHED_FOLDERS` folders. Setting it up registers every folder
with the kernel, and ``watchfiles`` holds the interpreter while it takes
in what that produces: 2.7 s for a ``/tmp`` of 40,000 folders, during
which no key was handled. A larger tree is not watched, and that is said.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import AsyncIterator, Iterable

DEBOUNCE_MS = 150
"""How long changes are gathered into one batch."""
WAKE_MS = 300
"""How often the watcher wakes, so stopping it is prompt."""
IGNORED_PREFIXES = (".git/", ".agent/journal/", ".agent/workspace/")
"""ljtui's own journal, and the staging trees of gated runs (their churn is not the user's tree)."""
MAX_WATCHED_FOLDERS = 4000
"""Largest tree watched, in folders (``.git`` left out of the count): about a quarter of a second of set-up."""


class WatchStopped(Exception):
    """The watcher could not go on (a kernel limit on watches, a folder gone); ``str(exc)`` says why."""


def folders_over(root: Path, limit: int) -> bool:
    """Whether ``root`` holds more than ``limit`` folders (``.git`` not counted), reading no more than that."""
    count, pending = 0, [root]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                count += 1
                if count > limit:
                    return True
                pending.append(Path(entry.path))
    return False


def changed_keys(changes: Iterable[tuple[object, str]], real: Path) -> set[str]:
    """The repo-relative paths of a batch of changes, ljtui's own and the staging trees left out."""
    keys = set()
    for _, raw in changes:
        path = Path(raw)
        if path.is_relative_to(real):
            key = path.relative_to(real).as_posix()
            if not key.startswith(IGNORED_PREFIXES):
                keys.add(key)
    return keys


async def watch_repo(root: Path, stop: asyncio.Event) -> AsyncIterator[set[str]]:
    """Batches of changed repo-relative paths under ``root`` until ``stop`` is set.

    Raises:
        WatchStopped: the watcher failed; nothing more is noticed.
    """
    loop = asyncio.get_running_loop()
    batches: asyncio.Queue[set[str] | BaseException | None] = asyncio.Queue()
    halt = threading.Event()
    real = root.resolve()

    def deliver(item: set[str] | BaseException | None) -> None:
        try:
            loop.call_soon_threadsafe(batches.put_nowait, item)
        except RuntimeError:  # the event loop has closed
            halt.set()

    def run() -> None:
        from watchfiles import watch

        try:
            if folders_over(real, MAX_WATCHED_FOLDERS):
                raise OSError(f"this folder holds more than {MAX_WATCHED_FOLDERS:,} folders")
            for changes in watch(real, stop_event=halt, debounce=DEBOUNCE_MS, rust_timeout=WAKE_MS):
                keys = changed_keys(changes, real)
                if keys:
                    deliver(keys)
        except Exception as exc:  # reported where the batches are read
            deliver(exc)
        else:
            deliver(None)

    threading.Thread(target=run, name="ljtui-watch", daemon=True).start()
    stopped = asyncio.ensure_future(stop.wait())
    try:
        while True:
            batch = asyncio.ensure_future(batches.get())
            await asyncio.wait({batch, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if not batch.done():
                batch.cancel()
                return
            item = batch.result()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise WatchStopped(f"{type(item).__name__}: {item}") from item
            yield item
    finally:
        halt.set()
        stopped.cancel()
