"""Putting watched paths back as a snapshot held them, never through a link.

Every step goes through descriptors
(:class:`~ljtui.core.edits.folders.RepoFolders`): the root is opened, then
each folder on the way with ``O_DIRECTORY | O_NOFOLLOW``; a file is written to a new
temporary name in its folder (``O_EXCL | O_NOFOLLOW``), synced, given its
mode and renamed over the path, so a link a command put anywhere on the way
can never redirect a byte. What was added is removed first (deepest first;
a folder with what is below it), then what was there is put back
(shallowest first). A file kept only as its SHA-256 (too large) or a
special file cannot be put back: that is reported, never guessed.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import uuid
from pathlib import Path
from typing import Callable

from ljtui.core.edits.durable import write_durable
from ljtui.core.edits.folders import FOLDER_FLAGS, FolderRefused, RepoFolders
from ljtui.core.gitguard.changes import Change
from ljtui.core.gitguard.snapshot import FILE, FOLDER, LINK, Entry

TEMP_PREFIX = ".ljtui-restore-"


def revert(root: Path, changes: list[Change]) -> list[str]:
    """Put every path of ``changes`` back to its ``before`` state; returns what could not be put back."""
    problems: list[str] = []
    try:
        with RepoFolders(root) as folders:
            for change in sorted(changes, key=lambda c: c.path.count("/"), reverse=True):
                if change.after is not None and _must_remove(change.before, change.after):
                    _step(folders, problems, change.path, _remove)
            for change in sorted(changes, key=lambda c: c.path.count("/")):
                if change.before is not None:
                    _step(folders, problems, change.path, functools.partial(_put, before=change.before))
    except OSError as exc:  # the root itself cannot be opened
        return [f"cannot open {root}: {exc.strerror or exc}"]
    return problems


def _must_remove(before: Entry | None, after: Entry) -> bool:
    """Whether what is there now must go before ``before`` can be put back (a file is replaced by a rename)."""
    return before is None or before.kind != after.kind or before.kind not in (FILE, FOLDER, LINK)


class _CannotRestore(Exception):
    """The snapshot does not hold what it takes to put the path back."""


def _step(folders: RepoFolders, problems: list[str], rel: str, action: Callable[[int, str], None]) -> None:
    """Run ``action`` on ``rel`` through the descriptor of its folder; a failure is noted, never raised."""
    try:
        parent, name = folders.place(rel)
        action(parent, name)
    except FolderRefused as exc:
        problems.append(f"{rel}: {exc}")
    except OSError as exc:
        problems.append(f"{rel}: {exc.strerror or exc}")
    except _CannotRestore as exc:
        problems.append(f"{rel}: {exc}")


def _remove(parent: int, name: str) -> None:
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=parent)
    else:
        os.unlink(name, dir_fd=parent)


def _put(parent: int, name: str, *, before: Entry) -> None:
    if before.kind == FOLDER:
        try:
            os.mkdir(name, before.mode, dir_fd=parent)
        except FileExistsError:
            pass
        fd = os.open(name, FOLDER_FLAGS, dir_fd=parent)
        try:
            os.fchmod(fd, before.mode)
        finally:
            os.close(fd)
    elif before.kind == LINK:
        temp = _temp_name()
        os.symlink(before.target, temp, dir_fd=parent)
        os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
    elif before.kind == FILE:
        if before.data is None:
            raise _CannotRestore(f"larger than what is kept ({before.size} bytes): restore it yourself")
        _write(parent, name, before.data, before.mode)
    else:
        raise _CannotRestore("it was a special file (a FIFO, a socket or a device): not put back")


def _write(parent: int, name: str, data: bytes, mode: int) -> None:
    temp = _temp_name()
    try:
        write_durable(temp, data, mode, dir_fd=parent)
        os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=parent)
        except OSError:
            pass
        raise


def _temp_name() -> str:
    return f"{TEMP_PREFIX}{uuid.uuid4().hex[:12]}"
