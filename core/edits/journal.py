"""The on-disk transaction journal under ``.agent/journal/`` and durable file helpers.

Layout::

    .agent/journal/.lock            flock held while a transaction runs
    .agent/journal/tx-<id>/         an unfinished transaction
        blobs/<n>                   pre-apply bytes (hard link, else a copy)
        manifest.json               written last, before any target changes
    .agent/journal/last-<id>/       the last committed transaction, kept for undo
    .agent/journal/done-*/          finished, being deleted (ignored)

A ``tx-`` directory without ``manifest.json`` never touched a target. One
with a manifest is rolled back by :func:`restore`: every file returns to the
bytes its manifest hashed (created files are removed). Restoring is
idempotent, so a crash during recovery is recovered by running it again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

AGENT_DIR = ".agent"
JOURNAL_DIR = "journal"
LOCK_NAME = ".lock"
TX_PREFIX = "tx-"
LAST_PREFIX = "last-"
DONE_PREFIX = "done-"
MANIFEST = "manifest.json"
BLOBS = "blobs"
MANIFEST_VERSION = 1
TEMP_SUFFIX = ".ljtui-tmp"
GITIGNORED = ("journal/", "sessions/", "workspace/")
"""``.agent/`` sub-directories kept out of git; playbooks and gates stay shared."""
PRIVATE_MODE = 0o600
DEFAULT_UMASK = 0o022


def journal_dir(root: Path) -> Path:
    """``<root>/.agent/journal``."""
    return root / AGENT_DIR / JOURNAL_DIR


def sha256(data: bytes | None) -> str | None:
    """Hex digest of ``data``, ``None`` for a missing file."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (creations, renames, removals) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durable(path: Path, data: bytes, mode: int = PRIVATE_MODE) -> None:
    """Create ``path`` exclusively with ``data`` and ``mode``, and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def new_file_mode() -> int:
    """Mode of a newly created file under the process umask."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o666 & ~DEFAULT_UMASK


def ensure_agent_gitignore(root: Path) -> None:
    """Create or complete ``.agent/.gitignore`` so private state stays out of git."""
    path = root / AGENT_DIR / ".gitignore"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = ""
    present = {line.strip() for line in existing.splitlines()}
    missing = [entry for entry in GITIGNORED if entry not in present]
    if missing:
        prefix = "" if not existing or existing.endswith("\n") else "\n"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(prefix + "".join(f"{m}\n" for m in missing))


class JournalBusy(Exception):
    """Another process holds the journal lock."""


@contextmanager
def journal_lock(root: Path) -> Iterator[None]:
    """Hold the journal's exclusive lock (released by the kernel if we die).

    Raises:
        JournalBusy: When another process holds it.
    """
    directory = journal_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, PRIVATE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise JournalBusy(str(directory)) from exc
        yield
    finally:
        os.close(fd)


@dataclass
class FileRecord:
    """One target in a manifest (paths repo-relative, POSIX)."""

    path: str
    existed: bool
    mode: int | None
    before_sha256: str | None
    after_sha256: str | None
    blob: str | None
    temp: str
    created_dirs: list[str] = field(default_factory=list)


@dataclass
class Manifest:
    """What a transaction is about to do, enough to undo it after a crash."""

    id: str
    created: float
    kind: str
    files: list[FileRecord]
    entries: list[str] = field(default_factory=list)
    group: str = ""
    """Transactions of one plan (its chunks) share a group; undo reverts the whole group."""
    version: int = MANIFEST_VERSION

    def to_json(self) -> bytes:
        """Serialised form."""
        data = {"version": self.version, "id": self.id, "group": self.group or self.id, "created": self.created,
                "kind": self.kind, "entries": self.entries, "files": [vars(f) for f in self.files]}
        return json.dumps(data, indent=1).encode("utf-8")

    @classmethod
    def load(cls, directory: Path) -> Manifest:
        """Read ``directory/manifest.json``."""
        data: dict[str, Any] = json.loads((directory / MANIFEST).read_bytes())
        files = [FileRecord(**f) for f in data["files"]]
        return cls(data["id"], data["created"], data["kind"], files, data.get("entries", []),
                   data.get("group") or data["id"], data["version"])

    def save(self, directory: Path) -> None:
        """Write the manifest durably (temp + fsync + rename + dir fsync)."""
        temp = directory / (MANIFEST + TEMP_SUFFIX)
        write_durable(temp, self.to_json())
        os.replace(temp, directory / MANIFEST)
        fsync_dir(directory)


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def restore(root: Path, tx_dir: Path, manifest: Manifest) -> list[tuple[str, str]]:
    """Return every file of ``manifest`` to its pre-transaction bytes.

    Returns:
        ``(path, action)`` pairs; action is ``restored``, ``removed`` or ``unchanged``.

    Raises:
        OSError: When a file cannot be restored (the journal is then kept).
    """
    actions = []
    touched_dirs: set[Path] = set()
    for record in reversed(manifest.files):
        real = root / record.path
        touched_dirs.add(real.parent)
        temp = root / record.temp
        if temp.is_file() and not temp.is_symlink():
            temp.unlink()
        actions.append((record.path, _restore_one(root, tx_dir, record, real)))
        for rel in reversed(record.created_dirs):
            try:
                os.rmdir(root / rel)
                touched_dirs.add((root / rel).parent)
            except OSError:
                pass
    for directory in touched_dirs:
        if directory.is_dir():
            fsync_dir(directory)
    return actions


def _restore_one(root: Path, tx_dir: Path, record: FileRecord, real: Path) -> str:
    current = _read(real)
    if not record.existed:
        if current is None:
            return "unchanged"
        real.unlink()
        return "removed"
    if current is not None and sha256(current) == record.before_sha256:
        if record.mode is not None:
            os.chmod(real, record.mode)
        return "unchanged"
    blob = tx_dir / record.blob if record.blob else None
    data = _read(blob) if blob else None
    if blob is None or sha256(data) != record.before_sha256:
        raise OSError(f"cannot restore {record.path}: its snapshot in {tx_dir} is missing or damaged")
    if record.mode is not None:
        os.chmod(blob, record.mode)
    os.replace(blob, real)
    return "restored"


def discard(directory: Path) -> None:
    """Remove a journal directory; a crash part-way leaves only a ``done-`` directory.

    The directory is first renamed (atomic, made durable), so a half-deleted
    transaction is never mistaken for an unfinished one.
    """
    if not directory.exists():
        return
    retired = directory.with_name(DONE_PREFIX + directory.name)
    os.replace(directory, retired)
    fsync_dir(directory.parent)
    shutil.rmtree(retired, ignore_errors=True)


def sweep_retired(root: Path) -> None:
    """Finish removing ``done-`` directories a crash left behind."""
    directory = journal_dir(root)
    for retired in directory.glob(DONE_PREFIX + "*"):
        shutil.rmtree(retired, ignore_errors=True)


def pending(root: Path) -> list[Path]:
    """Unfinished transaction directories, oldest name first."""
    directory = journal_dir(root)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.is_dir() and p.name.startswith(TX_PREFIX))


def kept(root: Path) -> list[Path]:
    """Committed snapshots kept for undo, newest first."""
    directory = journal_dir(root)
    if not directory.is_dir():
        return []
    found = [p for p in directory.iterdir() if p.is_dir() and p.name.startswith(LAST_PREFIX) and (p / MANIFEST).is_file()]

    def created(p: Path) -> tuple[float, str]:
        try:
            return (Manifest.load(p).created, p.name)
        except (OSError, ValueError, KeyError, TypeError):
            return (0.0, p.name)

    return sorted(found, key=created, reverse=True)
