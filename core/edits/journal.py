"""The on-disk transaction journal under ``.agent/journal/``.

Layout::

    .agent/journal/.lock            flock held while a transaction runs
    .agent/journal/tx-<id>/         an unfinished transaction
        blobs/<n>                   pre-apply bytes (hard link, else a copy)
        manifest.json               written last, before any target changes
    .agent/journal/last-<id>/       committed transactions, kept for undo and rewind (the newest
                                    groups, see :mod:`.journal_kept`; older ones are pruned)
    .agent/journal/done-*/          finished, being deleted (ignored)
    .agent/journal/quarantine-*/    refused as malformed or unsafe: kept, never acted on

A ``tx-`` directory without ``manifest.json`` never touched a target. One
with a manifest is rolled back by :mod:`ljtui.core.edits.restore`.

The journal lives in the repository, which is untrusted: the folders are
reached through :func:`ljtui.core.statedir.state_dir` (never through a
symlink), every entry is examined with ``lstat``, and every manifest and
snapshot is checked before it is believed. What fails is quarantined.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ljtui.core.edits.durable import PRIVATE_MODE, fsync_dir, new_file_mode, write_durable
from ljtui.core.edits.manifest import (BLOBS, MANIFEST, MANIFEST_VERSION, TEMP_PREFIX, TEMP_SUFFIX, FileRecord,
                                       Manifest, ManifestInvalid, read_manifest, temp_name)
from ljtui.core.statedir import AGENT_DIR, StateDirUnsafe, open_state_file, state_dir
from ljtui.core.statedir import RUNTIME_STATE

__all__ = [
    "AGENT_DIR", "BLOBS", "MANIFEST", "MANIFEST_VERSION", "TEMP_PREFIX", "TEMP_SUFFIX", "FileRecord", "Manifest",
    "ManifestInvalid", "StateDirUnsafe", "fsync_dir", "new_file_mode", "temp_name", "write_durable",
]

JOURNAL_DIR = "journal"
LOCK_NAME = ".lock"
TX_PREFIX = "tx-"
LAST_PREFIX = "last-"
DONE_PREFIX = "done-"
QUARANTINE_PREFIX = "quarantine-"
TEMP_GLOB = f"{TEMP_PREFIX}*{TEMP_SUFFIX}"
"""Matches every temp file a transaction writes next to its targets."""
GITIGNORE = ".gitignore"
GITIGNORED = RUNTIME_STATE
"""What ljtui creates under ``.agent/`` for itself, kept out of git (this list's own file included),
so the user's ``git status`` is left as it was; playbooks and gates, meant to be shared, are not listed."""
MAX_GITIGNORE_BYTES = 1024 * 1024
"""Only this much of ``.agent/.gitignore`` is read when completing it."""
MAX_QUARANTINE_NAMES = 1000
"""Distinct ``quarantine-<name>[-k]`` names tried before giving up."""
READ_CHUNK = 1024 * 1024


def journal_dir(root: Path) -> Path:
    """``<root>/.agent/journal`` (not checked: use :func:`open_journal` before touching it)."""
    return root / AGENT_DIR / JOURNAL_DIR


def open_journal(root: Path, *, create: bool) -> Path:
    """``<root>/.agent/journal``, refusing a symlinked or non-folder ``.agent`` or ``journal``.

    Raises:
        StateDirUnsafe: ``.agent`` or ``.agent/journal`` is a symlink or not a folder.
    """
    return state_dir(root, JOURNAL_DIR, create=create)


def sha256(data: bytes | None) -> str | None:
    """Hex digest of ``data``, ``None`` for a missing file."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def ensure_agent_gitignore(root: Path) -> None:
    """Create or complete ``.agent/.gitignore`` so private state stays out of git.

    Raises:
        StateDirUnsafe: ``.agent`` or its ``.gitignore`` is a symlink or not what it should be.
    """
    fd = open_state_file(root, GITIGNORE, flags=os.O_RDWR | os.O_CREAT | os.O_APPEND, mode=new_file_mode())
    try:
        existing = os.pread(fd, MAX_GITIGNORE_BYTES, 0).decode("utf-8", "replace")
        present = {line.strip() for line in existing.splitlines()}
        missing = [entry for entry in GITIGNORED if entry not in present]
        if missing:
            prefix = "" if not existing or existing.endswith("\n") else "\n"
            os.write(fd, (prefix + "".join(f"{m}\n" for m in missing)).encode("utf-8"))
    finally:
        os.close(fd)


class JournalBusy(Exception):
    """Another process holds the journal lock; ``holder`` is its pid when it said so."""

    def __init__(self, journal: str, holder: int | None = None) -> None:
        super().__init__(journal)
        self.holder = holder

    def message(self, doing: str = "applying in this repository", then: str = "try again when it finishes") -> str:
        """What the user reads: which process, and what to do."""
        who = f"another ljtui process (pid {self.holder})" if self.holder else "another ljtui process"
        return f"{who} is {doing}; {then}"


MAX_HOLDER_BYTES = 32
"""Bytes of the lock file read back to say which process holds it."""


@contextmanager
def journal_lock(root: Path, *, queued: bool = True) -> Iterator[None]:
    """Hold the journal's exclusive lock (released by the kernel if we die).

    Writers of this process wait their turn first, in order
    (:mod:`ljtui.core.edits.write_queue`); ``queued=False`` when the caller
    already holds the turn. The lock file then says which process holds it.

    Raises:
        JournalBusy: When another process holds it.
        WriteQueueTimeout: The writers of this process before this one took too long.
        StateDirUnsafe: The journal or its lock file is a symlink.
    """
    from ljtui.core.edits.write_queue import turn

    if queued:
        with turn(root):
            with journal_lock(root, queued=False):
                yield
        return
    fd = open_state_file(root, JOURNAL_DIR, LOCK_NAME, flags=os.O_RDWR | os.O_CREAT, mode=PRIVATE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise JournalBusy(str(journal_dir(root)), _holder(fd)) from exc
        _say_holder(fd)
        yield
    finally:
        os.close(fd)


def _say_holder(fd: int) -> None:
    """Write this process's pid in the lock file (best effort: the lock is what counts)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass


def _holder(fd: int) -> int | None:
    """The pid the lock file names, when it names one that is alive."""
    try:
        text = os.pread(fd, MAX_HOLDER_BYTES, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.isdigit() or not 0 < int(text) < 2**22:
        return None
    pid = int(text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return pid


def entry_problem(entry: Path) -> str | None:
    """Why a journal entry is not a real folder (``None`` when it is one)."""
    try:
        st = os.lstat(entry)
    except OSError as exc:
        return f"cannot be examined ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link, not a journal folder"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    return None


def load(entry: Path) -> Manifest:
    """The manifest of a journal folder, checked (the folder itself included).

    Raises:
        ManifestInvalid: The folder or its manifest is not what ljtui writes.
    """
    problem = entry_problem(entry)
    if problem is not None:
        raise ManifestInvalid(problem)
    return read_manifest(entry)


@dataclass(frozen=True)
class Blob:
    """A snapshot read back and checked against its recorded digest.

    Attributes:
        path: Where it is (inside ``<journal folder>/blobs``).
        data: Its bytes.
        nlink: Its link count (1 when no other name shares the inode).
    """

    path: Path
    data: bytes
    nlink: int


def read_blob(tx_dir: Path, record: FileRecord) -> Blob:
    """The snapshot of ``record``, read without following symlinks and hash-checked.

    Raises:
        ManifestInvalid: It is missing, a link, not a regular file, or not the bytes ``before_sha256`` names.
    """
    what = f"{record.blob} (the snapshot of {record.path})"
    if record.blob is None:
        raise ManifestInvalid(f"{record.path} has no snapshot")
    name = record.blob.removeprefix(BLOBS + "/")
    try:
        dir_fd = os.open(tx_dir / BLOBS, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise ManifestInvalid(f"{BLOBS}/ cannot be opened as a real folder ({exc.strerror})") from exc
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        raise ManifestInvalid(f"{what} cannot be opened ({exc.strerror})") from exc
    finally:
        os.close(dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ManifestInvalid(f"{what} is not a regular file")
        data = read_fd(fd)
    finally:
        os.close(fd)
    if sha256(data) != record.before_sha256:
        raise ManifestInvalid(f"{what} does not hold the bytes its before_sha256 names (missing or damaged)")
    return Blob(tx_dir / record.blob, data, st.st_nlink)


def read_fd(fd: int) -> bytes:
    """Everything left to read from ``fd``."""
    chunks = []
    while chunk := os.read(fd, READ_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass(frozen=True)
class Quarantined:
    """A journal folder moved aside, never acted on.

    Attributes:
        name: Its name before, e.g. ``tx-1a2b``.
        moved_to: Where it is now, repo-relative.
        reason: What was wrong with it.
    """

    name: str
    moved_to: str
    reason: str

    def line(self) -> str:
        """One line for the user: which journal, what is wrong, where it went."""
        return f"journal {self.name} is refused: {self.reason}; moved to {self.moved_to}, nothing was written"


def quarantine(entry: Path, reason: str) -> Quarantined:
    """Rename a refused journal entry (a folder, link or file) to ``quarantine-<name>``; never delete it.

    Raises:
        OSError: It could not be renamed.
    """
    directory = entry.parent
    for k in range(MAX_QUARANTINE_NAMES):
        target = directory / (f"{QUARANTINE_PREFIX}{entry.name}" + (f"-{k}" if k else ""))
        if not os.path.lexists(target):
            os.rename(entry, target)
            fsync_dir(directory)
            return Quarantined(entry.name, f"{AGENT_DIR}/{JOURNAL_DIR}/{target.name}", reason)
    raise FileExistsError(f"no free quarantine name for {entry.name} in {directory}")


def discard(directory: Path) -> None:
    """Remove a journal directory; a crash part-way leaves only a ``done-`` directory.

    The directory is first renamed (atomic, made durable), so a half-deleted
    transaction is never mistaken for an unfinished one.
    """
    if not os.path.lexists(directory):
        return
    retired = directory.with_name(DONE_PREFIX + directory.name)
    os.replace(directory, retired)
    fsync_dir(directory.parent)
    _remove(retired)


def _remove(path: Path) -> None:
    """Delete a folder tree, or a link or file in its place (links are never followed)."""
    if entry_problem(path) is None:
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def sweep_retired(root: Path) -> None:
    """Finish removing ``done-`` directories a crash left behind."""
    directory = open_journal(root, create=False)
    for retired in directory.glob(DONE_PREFIX + "*"):
        _remove(retired)


def _entries(root: Path, prefix: str) -> list[Path]:
    directory = open_journal(root, create=False)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.name.startswith(prefix))


def pending(root: Path) -> list[Path]:
    """Unfinished transaction entries (``tx-*``, whatever their type), oldest name first.

    Raises:
        StateDirUnsafe: ``.agent`` or ``.agent/journal`` is a symlink or not a folder.
    """
    return _entries(root, TX_PREFIX)


def scan_kept(root: Path) -> tuple[list[tuple[Path, Manifest]], list[tuple[Path, str]]]:
    """Committed snapshots (``last-*``): the valid ones newest first, and the refused ones with why.

    Raises:
        StateDirUnsafe: ``.agent`` or ``.agent/journal`` is a symlink or not a folder.
    """
    valid: list[tuple[Path, Manifest]] = []
    refused: list[tuple[Path, str]] = []
    for entry in _entries(root, LAST_PREFIX):
        try:
            valid.append((entry, load(entry)))
        except ManifestInvalid as exc:
            refused.append((entry, str(exc)))
    valid.sort(key=lambda item: item[1].order(), reverse=True)
    return valid, refused


def next_sequence(root: Path) -> int:
    """The sequence number of the next transaction: one more than the highest in the journal (``tx-`` and
    ``last-`` folders), 1 when none has one. Call it with the journal lock held, so no two transactions get
    the same number.

    Raises:
        StateDirUnsafe: ``.agent`` or ``.agent/journal`` is a symlink or not a folder.
    """
    highest = 0
    for entry in [*_entries(root, TX_PREFIX), *_entries(root, LAST_PREFIX)]:
        try:
            sequence = load(entry).sequence
        except ManifestInvalid:
            continue  # unfinished without a manifest yet, or refused: recovery and undo deal with those
        highest = max(highest, sequence or 0)
    return highest + 1


def kept(root: Path) -> list[Path]:
    """Valid committed snapshots kept for undo, newest first (none when the journal is unsafe)."""
    try:
        return [entry for entry, _ in scan_kept(root)[0]]
    except (StateDirUnsafe, OSError):
        return []
