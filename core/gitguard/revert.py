"""Putting watched paths back as a snapshot held them, never through a link.

Every step goes through descriptors: the root is opened, then each folder
on the way with ``O_DIRECTORY | O_NOFOLLOW``; a file is written to a new
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

from ljtui.core.gitguard.changes import Change
from ljtui.core.gitguard.snapshot import DIR_FLAGS, FILE, FOLDER, LINK, Entry

TEMP_PREFIX = ".ljtui-restore-"
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def revert(root: Path, changes: list[Change]) -> list[str]:
    """Put every path of ``changes`` back to its ``before`` state; returns what could not be put back."""
    try:
        root_fd = os.open(root, DIR_FLAGS)
    except OSError as exc:
        return [f"cannot open {root}: {exc.strerror or exc}"]
    restorer = _Restorer(root_fd)
    try:
        for change in sorted(changes, key=lambda c: c.path.count("/"), reverse=True):
            if change.after is not None and _must_remove(change.before, change.after):
                restorer.step(change.path, _remove)
        for change in sorted(changes, key=lambda c: c.path.count("/")):
            if change.before is not None:
                restorer.step(change.path, functools.partial(_put, before=change.before))
    finally:
        os.close(root_fd)
    return restorer.problems


def _must_remove(before: Entry | None, after: Entry) -> bool:
    """Whether what is there now must go before ``before`` can be put back (a file is replaced by a rename)."""
    return before is None or before.kind != after.kind or before.kind not in (FILE, FOLDER, LINK)


class _CannotRestore(Exception):
    """The snapshot does not hold what it takes to put the path back."""


class _Restorer:
    """Runs one step per path below the root's descriptor, and collects what failed."""

    def __init__(self, root_fd: int) -> None:
        self.root_fd = root_fd
        self.problems: list[str] = []

    def step(self, rel: str, action: Callable[[int, str], None]) -> None:
        *folders, name = rel.split("/")
        try:
            parent = self._folder(folders)
        except OSError as exc:
            self.problems.append(f"{rel}: {exc.strerror or exc}")
            return
        try:
            action(parent, name)
        except OSError as exc:
            self.problems.append(f"{rel}: {exc.strerror or exc}")
        except _CannotRestore as exc:
            self.problems.append(f"{rel}: {exc}")
        finally:
            if parent != self.root_fd:
                os.close(parent)

    def _folder(self, folders: list[str]) -> int:
        fd = self.root_fd
        for name in folders:
            try:
                next_fd = os.open(name, DIR_FLAGS, dir_fd=fd)
            finally:
                if fd != self.root_fd:
                    os.close(fd)
            fd = next_fd
        return fd


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
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
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
    fd = os.open(temp, WRITE_FLAGS, 0o600, dir_fd=parent)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temp, dir_fd=parent)
        raise
    os.close(fd)
    os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)


def _temp_name() -> str:
    return f"{TEMP_PREFIX}{uuid.uuid4().hex[:12]}"
