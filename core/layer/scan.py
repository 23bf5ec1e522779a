"""The layer's net change: what the repository seen through the layer has that the user's tree has not.

Read from the upper folder alone, by overlayfs's own rules (unprivileged
kind): a 0/0 character device is a whiteout (the tree's entry there is
deleted), a folder with ``user.overlay.opaque`` hides every tree entry
below it, anything else covers the tree's entry at its path. Only the
upper folder is walked, plus the tree's folders a deletion or an opaque
folder hides, so the cost follows what the agent changed, not the size of
the repository.

Each changed path becomes one :class:`LayerEntry`: a creation, a
modification (bytes, executable bit or both), a deletion, or a move (a
deletion and a creation with the same bytes). Symbolic links and binary
files are entries too, marked so. Nothing is followed: every read is an
``lstat`` or an ``O_NOFOLLOW`` open of at most :data:`MAX_FILE_BYTES`.

``.git`` and ``.agent`` at the top are never part of the change (the
layer keeps them read-only; a command that made them where the tree has
none made them for nothing): they are named in :attr:`LayerChange.held`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping

from ljtui.core.layer.place import Stamp, stamp_of

OPAQUE_XATTRS = ("user.overlay.opaque", "trusted.overlay.opaque")
NEVER_DELIVERED = (".git", ".agent")
"""Top-level names whose changes are never part of the net change."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest file whose bytes are read; a larger one is held back, named with its size."""
BINARY_SNIFF_BYTES = 8000
CREATE, MODIFY, DELETE, MOVE = "create", "modify", "delete", "move"


@dataclass(frozen=True)
class Side:
    """One side of a changed path: what the tree has, or what the layer has."""

    data: bytes | None = None
    """The file's bytes (a link's target for a symbolic link; ``None``: nothing there)."""
    mode: int = 0o644
    """Permission bits of a file."""
    link: bool = False
    """It is a symbolic link."""

    @property
    def exists(self) -> bool:
        return self.data is not None

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111)


@dataclass(frozen=True)
class LayerEntry:
    """One path the layer changes.

    Attributes:
        path: repository-relative, ``/``-separated.
        kind: :data:`CREATE`, :data:`MODIFY`, :data:`DELETE` or :data:`MOVE`.
        before: what the tree has at ``path`` (at ``moved_from`` for a move).
        after: what the layer has at ``path``.
        moved_from: the tree's path a move takes the file from.
        ignored: git ignores the path (a creation or modification there is kept without review).
        stale: why the entry may not be applied (the user changed the tree's file since the layer took it).
    """

    path: str
    kind: str
    before: Side
    after: Side
    moved_from: str = ""
    ignored: bool = False
    stale: str = ""

    @property
    def binary(self) -> bool:
        """Either side is a binary file (a NUL byte near its start, or not UTF-8)."""
        return any(_binary(side.data) for side in (self.before, self.after) if side.data is not None
                   and not side.link)

    @property
    def link(self) -> bool:
        """Either side is a symbolic link."""
        return self.before.link or self.after.link

    @property
    def paths(self) -> tuple[str, ...]:
        """Every tree path the entry touches."""
        return (self.moved_from, self.path) if self.moved_from else (self.path,)


@dataclass(frozen=True)
class LayerChange:
    """The layer's net change against the tree.

    Attributes:
        entries: the changed paths, sorted.
        held: what the layer holds that is never delivered, each with why (``.git`` made by a command, a FIFO,
            a file too large to read, a file or folder the user cannot read).
        empty_folders: folders the layer made that hold nothing (a tree cannot be given an empty folder by a diff).
    """

    entries: tuple[LayerEntry, ...] = ()
    held: tuple[tuple[str, str], ...] = ()
    empty_folders: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.entries and not self.held

    def reviewed(self) -> tuple[LayerEntry, ...]:
        """The entries the user reviews: all but the creations and modifications under ignored paths."""
        return tuple(e for e in self.entries if not (e.ignored and e.kind in (CREATE, MODIFY)))

    def unreviewed(self) -> tuple[LayerEntry, ...]:
        """Creations and modifications under ignored paths: kept without review."""
        return tuple(e for e in self.entries if e.ignored and e.kind in (CREATE, MODIFY))


