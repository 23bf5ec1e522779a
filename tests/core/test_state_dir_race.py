"""ljtui's own state in ``.agent/`` racing a process that swaps a state folder for a symlink to a folder outside:
no file is ever created, appended to or replaced through the link (inotify watches the outside folder)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ljtui.core.edits.journal import ensure_agent_gitignore, journal_lock
from ljtui.core.statedir import StateDirUnsafe, open_state_file, replace_state_file
from tests.core.edits.race_helpers import FolderSwapper, Watch

SECONDS = 0.8
"""How long each race runs (the swapper makes a few thousand swaps in that time)."""


def test_state_files_racing_a_state_folder_swapped_for_a_symlink_never_reach_outside(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".agent" / "sessions").mkdir(parents=True)
    outside.mkdir()
    watch = Watch(outside)
    swapper = FolderSwapper(repo / ".agent" / "sessions", outside)
    refused = written = n = 0
    deadline = time.monotonic() + SECONDS
    try:
        while time.monotonic() < deadline or not refused:
            n += 1
            if n > 200_000:
                break
            try:
                replace_state_file(repo, "sessions", f"s{n}.json", data=b"{}", durable=False)
                fd = open_state_file(repo, "sessions", f"log{n}.jsonl", flags=os.O_WRONLY | os.O_CREAT | os.O_APPEND)
                os.write(fd, b"line\n")
                os.close(fd)
                written += 1
            except StateDirUnsafe as exc:
                assert exc.path == ".agent/sessions"
                refused += 1
    finally:
        swaps = swapper.finish()
    assert watch.events() == b"", "something was created or written in the folder outside"
    assert list(outside.iterdir()) == []
    assert swaps > 0 and written > 0
    assert refused > 0, "the race never hit the window; the test proves nothing"


def test_the_gitignore_and_the_journal_lock_are_never_made_through_a_swapped_state_folder(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".agent" / "journal").mkdir(parents=True)
    outside.mkdir()
    watch = Watch(outside)
    swapper = FolderSwapper(repo / ".agent", outside)
    deadline = time.monotonic() + SECONDS
    try:
        while time.monotonic() < deadline:
            try:
                ensure_agent_gitignore(repo)
                with journal_lock(repo):
                    pass
            except StateDirUnsafe:
                pass
    finally:
        swapper.finish()
    assert watch.events() == b"" and list(outside.iterdir()) == []
