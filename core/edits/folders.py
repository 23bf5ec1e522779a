"""The repository's folders, reached from its root one name at a time, never through a symbolic link.

Checking a path (``realpath``) and then writing by that path leaves a window:
a process that may write in the repository could swap a folder for a
symlink in between, and the write would follow the link out of the
repository. :class:`RepoFolders` closes it. Every folder is opened from the
root's descriptor one component at a time with ``O_DIRECTORY | O_NOFOLLOW``,
and every file is then created, read, renamed and removed relative to the
descriptor of its folder (``dir_fd=``), its own name never followed either.
So:

* a folder that is a symlink (or not a folder) when it is reached is
  refused (:class:`FolderRefused`), whatever the link points at;
* a folder swapped after it was reached does not redirect anything: the
  descriptor names the folder that was checked, not what sits at its path
  now; :meth:`RepoFolders.moved` tells whether the path still leads to it, so
  a writer can refuse and roll back a write whose folder was moved away;
* each folder's identity (device and inode) is recorded the first time it
  is reached: reaching it again (after its descriptor was closed to stay
  under the open-file limit) must find the same folder, or it is refused.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import OrderedDict
from pathlib import Path

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""How every folder below the root is opened: a symlink in its place fails the open."""
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""How a file is opened for reading: never through a final symlink, never waiting on a FIFO."""
FOLDER_MODE = 0o777
"""Mode asked for a created folder (the process umask applies)."""
MAX_HELD = 256
"""Folder descriptors kept open at once; past it the least recently used is closed (and re-checked when needed)."""
READ_CHUNK = 1024 * 1024
"""Bytes asked of the kernel per read of a file."""

Identity = tuple[int, int]
"""A folder's device and inode."""


class FolderRefused(OSError):
    """A folder on the way is a symbolic link, not a folder, or no longer the folder first reached there.

    Attributes:
        folder: Its repo-relative path.
        problem: What it is now, e.g. ``is a symbolic link``.
    """

    def __init__(self, folder: str, problem: str) -> None:
        super().__init__(errno.ENOTDIR, f"{folder} {problem}; nothing is written through it")
        self.folder = folder
        self.problem = problem

    def __str__(self) -> str:
        return str(self.strerror)


def parts_of(path: str) -> list[str]:
    """The components of a repo-relative POSIX path (``""`` is the root: none)."""
    return [p for p in path.split("/") if p and p != "."]


def split(path: str) -> tuple[str, str]:
    """``(folder, name)`` of a repo-relative file path; the folder is ``""`` at the root."""
    folder, _, name = path.rpartition("/")
    return folder, name


