"""Watching the repository: real changes arrive in batches, the watcher is set up off the event loop (a large
tree took seconds to register), a failing watcher says why, and stopping ends it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from ljtui.core.watch import WatchStopped, watch_repo

TIMEOUT = 20.0


async def next_batch(batches, stop: asyncio.Event) -> set[str]:  # type: ignore[no-untyped-def]
    return await asyncio.wait_for(batches.__anext__(), TIMEOUT)


async def test_a_file_written_in_the_repository_arrives_and_ljtuis_own_state_does_not(tmp_path: Path) -> None:
    (tmp_path / ".agent" / "journal").mkdir(parents=True)
    stop = asyncio.Event()
    batches = watch_repo(tmp_path, stop)
    first = asyncio.ensure_future(next_batch(batches, stop))
    seen: set[str] = set()
    deadline = time.monotonic() + TIMEOUT
    while not seen and time.monotonic() < deadline:  # the watcher may still be registering the tree
        (tmp_path / ".agent" / "journal" / "entry").write_text("x")
        (tmp_path / "app.py").write_text(f"x = {time.monotonic()}\n")
        await asyncio.sleep(0.3)
        if first.done():
            seen = first.result()
    assert seen == {"app.py"}
    stop.set()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(batches.__anext__(), TIMEOUT)


async def test_setting_the_watcher_up_never_holds_the_event_loop(tmp_path: Path, monkeypatch) -> None:
    import watchfiles

    threads: list[threading.Thread] = []

    def slow_watch(path, stop_event, **options):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        time.sleep(1.0)  # registering a large tree
        while not stop_event.is_set():
            time.sleep(0.05)
        return iter(())

    monkeypatch.setattr(watchfiles, "watch", slow_watch)
    stop = asyncio.Event()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.ensure_future(tick())
    batches = watch_repo(tmp_path, stop)
    pending = asyncio.ensure_future(batches.__anext__())
    await asyncio.sleep(0.5)
    assert threads and threads[0] is not threading.current_thread()
    assert ticks >= 20  # the loop ran on while the watcher was being set up
    stop.set()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(pending, TIMEOUT)
    await ticker


async def test_a_watcher_that_fails_says_why(tmp_path: Path, monkeypatch) -> None:
    import watchfiles

    def failing_watch(path, stop_event, **options):  # type: ignore[no-untyped-def]
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "watch", failing_watch)
    batches = watch_repo(tmp_path, asyncio.Event())
    with pytest.raises(WatchStopped, match="inotify watch limit reached"):
        await asyncio.wait_for(batches.__anext__(), TIMEOUT)


async def test_the_engine_says_when_changes_on_disk_are_no_longer_noticed(tmp_path: Path, monkeypatch) -> None:
    import watchfiles

    from ljtui.core.config import Config
    from ljtui.core.engine import Engine
    from ljtui.core.events import Notice
    from ljtui.core.ports import ListSink

    def failing_watch(path, stop_event, **options):  # type: ignore[no-untyped-def]
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "watch", failing_watch)
    sink = ListSink()
    await asyncio.wait_for(Engine(Config(), sink, repo_root=tmp_path).watch(asyncio.Event()), TIMEOUT)
    [notice] = [e for e in sink.events if isinstance(e, Notice) and "are not noticed" in e.message]
    assert notice.level == "warning" and "inotify watch limit reached" in notice.message


async def test_a_tree_of_too_many_folders_is_not_watched_and_says_so(tmp_path: Path, monkeypatch) -> None:
    import ljtui.core.watch as watching

    monkeypatch.setattr(watching, "MAX_WATCHED_FOLDERS", 5)
    for n in range(6):
        (tmp_path / f"d{n}").mkdir()
    (tmp_path / ".git" / "objects").mkdir(parents=True)  # not counted
    batches = watch_repo(tmp_path, asyncio.Event())
    with pytest.raises(WatchStopped, match="this folder holds more than 5 folders"):
        await asyncio.wait_for(batches.__anext__(), TIMEOUT)
    assert not watching.folders_over(tmp_path, 6)
