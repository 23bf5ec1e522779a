"""What the watched places hold at one moment: every file's bytes and mode, every link's target.

Everything is read through descriptors of the repository's folders, each
opened from the root one name at a time without following a link
(:class:`~ljtui.core.edits.folders.RepoFolders`): a link on the way is
recorded as a link, and what it points to is not read. A file is
kept whole up to :data:`MAX_KEPT_BYTES` (so it can be put back and shown);
a larger one is kept as its size and SHA-256. A folder holds at most
:data:`MAX_ENTRIES` entries in a snapshot; past that the snapshot says so.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.edits.folders import READ_FLAGS, RepoFolders
from ljtui.core.gitguard.places import Watched

MAX_KEPT_BYTES = 1024 * 1024
"""A file larger than this is compared by its SHA-256 and cannot be put back."""
MAX_ENTRIES = 5000
"""Most entries read below one watched folder."""
READ_CHUNK = 65536
FILE, LINK, FOLDER, OTHER = "file", "link", "folder", "other"


@dataclass(frozen=True)
class Entry:
    """One path's state.

    Attributes:
        kind: :data:`FILE`, :data:`LINK`, :data:`FOLDER` or :data:`OTHER` (a FIFO, a device …).
        mode: the permission bits.
        data: a file's bytes (``None`` when larger than :data:`MAX_KEPT_BYTES`, or not a file).
        digest: a file's SHA-256 (hex).
        size: a file's size.
        target: a link's target.
    """

    kind: str
    mode: int = 0
    data: bytes | None = None
    digest: str = ""
    size: int = 0
    target: str = ""


@dataclass(frozen=True)
class Snapshot:
    """The watched places at one moment.

    Attributes:
        entries: state by real path relative to the root (absent: the path does not exist).
        crowded: watched folders with more than :data:`MAX_ENTRIES` entries (the rest was not read).
    """

    entries: dict[str, Entry] = field(default_factory=dict)
    crowded: tuple[str, ...] = ()


def take(root: Path, watched: Watched) -> Snapshot:
    """Read every place of ``watched`` below ``root``."""
    entries: dict[str, Entry] = {}
    crowded: list[str] = []
    try:
        with RepoFolders(root) as folders:
            for rel in watched.files:
                entry = _read_path(folders, rel)
                if entry is not None:
                    entries[rel] = entry
            for rel in watched.trees:
                entry = _read_path(folders, rel)
                if entry is None:
                    continue
                entries[rel] = entry
                if entry.kind == FOLDER and not _read_tree(folders, rel, entries):
                    crowded.append(rel)
    except OSError:  # the root itself cannot be opened
        return Snapshot()
    return Snapshot(entries, tuple(crowded))


def _read_path(folders: RepoFolders, rel: str) -> Entry | None:
    """The entry at ``rel`` (``None``: it does not exist, or a folder on the way is not a real folder)."""
    try:
        parent, name = folders.place(rel)
    except OSError:
        return None
    return _entry(parent, name)


def _entry(parent: int, name: str) -> Entry | None:
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return None
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        try:
            return Entry(LINK, mode, target=os.readlink(name, dir_fd=parent))
        except OSError:
            return Entry(LINK, mode)
    if stat.S_ISDIR(st.st_mode):
        return Entry(FOLDER, mode)
    if not stat.S_ISREG(st.st_mode):
        return Entry(OTHER, mode)
    return _file(parent, name, mode)


def _file(parent: int, name: str, mode: int) -> Entry:
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=parent)
    except OSError:
        return Entry(OTHER, mode)
    digest = hashlib.sha256()
    kept = bytearray()
    size = 0
    try:
        while chunk := os.read(fd, READ_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            if size <= MAX_KEPT_BYTES:
                kept += chunk
    except OSError:
        return Entry(OTHER, mode)
    finally:
        os.close(fd)
    return Entry(FILE, mode, bytes(kept) if size <= MAX_KEPT_BYTES else None, digest.hexdigest(), size)


def _read_tree(folders: RepoFolders, rel: str, entries: dict[str, Entry]) -> bool:
    """Add every entry below the folder ``rel``; ``False`` when there were more than :data:`MAX_ENTRIES`."""
    try:
        top = folders.fd(rel)
    except OSError:
        return True
    count = 0
    for folder, subfolders, files, folder_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
        prefix = rel if folder == "." else f"{rel}/{folder[2:]}"
        for name in sorted(subfolders) + sorted(files):
            count += 1
            if count > MAX_ENTRIES:
                return False
            entry = _entry(folder_fd, name)
            if entry is not None:
                entries[f"{prefix}/{name}"] = entry
    return True
