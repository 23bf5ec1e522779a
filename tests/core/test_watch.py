"""Watching the repository: real changes arrive in batches, the watcher is set up in its own process (a large
tree took seconds to register, holding the interpreter), a failing watcher says why, and stopping ends it."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
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


UI_PROCESS = """
import asyncio, sys, time
from pathlib import Path
from ljtui.core.watch import watch_repo
async def main():
    root, stop = Path(sys.argv[1]), asyncio.Event()
    batches = watch_repo(root, stop)
    first = asyncio.ensure_future(batches.__anext__())
    deadline = time.monotonic() + 20
    while not first.done() and time.monotonic() < deadline:
        (root / "app.py").write_text(str(time.monotonic()))
        await asyncio.sleep(0.2)
    print(sorted(first.result()))
    stop.set()
    print("watchfiles" in sys.modules)
asyncio.run(main())
"""


def test_the_process_that_draws_the_screen_never_sets_the_watcher_up(tmp_path: Path) -> None:
    """``watchfiles`` holds its interpreter while it registers a tree: it runs in a child process."""
    for n in range(50):
        (tmp_path / f"d{n}").mkdir()
    done = subprocess.run([sys.executable, "-c", UI_PROCESS, str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["['app.py']", "False"]


async def test_a_watcher_that_fails_says_why(tmp_path: Path) -> None:
    batches = watch_repo(tmp_path / "gone", asyncio.Event())  # a folder that does not exist
    with pytest.raises(WatchStopped, match="FileNotFoundError"):
        await asyncio.wait_for(batches.__anext__(), TIMEOUT)


async def test_the_engine_says_when_changes_on_disk_are_no_longer_noticed(tmp_path: Path) -> None:
    from ljtui.core.config import Config
    from ljtui.core.engine import Engine
    from ljtui.core.events import Notice
    from ljtui.core.ports import ListSink

    sink = ListSink()
    repo = tmp_path / "repo"
    repo.mkdir()
    engine = Engine(Config(), sink, repo_root=repo)
    shutil.rmtree(repo)
    await asyncio.wait_for(engine.watch(asyncio.Event()), TIMEOUT)
    [notice] = [e for e in sink.events if isinstance(e, Notice) and "are not noticed" in e.message]
    assert notice.level == "warning" and "FileNotFoundError" in notice.message


async def test_stopping_ends_the_watchers_process(tmp_path: Path) -> None:
    before = _watchers()
    stop = asyncio.Event()
    batches = watch_repo(tmp_path, stop)
    pending = asyncio.ensure_future(batches.__anext__())
    deadline = time.monotonic() + TIMEOUT
    while not _watchers() - before and time.monotonic() < deadline:  # a watcher of an earlier test may end now
        await asyncio.sleep(0.05)
    mine = _watchers() - before
    assert len(mine) == 1
    stop.set()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(pending, TIMEOUT)
    while mine & _watchers() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not mine & _watchers(), "the watcher's process ended"


def _watchers() -> set[int]:
    """The pids of this process's watcher children."""
    found = set()
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"ljtui.core.watch_child" in cmdline:
            found.add(int(status.parent.name))
    return found


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


async def test_a_repository_holding_its_own_ljtui_package_is_watched_by_ours(tmp_path: Path, monkeypatch) -> None:
    """The child imports ljtui from where this ljtui is installed, never from the repository or the cwd."""
    monkeypatch.chdir(tmp_path)  # ljtui starts in the repository
    hostile = tmp_path / "ljtui" / "core"
    hostile.mkdir(parents=True)
    marker = tmp_path / "imported-from-the-repo"
    for folder in (tmp_path / "ljtui", hostile):
        (folder / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (hostile / "watch_child.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    stop = asyncio.Event()
    batches = watch_repo(tmp_path, stop)
    first = asyncio.ensure_future(next_batch(batches, stop))
    deadline = time.monotonic() + TIMEOUT
    while not first.done() and time.monotonic() < deadline:
        (tmp_path / "app.py").write_text(str(time.monotonic()))
        await asyncio.sleep(0.2)
    assert "app.py" in first.result()
    stop.set()
    await batches.aclose()
    assert not marker.exists()