class RepoFolders:
    """Descriptors of a repository's folders, each reached from the root without following a link.

    A descriptor returned by :meth:`fd` stays open until this object is closed
    or at least :data:`MAX_HELD` - 1 other folders were asked for since: use it
    right away, never keep it.
    """

    def __init__(self, root: Path, max_held: int = MAX_HELD) -> None:
        self.root = root
        self._root_fd: int | None = None
        self._held: OrderedDict[str, int] = OrderedDict()
        self._seen: dict[str, Identity] = {}
        self._max_held = max(2, max_held)

    def __enter__(self) -> RepoFolders:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every descriptor held."""
        for fd in self._held.values():
            os.close(fd)
        self._held.clear()
        if self._root_fd is not None:
            os.close(self._root_fd)
            self._root_fd = None

    def root_fd(self) -> int:
        """The root's descriptor (the root itself is the user's choice, so it is opened as named)."""
        if self._root_fd is None:
            self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return self._root_fd

    def fd(self, folder: str) -> int:
        """The descriptor of ``folder`` (repo-relative; ``""`` is the root).

        Raises:
            FolderRefused: A folder on the way is a symlink, not a folder, or not the one first reached there.
            FileNotFoundError: A folder on the way does not exist.
        """
        parts = parts_of(folder)
        key = "/".join(parts)
        if not parts:
            return self.root_fd()
        held = self._held.get(key)
        if held is not None:
            self._held.move_to_end(key)
            return held
        start = len(parts) - 1
        while start > 0 and "/".join(parts[:start]) not in self._held:
            start -= 1
        current = self._held["/".join(parts[:start])] if start else self.root_fd()
        for i in range(start, len(parts)):
            rel = "/".join(parts[:i + 1])
            try:
                child = self._open(current, parts[i], rel)
            finally:
                if i > start:
                    os.close(current)  # a folder on the way, not asked for: not kept
            current = child
        self._keep(key, current)
        return current

    def missing(self, folder: str) -> list[str]:
        """The folders of ``folder`` (itself and those holding it) that do not exist, outermost first.

        Raises:
            FolderRefused: An existing folder on the way is a symlink or not a folder.
        """
        parts = parts_of(folder)
        for i in range(len(parts), -1, -1):
            try:
                self.fd("/".join(parts[:i]))
            except FileNotFoundError:
                continue
            return ["/".join(parts[:j]) for j in range(i + 1, len(parts) + 1)]
        return []

    def make(self, folder: str) -> list[str]:
        """Create the missing folders of ``folder``, each inside the one before it; return those created.

        Raises:
            FolderRefused: A folder on the way is (or became) a symlink or not a folder.
            OSError: A folder could not be created.
        """
        created = []
        for rel in self.missing(folder):
            parent, name = split(rel)
            try:
                os.mkdir(name, FOLDER_MODE, dir_fd=self.fd(parent))
                created.append(rel)
            except FileExistsError:
                pass
            self.fd(rel)
        return created

    def remove(self, folder: str) -> None:
        """Remove the empty folder ``folder`` (never through a link: a link in its place is left alone).

        Raises:
            OSError: It is not empty, not a folder, or cannot be removed.
        """
        parent, name = split("/".join(parts_of(folder)))
        os.rmdir(name, dir_fd=self.fd(parent))
        key = "/".join(parts_of(folder))
        held = self._held.pop(key, None)
        if held is not None:
            os.close(held)
        self._seen.pop(key, None)

    def place(self, path: str) -> tuple[int, str]:
        """``(descriptor of the folder holding path, its last name)``; raises as :meth:`fd`."""
        folder, name = split(path)
        return self.fd(folder), name

    def lstat(self, path: str) -> os.stat_result | None:
        """``lstat`` of ``path`` through its folder (``None``: it, or a folder holding it, does not exist)."""
        try:
            fd, name = self.place(path)
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_file(self, path: str) -> int | None:
        """``path`` opened for reading through its folder, never through a symlink (``None``: it does not exist).

        Raises:
            FolderRefused: A folder on the way is refused.
            OSError: It cannot be opened (``ELOOP``: it is a symlink).
        """
        try:
            fd, name = self.place(path)
            return os.open(name, READ_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            return None

    def read(self, path: str) -> bytes | None:
        """The bytes of the regular file ``path`` (``None``: it does not exist).

        Raises:
            FolderRefused: A folder on the way is refused.
            IsADirectoryError: It is not a regular file.
            OSError: It cannot be read (``ELOOP``: it is a symlink).
        """
        fd = self.open_file(path)
        if fd is None:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise IsADirectoryError(errno.EISDIR, f"{path} is not a regular file")
            return read_fd(fd)
        finally:
            os.close(fd)

    def moved(self, folder: str) -> bool:
        """Whether ``folder``'s path no longer leads, without a link, to the folder first reached there."""
        fd = self.root_fd()
        parts = parts_of(folder)
        opened: list[int] = []
        try:
            for i, name in enumerate(parts):
                rel = "/".join(parts[:i + 1])
                fd = os.open(name, FOLDER_FLAGS, dir_fd=fd)
                opened.append(fd)
                if self._seen.get(rel) != _identity(fd):
                    return True
        except OSError:
            return True
        finally:
            for held in opened:
                os.close(held)
        return False

    def fsync(self, folder: str) -> None:
        """Make ``folder``'s entries (creations, renames, removals) durable."""
        os.fsync(self.fd(folder))

    def _open(self, parent: int, name: str, rel: str) -> int:
        """Open the folder ``name`` in ``parent`` (``rel`` from the root), checked against what was first seen."""
        try:
            fd = os.open(name, FOLDER_FLAGS, dir_fd=parent)
        except OSError as exc:
            if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                raise
            raise FolderRefused(rel, _what_is(parent, name)) from None
        seen, now = self._seen.get(rel), _identity(fd)
        if seen is not None and seen != now:
            os.close(fd)
            raise FolderRefused(rel, "was moved or replaced since it was first reached")
        self._seen[rel] = now
        return fd

    def _keep(self, key: str, fd: int) -> None:
        self._held[key] = fd
        while len(self._held) > self._max_held:
            _, oldest = self._held.popitem(last=False)
            os.close(oldest)


def _identity(fd: int) -> Identity:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _what_is(parent: int, name: str) -> str:
    """What ``name`` in ``parent`` is, when it could not be opened as a folder without following a link."""
    try:
        return refused_because(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return "is not a folder"


def refused_because(mode: int) -> str:
    """Why a folder on the way, whose ``lstat`` mode is ``mode`` just after it could not be opened, was refused."""
    if stat.S_ISLNK(mode):
        return "is a symbolic link"
    if stat.S_ISDIR(mode):  # it was something else a moment ago
        return "was swapped while it was opened (something else than a folder was in its place)"
    return "is not a folder"


def read_fd(fd: int) -> bytes:
    """Everything left to read from ``fd``."""
    chunks = []
    while chunk := os.read(fd, READ_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)