def _binary(data: bytes) -> bool:
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def is_whiteout(st: os.stat_result) -> bool:
    """Overlayfs's mark of a deletion: a character device numbered 0/0."""
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def is_opaque(path: Path) -> bool:
    """Whether the upper folder ``path`` hides the tree's folder below it."""
    for name in OPAQUE_XATTRS:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


class _Scan:
    def __init__(self, upper: Path, tree: Path) -> None:
        self.upper = upper
        self.tree = tree
        self.after: set[str] = set()
        """Paths where the layer has a file or a link (which may or may not differ from the tree's)."""
        self.gone: set[str] = set()
        """Tree paths the layer deletes."""
        self.held: list[tuple[str, str]] = []
        self.empty: list[str] = []

    def side(self, path: Path, rel: str) -> Side | None:
        """The file at ``path`` as a side (``None`` and a held entry when it cannot be one)."""
        try:
            st = os.lstat(path)
        except OSError:
            return Side()
        if stat.S_ISLNK(st.st_mode):
            return Side(os.fsencode(os.readlink(path)), 0o777, link=True)
        if not stat.S_ISREG(st.st_mode):
            self.held.append((rel, "not a file, a folder or a symbolic link"))
            return None
        if st.st_size > MAX_FILE_BYTES:
            self.held.append((rel, f"{st.st_size} bytes: larger than {MAX_FILE_BYTES} bytes"))
            return None
        chunks: list[bytes] = []
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
            try:
                while chunk := os.read(fd, 1 << 20):
                    chunks.append(chunk)
            finally:
                os.close(fd)
        except OSError as exc:
            self.held.append((rel, f"cannot be read: {exc.strerror or exc}"))
            return None
        return Side(b"".join(chunks), stat.S_IMODE(st.st_mode))

    def tree_kind(self, rel: str) -> str:
        """``dir``, ``file`` (anything else) or ``none`` for the tree's entry at ``rel``."""
        try:
            st = os.lstat(self.tree / rel)
        except OSError:
            return "none"
        return "dir" if stat.S_ISDIR(st.st_mode) else "file"

    def tree_files(self, rel: str) -> Iterable[str]:
        """Every non-folder entry of the tree at or below ``rel``."""
        kind = self.tree_kind(rel)
        if kind == "file":
            yield rel
            return
        if kind == "none":
            return
        for folder, subfolders, files in os.walk(self.tree / rel):
            base = os.path.relpath(folder, self.tree).replace(os.sep, "/")
            for name in files:
                yield f"{base}/{name}"
            for name in list(subfolders):
                if os.path.islink(os.path.join(folder, name)):
                    yield f"{base}/{name}"
                    subfolders.remove(name)

    def walk(self, rel: str, whole: bool) -> bool:
        """Read the upper folder at ``rel``; ``whole``: the layer's folder replaces the tree's entirely (opaque,
        or where the tree has no folder). Returns whether anything below it is a file."""
        upper = self.upper / rel if rel else self.upper
        try:
            names = sorted(os.listdir(upper))
        except OSError as exc:  # a folder a command made unreadable: held whole, never counted empty
            self.held.append((rel, f"cannot be read: {exc.strerror or exc}"))
            return True
        if whole and self.tree_kind(rel) == "dir":
            for name in sorted(os.listdir(self.tree / rel)):
                if name not in names:
                    self.gone.update(self.tree_files(_join(rel, name)))
        holds = False
        for name in names:
            child = _join(rel, name)
            if not rel and name in NEVER_DELIVERED:
                if self.tree_kind(child) == "none":
                    self.held.append((child, "made in the layer; ljtui never delivers it"))
                continue
            path = upper / name
            st = os.lstat(path)
            if is_whiteout(st):
                self.gone.update(self.tree_files(child))
                continue
            if stat.S_ISDIR(st.st_mode):
                below_whole = whole or is_opaque(path) or self.tree_kind(child) != "dir"
                if self.tree_kind(child) == "file":
                    self.gone.add(child)
                if self.walk(child, below_whole):
                    holds = True
                elif self.tree_kind(child) == "none":
                    self.empty.append(child)
                continue
            if self.tree_kind(child) == "dir":
                self.gone.update(self.tree_files(child))
            self.after.add(child)
            holds = True
        return holds


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def scan(upper: Path, tree: Path, *, stamps: Mapping[str, Stamp | None] | None = None,
         ignored: Iterable[str] = ()) -> LayerChange:
    """The net change of the layer whose upper folder is ``upper`` over ``tree``.

    Args:
        upper: the layer's upper folder (no overlay may be mounted on it while it is read).
        tree: the user's tree (the overlay's lower layer).
        stamps: the tree's stamps the layer recorded; a path whose tree stamp differs now is marked stale
            (``None``: nothing is checked).
        ignored: the changed paths git ignores (see :func:`ignored_paths`).
    """
    walker = _Scan(upper, tree)
    if upper.is_dir():
        walker.walk("", False)
    ignored_set = set(ignored)
    entries: dict[str, LayerEntry] = {}
    for rel in sorted(walker.after):
        after = walker.side(upper / rel, rel)
        before = walker.side(tree / rel, rel) if walker.tree_kind(rel) == "file" else Side()
        if before is None or after is None:
            continue
        if before.exists and _same(before, after):
            continue
        kind = MODIFY if before.exists else CREATE
        entries[rel] = LayerEntry(rel, kind, before, after, ignored=rel in ignored_set)
    for rel in walker.gone - walker.after:
        before = walker.side(tree / rel, rel)
        if before is None or not before.exists:
            continue
        entries[rel] = LayerEntry(rel, DELETE, before, Side())
    paired = _moves(entries)
    if stamps is not None:
        paired = {rel: _stale(entry, tree, stamps) for rel, entry in paired.items()}
    return LayerChange(tuple(paired[k] for k in sorted(paired)), tuple(sorted(walker.held)),
                       tuple(sorted(walker.empty)))


