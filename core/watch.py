"""Watching the repository for changes on disk (UI-7).

:func:`watch_repo` yields, in batches, the repo-relative paths that changed
— created, modified or deleted — leaving out ljtui's own journal so its
writes do not echo back, and the staging trees of delivery gates.

The watcher runs in its own process (:mod:`ljtui.core.watch_child`), and
only over a tree of at most :data:`MAX_WATCHED_FOLDERS` folders. Setting it
up registers every folder with the kernel, and ``watchfiles`` holds its
interpreter while it does (2.7 s for a ``/tmp`` of 40,000 folders; a third
of a second for 2,500): in the process that draws the screen, no key was
handled meanwhile. A thread here reads the child's lines. A larger tree is
not watched, and that is said.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import AsyncIterator, Iterable

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
    children: list[subprocess.Popen[bytes]] = []

    def deliver(item: set[str] | BaseException | None) -> None:
        try:
            loop.call_soon_threadsafe(batches.put_nowait, item)
        except RuntimeError:  # the event loop has closed
            halt.set()

    def run() -> None:
        try:
            child = subprocess.Popen(
                [sys.executable, "-P", "-m", "ljtui.core.watch_child", str(real), str(MAX_WATCHED_FOLDERS)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/",
                start_new_session=True)
        except OSError as exc:
            deliver(exc)
            return
        children.append(child)
        assert child.stdout is not None
        try:
            if halt.is_set():  # stopped while the child started
                return
            for line in child.stdout:
                message = _message(line)
                if "error" in message:
                    deliver(WatchStopped(str(message["error"])))
                    return
                keys = message.get("keys")
                if isinstance(keys, list) and keys:
                    deliver({k for k in keys if isinstance(k, str)})
            deliver(None if halt.is_set() else OSError(f"the watcher ended (exit status {child.wait()})"))
        finally:
            _end(child)

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
            if isinstance(item, WatchStopped):
                raise item
            if isinstance(item, BaseException):
                raise WatchStopped(f"{type(item).__name__}: {item}") from item
            yield item
    finally:
        halt.set()
        stopped.cancel()
        for child in children:  # its stdin closes, which ends it; the reading thread reaps it
            _close(child)


def _message(line: bytes) -> dict[str, object]:
    """One line of the watcher's child; an unreadable line counts as nothing."""
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _close(child: subprocess.Popen[bytes]) -> None:
    """Close the watcher child's stdin, which ends it."""
    if child.stdin is not None and not child.stdin.closed:
        try:
            child.stdin.close()
        except (OSError, ValueError):  # closed by the other side meanwhile
            pass


def _end(child: subprocess.Popen[bytes]) -> None:
    """Stop the watcher's child and reap it (one that lingers is killed)."""
    _close(child)
    try:
        child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
