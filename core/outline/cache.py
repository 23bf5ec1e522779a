"""The outline cache in ``.agent/cache/``: read back as untrusted input, written atomically.

Two files, both JSON, reached only through
:func:`~ljtui.core.statedir.state_dir` and
:func:`~ljtui.core.statedir.open_state_file` (never through a symlink).
When git would see them there (a repository committed ``.agent/cache/``,
or its ignore rules do not cover it) they live in the user's cache dir
instead, never through a symlink either
(:mod:`~ljtui.core.outline.cache_place`), so ljtui never rewrites a
tracked file nor adds an untracked one:

* ``outline.json``: one entry per source file: its stat key (size,
  modification and status-change times), when it was read, its content
  hash, how reading it ended, its definitions and the names it mentions.
* ``outline-render.json``: the last rendered outline and the key of the
  repository state and budget it was rendered for.

Both name the folder they were written for (:func:`owner_of`): a cache
committed to the repository or copied with it is ignored whole.

A repository can commit anything in ``.agent/``, so what is read back is
checked like any input: size bounded before parsing, every field's type,
range and shape checked. A cache that fails any check is ignored whole
(the outline is then rebuilt from the files), never believed in part and
never a crash; why it was ignored is reported.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ljtui.core.outline.cache_place import cache_place, pinned_folder
from ljtui.core.outline.model import ROWS_PATTERN
from ljtui.core.outline.parse import MAX_FILE_BYTES, STATUSES, Entry
from ljtui.core.outline.files import LANGUAGES, MAX_FILES
from ljtui.core.statedir import (
    StateDirUnsafe, StateFileTooBig, read_at_most, read_state_bytes, replace_state_file, state_dir,
)
from ljtui.core.user_records import PRIVATE_DIR_MODE

CACHE_DIR = "cache"
"""The folder below ``.agent`` (to be listed in ``.agent/.gitignore`` as ``cache/``)."""
ENTRIES_FILE = "outline.json"
RENDER_FILE = "outline-render.json"
CACHE_FILES = (ENTRIES_FILE, RENDER_FILE)
FORMAT = "ljtui-outline"
VERSION = 1
"""Bumped whenever extraction or the file layout changes: an older cache is then ignored."""
MAX_CACHE_BYTES = 64 * 1024 * 1024
"""A larger ``outline.json`` is neither read nor written."""
MAX_RENDER_BYTES = 4 * 1024 * 1024
"""A larger ``outline-render.json`` is neither read nor written."""
RENDER_COUNTS = ("shown", "total", "files_shown", "files_total")
"""The counts stored with a rendered outline."""
MAX_PATH_CHARS = 4096
MAX_INT = 2 ** 63 - 1
_HASH = re.compile(r"(?:[0-9a-f]{32})?")
_NAMES = re.compile(r"[A-Za-z0-9_ ]*")
_LANGUAGE_NAMES = frozenset(LANGUAGES.values())
_ENTRY_FIELDS = 10


class CacheRejected(Exception):
    """The cache file is not one ljtui wrote for this version; ``str()`` says why."""


@dataclass
class Loaded:
    """What was read back: entries by path (empty when there was no usable cache) and why not."""

    entries: dict[str, Entry] = field(default_factory=dict)
    note: str = ""
    """Empty when the cache was used or simply absent; otherwise why it was ignored."""
    writable: bool = True
    """False when the cache folder is unsafe (a symlink…): nothing is written there."""


def load_entries(root: Path) -> Loaded:
    """The cached entries of ``root``, or none with a note saying why they were ignored."""
    try:
        data = _read_json(root, ENTRIES_FILE, MAX_CACHE_BYTES)
    except FileNotFoundError:
        return Loaded()
    except StateDirUnsafe as exc:
        return Loaded(note=f"outline cache not used: {exc.path} {exc.problem}", writable=False)
    except (OSError, CacheRejected) as exc:
        return Loaded(note=f"outline cache ignored and rebuilt: {exc}")
    try:
        return Loaded(_entries_of(data, owner_of(root)))
    except (CacheRejected, OSError) as exc:
        return Loaded(note=f"outline cache ignored and rebuilt: {exc}")


def load_render(root: Path) -> dict[str, Any] | None:
    """The last rendered outline (``key``, ``text`` and :data:`RENDER_COUNTS`), or None when missing or not valid."""
    try:
        data = _read_json(root, RENDER_FILE, MAX_RENDER_BYTES)
    except (OSError, StateDirUnsafe, CacheRejected):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        return None
    try:
        if data.get("owner") != owner_of(root):
            return None
    except OSError:
        return None
    if not isinstance(data.get("key"), str) or not isinstance(data.get("text"), str):
        return None
    if any(type(data.get(name)) is not int or not 0 <= data[name] <= MAX_INT for name in RENDER_COUNTS):
        return None
    return {name: data[name] for name in ("key", "text", *RENDER_COUNTS)}


def save_entries(root: Path, entries: list[Entry]) -> str:
    """Write the entries; return ``""`` or why the cache was not written."""
    rows = [[e.path, e.language, e.size, e.mtime_ns, e.ctime_ns, e.read_ns, e.digest, e.status, e.rows, e.names]
            for e in entries]
    return _write_json(root, ENTRIES_FILE, {"format": FORMAT, "version": VERSION, "entries": rows}, MAX_CACHE_BYTES)


def owner_of(root: Path) -> list[int]:
    """What ties a cache to the folder it was written for: the root folder's device and inode.

    A cache committed to a repository, or copied along with it, was written
    for another folder: it is ignored, so no entry of it is believed (not
    even one whose content hash matches a file). A process whose caches are
    pinned to a folder (:func:`~ljtui.core.outline.cache_place.pin_folder`)
    sees its root through a mount of its own: that folder ties them instead.

    Raises:
        OSError: the root cannot be examined.
    """
    st = os.stat(pinned_folder() or root)
    return [st.st_dev, st.st_ino]


def save_render(root: Path, rendered: dict[str, Any]) -> str:
    """Write the last rendered outline (``key``, ``text``, :data:`RENDER_COUNTS`); return ``""`` or why not."""
    return _write_json(root, RENDER_FILE, {"format": FORMAT, "version": VERSION, **rendered}, MAX_RENDER_BYTES)


def _read_json(root: Path, name: str, limit: int) -> Any:
    place = cache_place(root, CACHE_FILES, writing=False)
    if not place.usable:
        raise FileNotFoundError(name)
    try:
        if place.folder is None:
            data = read_state_bytes(root, CACHE_DIR, name, limit=limit)
        else:
            data = _read_private(place.folder / name, limit)
    except StateFileTooBig as exc:
        raise CacheRejected(str(exc).removeprefix(f".agent/{CACHE_DIR}/")) from exc
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise CacheRejected(f"{name} is not valid JSON ({type(exc).__name__})") from exc


def _write_json(root: Path, name: str, data: dict[str, Any], limit: int) -> str:
    try:
        data = {**data, "owner": owner_of(root)}
    except OSError as exc:
        return f"outline cache not written: {exc.strerror or exc}"
    payload = json.dumps(data, separators=(",", ":")).encode("ascii")
    if len(payload) > limit:
        return f"outline cache not written: {len(payload)} bytes, over the {limit} byte bound"
    try:
        place = cache_place(root, CACHE_FILES, writing=True)
        if not place.usable:
            return "outline cache not written: git cannot say whether it would show in git status"
        if place.folder is not None:
            _write_private(place.folder, name, payload)
            return ""
        state_dir(root, CACHE_DIR, create=True)
        from ljtui.core.edits.journal import ensure_agent_gitignore  # only when writing: keeps warm starts light
        ensure_agent_gitignore(root)
        replace_state_file(root, CACHE_DIR, name, data=payload, durable=False)
    except StateDirUnsafe as exc:
        return f"outline cache not written: {exc.path} {exc.problem}"
    except OSError as exc:
        return f"outline cache not written: {exc.strerror or exc}"
    return ""


def _read_private(path: Path, limit: int) -> bytes:
    """A cache file in the user's cache dir, never through a symlink, at most ``limit`` bytes.

    Raises:
        StateFileTooBig: it is larger.
        OSError: it cannot be read (``FileNotFoundError`` when missing).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(0, "not a regular file", str(path))
        if st.st_size > limit:
            raise StateFileTooBig(f"{path.name} is {st.st_size} bytes, over the {limit} byte bound")
        data = read_at_most(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise StateFileTooBig(f"{path.name} grew over the {limit} byte bound while read")
    return data


def _write_private(folder: Path, name: str, payload: bytes) -> None:
    """Write a cache file in the user's cache dir whole: a private temp file beside it, then a rename."""
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temp, folder / name)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _entries_of(data: Any, owner: list[int]) -> dict[str, Entry]:
    """Checked entries by path; raises :class:`CacheRejected` at the first thing out of shape."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CacheRejected("not an outline cache")
    if data.get("version") != VERSION:
        raise CacheRejected(f"written by another version ({str(data.get('version'))[:40]!r})")
    if data.get("owner") != owner:
        raise CacheRejected("written for another folder (committed or copied with the repository)")
    rows = data.get("entries")
    if not isinstance(rows, list) or len(rows) > MAX_FILES:
        raise CacheRejected("its entries are not a list of at most %d files" % MAX_FILES)
    entries: dict[str, Entry] = {}
    for row in rows:
        entry = _entry_of(row)
        if entry.path in entries:
            raise CacheRejected(f"{entry.path!r} is listed twice")
        entries[entry.path] = entry
    return entries


def _entry_of(row: Any) -> Entry:
    if not isinstance(row, list) or len(row) != _ENTRY_FIELDS:
        raise CacheRejected("an entry is not a list of %d fields" % _ENTRY_FIELDS)
    path, language, size, mtime, ctime, read_ns, digest, status, rows, names = row
    if not isinstance(path, str) or not _is_relative(path):
        raise CacheRejected(f"an entry's path is not a repository-relative path: {str(path)[:80]!r}")
    if language not in _LANGUAGE_NAMES or status not in STATUSES:
        raise CacheRejected(f"{path!r} has an unknown language or status")
    for number in (size, mtime, ctime, read_ns):
        if type(number) is not int or not 0 <= number <= MAX_INT:
            raise CacheRejected(f"{path!r} has a size or time that is not a non-negative integer")
    if not isinstance(digest, str) or not _HASH.fullmatch(digest):
        raise CacheRejected(f"{path!r} has a malformed content hash")
    if not isinstance(names, str) or len(names) > MAX_FILE_BYTES or not _NAMES.fullmatch(names):
        raise CacheRejected(f"{path!r} has malformed names")
    if not isinstance(rows, str) or len(rows) > MAX_CACHE_BYTES or not ROWS_PATTERN.fullmatch(rows):
        raise CacheRejected(f"{path!r} has malformed definitions")
    return Entry(path, language, size, mtime, ctime, digest, status, rows, names, read_ns)


def _is_relative(path: str) -> bool:
    if not path or len(path) > MAX_PATH_CHARS or path.startswith("/") or "\0" in path:
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))