def _same(before: Side, after: Side) -> bool:
    """Whether the layer's file is the tree's as git sees it: the same bytes, kind and executable bit (other
    permission bits travel in no diff)."""
    return (before.data == after.data and before.link == after.link
            and (before.link or before.executable == after.executable))


def _moves(entries: dict[str, LayerEntry]) -> dict[str, LayerEntry]:
    """Pair each creation with a deletion of the same bytes and kind (first by path) into a move."""
    deleted: dict[tuple[bytes, bool], list[str]] = {}
    for rel in sorted(entries):
        entry = entries[rel]
        if entry.kind == DELETE and entry.before.data:
            deleted.setdefault((entry.before.data, entry.before.link), []).append(rel)
    out = dict(entries)
    for rel in sorted(entries):
        entry = entries[rel]
        if entry.kind != CREATE or entry.ignored or not entry.after.data:
            continue
        sources = deleted.get((entry.after.data, entry.after.link))
        if sources:
            source = sources.pop(0)
            out[rel] = replace(entry, kind=MOVE, before=entries[source].before, moved_from=source)
            del out[source]
    return out


def _stale(entry: LayerEntry, tree: Path, stamps: Mapping[str, Stamp | None]) -> LayerEntry:
    for rel in entry.paths:
        if rel in stamps and stamp_of(tree / rel) != stamps[rel]:
            return replace(entry, stale=f"{rel} changed in your tree after the layer took it; it is never "
                                        "overwritten: merge the layer's copy by hand")
    return entry


def covered_paths(upper: Path, tree: Path) -> list[str]:
    """Every tree path the layer's upper folder covers (its files, and the tree's files its deletions and opaque
    folders hide), without reading a byte: the paths whose tree stamps the layer records."""
    walker = _Scan(upper, tree)
    if upper.is_dir():
        walker.walk("", False)
    return sorted(walker.after | walker.gone)


def with_ignored(change: LayerChange, ignored: set[str]) -> LayerChange:
    """``change`` with each entry marked as ignored by git or not."""
    entries = tuple(replace(e, ignored=e.path in ignored) for e in change.entries)
    return LayerChange(entries, change.held, change.empty_folders)


