"""Building the outline index of a repository: from the cache where files did not change, else by parsing.

A cached entry stands when the file's stat key (size, modification and
status-change times, in nanoseconds) is the one recorded; a file whose key
changed is read and hashed, and parsed only when its content hash changed
too. A file read less than :data:`RACY_NS` after it was last modified is
hashed again on the next build (:func:`is_racy`), since a same-size
change within one timestamp tick would leave its stat key unchanged.
Many files to parse go to worker processes (:mod:`~ljtui.core.outline.pool`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ljtui.core.outline import cache
from ljtui.core.outline.files import Listing, in_skipped_folder, language_of, list_sources
from ljtui.core.outline.model import FileOutline, Symbol
from ljtui.core.outline.parse import (
    BINARY, MAX_FILE_BYTES, NOT_A_FILE, OK, TOO_LARGE, UNPARSABLE, UNREADABLE, Entry, stat_key,
)
from ljtui.core.outline.pool import read_all
from ljtui.core.secret_files import SecretFiles

RACY_NS = 50_000_000
"""A file changed this close (ns) before it was read is hashed again on the next build: more than a
kernel timestamp tick, so a change in the tick it was read in cannot hide behind an unchanged stat key."""
COARSE_RACY_NS = 2_000_000_000
"""The same for file systems whose timestamps are whole seconds (FAT keeps two-second times)."""
SECOND_NS = 1_000_000_000
MIB = 1024 * 1024
UNCACHED = (NOT_A_FILE, UNREADABLE)
"""Read results not kept in the cache: they have no stat key to check, so they are simply read again."""


@dataclass(frozen=True)
class Skipped:
    """Files the outline did not read, by reason."""

    secret: int = 0
    unparsable: int = 0
    binary: int = 0
    too_large: int = 0
    unreadable: int = 0
    over_limit: int = 0

    @property
    def total(self) -> int:
        """All files left out."""
        return self.secret + self.unparsable + self.binary + self.too_large + self.unreadable + self.over_limit

    def describe(self) -> str:
        """``"2 secret, 1 unparsable"``: the non-zero counts, ``""`` when nothing was left out."""
        parts = [(self.secret, "secret"), (self.unparsable, "unparsable"), (self.binary, "binary"),
                 (self.too_large, f"too large (over {MAX_FILE_BYTES / MIB:g} MiB)"),
                 (self.unreadable, "unreadable"), (self.over_limit, "over the file limit")]
        return ", ".join(f"{count} {label}" for count, label in parts if count)


@dataclass(frozen=True)
class OutlineIndex:
    """The definitions of a repository's source files.

    Attributes:
        root: the repository root.
        files: the outlined files by path, in path order (files that were
            read and parsed; skipped files are only counted).
        skipped: files left out, by reason.
        parsed: files parsed by this build (0 when everything came from the cache).
        read: files read by this build (parsed, or hashed and found unchanged).
        key: identifies the repository state the index describes: equal keys,
            equal outlines.
        cache_note: ``""``, or why the cache was not used or not written.
        from_git: whether git listed the files (so git-ignored files are out).
    """

    root: Path
    files: dict[str, FileOutline]
    skipped: Skipped = Skipped()
    parsed: int = 0
    read: int = 0
    key: str = ""
    cache_note: str = ""
    from_git: bool = False
    render_cache: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    """The last rendered outline read back from the cache (used when its key matches)."""
    mentions: dict[str, int] | None = field(default=None, repr=False, compare=False)
    """How many outlined files mention each identifier, when this build read every file (else counted on use)."""

    def symbols(self) -> Iterator[Symbol]:
        """Every definition, by path then line."""
        for outline in self.files.values():
            yield from outline.symbols

    @property
    def symbol_count(self) -> int:
        """How many definitions the index holds."""
        return sum(len(outline.symbols) for outline in self.files.values())


def build_index(root: Path, *, secrets: SecretFiles | None = None, under: str = "", workers: int | None = None,
                use_cache: bool = True) -> OutlineIndex:
    """The outline index of ``root`` (or of the files below ``under``), refreshing the cache.

    Args:
        root: the repository root.
        secrets: which files are never read (default: :class:`SecretFiles` defaults).
        under: a normalised repository-relative folder or file: only files
            there are listed and indexed; cached entries elsewhere are kept.
        workers: worker processes for a large parse (``None``: one per CPU,
            at most :data:`~ljtui.core.outline.pool.MAX_WORKERS`; ``1``: none).
        use_cache: read and write ``.agent/cache/``; ``False`` parses every file.
    """
    root = Path(root).absolute()
    listing = list_sources(root, secrets or SecretFiles(), under)
    return _refresh(root, listing, lambda path: _is_below(path, under), workers, use_cache)


def refresh_files(root: Path, paths: Iterable[str], *, secrets: SecretFiles | None = None,
                  workers: int | None = 1) -> OutlineIndex:
    """Re-index just ``paths`` (repository-relative; missing ones drop out of the cache).

    The returned index holds those files only; the cache keeps every other entry as it was.
    """
    root = Path(root).absolute()
    policy = secrets or SecretFiles()
    wanted = sorted({p for p in paths if p})
    listing = Listing()
    for path in wanted:
        language = language_of(path)
        if policy.is_secret(path):
            listing.secret += 1
        elif language is not None and not in_skipped_folder(path):
            listing.files.append((path, language))
    chosen = set(wanted)
    return _refresh(root, listing, chosen.__contains__, workers, True)


def _refresh(root: Path, listing: Listing, in_scope: Callable[[str], bool], workers: int | None,
             use_cache: bool) -> OutlineIndex:
    loaded = cache.load_entries(root) if use_cache else cache.Loaded()
    known = loaded.entries
    current: dict[str, Entry] = {}
    to_read: list[tuple[str, str, Entry | None]] = []
    for path, language in listing.files:
        entry = known.get(path)
        if entry is not None and entry.language == language and _unchanged(root, entry):
            current[path] = entry
        else:
            to_read.append((path, language, entry))
    batch = read_all(root, to_read, workers)
    fresh = batch.entries
    parsed = sum(1 for (_, _, before), after in zip(to_read, fresh) if _was_parsed(before, after))
    mentions = batch.mentions if not current else None
    current.update((entry.path, entry) for entry in fresh)
    ordered = [current[path] for path, _ in listing.files]
    note = loaded.note
    if use_cache and loaded.writable:
        keep = [entry for entry in ordered if entry.status not in UNCACHED]
        changed = any(entry.status not in UNCACHED for entry in fresh)
        dropped = any(in_scope(path) and path not in current for path in known)
        if changed or dropped or note:
            outside = [entry for path, entry in known.items() if not in_scope(path)]
            write_note = cache.save_entries(root, sorted(outside + keep, key=lambda e: e.path))
            note = "; ".join(n for n in (note, write_note) if n)
    return _index_of(root, ordered, listing, parsed, len(fresh), note,
                     cache.load_render(root) if use_cache else None, mentions)


def _index_of(root: Path, entries: list[Entry], listing: Listing, parsed: int, read: int, note: str,
              render: dict[str, Any] | None, mentions: dict[str, int] | None) -> OutlineIndex:
    counts = {status: 0 for status in (UNPARSABLE, BINARY, TOO_LARGE, UNREADABLE)}
    files: dict[str, FileOutline] = {}
    for entry in entries:
        if entry.status == OK:
            files[entry.path] = FileOutline(entry.path, entry.language, entry.digest, entry.rows, entry.names)
        elif entry.status in counts:
            counts[entry.status] += 1
    skipped = Skipped(listing.secret, counts[UNPARSABLE], counts[BINARY], counts[TOO_LARGE], counts[UNREADABLE],
                      listing.over_limit)
    return OutlineIndex(root, files, skipped, parsed, read, _state_key(files, skipped), note, listing.from_git,
                        render, mentions)


def _state_key(files: dict[str, FileOutline], skipped: Skipped) -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{cache.FORMAT} {cache.VERSION} {skipped}\n".encode())
    for path, outline in files.items():
        digest.update(f"{path}\t{outline.digest}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _unchanged(root: Path, entry: Entry) -> bool:
    """Whether ``entry`` still describes the file: same stat key, and not read within :data:`RACY_NS` of a change."""
    try:
        st = os.lstat(os.path.join(root, entry.path))
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or stat_key(st) != entry.stat_key:
        return False
    return not is_racy(entry)


def is_racy(entry: Entry) -> bool:
    """Whether ``entry``'s file changed so shortly before it was read that a same-size change in the same
    timestamp tick could follow unseen (its stat key would not change): such a file is hashed again."""
    coarse = entry.mtime_ns % SECOND_NS == 0
    window = COARSE_RACY_NS if coarse else RACY_NS
    return max(entry.mtime_ns, entry.ctime_ns) + window >= entry.read_ns


def _was_parsed(before: Entry | None, after: Entry) -> bool:
    """Whether reading produced a new parse (not a hash match with the cached entry, not a skip)."""
    if after.status not in (OK, UNPARSABLE):
        return False
    return before is None or before.digest != after.digest or before.language != after.language


def _is_below(path: str, under: str) -> bool:
    return not under or path == under or path.startswith(under + "/")
