"""Reading one source file into its outline entry: bounded, never through a symlink.

:func:`read_entry` opens the file without following a final symlink,
refuses anything but a regular file, skips files over
:data:`MAX_FILE_BYTES` without reading them and files with a NUL byte
(binary), hashes the content, extracts the definitions (Python with
``ast``, the rest with tree-sitter) and collects the identifiers the file
mentions (for ranking). :func:`read_batch` does a list of files; it runs in
worker processes for a cold start of a large repository.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from ljtui.core.gc_pause import cyclic_gc_paused
from ljtui.core.outline.extract_py import extract_python
from ljtui.core.outline.extract_ts import extract_tree
from ljtui.core.statedir import read_at_most
from ljtui.core.outline.model import Row, encode_rows

MAX_FILE_BYTES = 1024 * 1024
"""Source files larger than this are not outlined (generated or bundled code)."""
MAX_SYMBOLS_PER_FILE = 5000
"""Definitions kept from one file, first by line."""
CONTENT_HASH_BYTES = 16
"""Size of a file's content hash (its hex form is twice as long)."""
OK, UNPARSABLE, BINARY, TOO_LARGE, UNREADABLE, NOT_A_FILE = (
    "ok", "unparsable", "binary", "too large", "unreadable", "not a file")
"""How reading a file ended. ``not a file`` (a symlink, a folder, a vanished path) is not counted as skipped."""
STATUSES = (OK, UNPARSABLE, BINARY, TOO_LARGE, UNREADABLE, NOT_A_FILE)
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_WORDS = bytes(byte if byte in _WORD_BYTES else ord(" ") for byte in range(256))
"""Maps every byte that cannot be part of an ASCII identifier to a space: what is left between spaces
are the words a file mentions (a name counts as mentioned when it is one of them)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One file as read: its stat key, content hash, status and (when ``ok``) its definitions.

    Attributes:
        path: repository-relative, ``/``-separated.
        language: the language it was read as.
        size: bytes, from the open file's ``fstat``.
        mtime_ns: modification time, nanoseconds.
        ctime_ns: status change time, nanoseconds.
        digest: hex hash of the content (``""`` when not read).
        status: one of :data:`STATUSES`.
        rows: the definitions, by line, encoded (:func:`~ljtui.core.outline.model.encode_rows`).
        names: the identifiers the file mentions, space-separated.
        read_ns: when the file's ``fstat`` was taken (``time.time_ns``).
    """

    path: str
    language: str
    size: int
    mtime_ns: int
    ctime_ns: int
    digest: str
    status: str
    rows: str = ""
    names: str = ""
    read_ns: int = 0

    @property
    def stat_key(self) -> tuple[int, int, int]:
        """What must match for a cached entry to stand without reading the file."""
        return self.size, self.mtime_ns, self.ctime_ns


def stat_key(st: os.stat_result) -> tuple[int, int, int]:
    """``(size, mtime_ns, ctime_ns)`` of a stat result."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def content_digest(data: bytes) -> str:
    """The hex content hash of a file's bytes."""
    return hashlib.blake2b(data, digest_size=CONTENT_HASH_BYTES).hexdigest()


def read_entry(root: Path, path: str, language: str, known: Entry | None = None) -> Entry:
    """Read and outline one file.

    Args:
        root: the repository root.
        path: the file, repository-relative.
        language: what to read it as.
        known: a previous entry: when the content hash still matches, its
            definitions are kept and nothing is parsed.

    Returns:
        The entry; never raises for a problem with the file.
    """
    now = time.time_ns()
    try:
        fd = os.open(os.path.join(root, path), _OPEN_FLAGS)
    except OSError as exc:
        status = NOT_A_FILE if exc.errno in (errno.ELOOP, errno.ENOENT, errno.ENOTDIR) else UNREADABLE
        return Entry(path, language, 0, 0, 0, "", status, read_ns=now)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Entry(path, language, *stat_key(st), "", NOT_A_FILE, read_ns=now)
        if st.st_size > MAX_FILE_BYTES:
            return Entry(path, language, *stat_key(st), "", TOO_LARGE, read_ns=now)
        data = read_at_most(fd, MAX_FILE_BYTES + 1)
    except OSError:
        return Entry(path, language, 0, 0, 0, "", UNREADABLE, read_ns=now)
    finally:
        os.close(fd)
    key = stat_key(st)
    if len(data) > MAX_FILE_BYTES:
        return Entry(path, language, *key, "", TOO_LARGE, read_ns=now)
    digest = content_digest(data)
    if known is not None and known.digest == digest and known.language == language:
        return Entry(path, language, *key, digest, known.status, known.rows, known.names, now)
    if b"\0" in data:
        return Entry(path, language, *key, digest, BINARY, read_ns=now)
    rows = _extract(language, data)
    if rows is None:
        return Entry(path, language, *key, digest, UNPARSABLE, read_ns=now)
    return Entry(path, language, *key, digest, OK, encode_rows(rows[:MAX_SYMBOLS_PER_FILE]), names_of(data), now)


@dataclass(frozen=True)
class Batch:
    """What reading a list of files gives.

    Attributes:
        entries: one per file, in the order asked.
        mentions: for each identifier, how many of the outlined files read here mention it.
    """

    entries: list[Entry]
    mentions: dict[str, int]


def read_batch(root: str, items: list[tuple[str, str, Entry | None]]) -> Batch:
    """:func:`read_entry` for each ``(path, language, known)``; what a worker process runs.

    The cyclic garbage collector is paused meanwhile: syntax trees hold no
    cycles, and collecting while ``ast`` builds one costs more than the parse.
    """
    base = Path(root)
    with cyclic_gc_paused():
        entries = [read_entry(base, path, language, known) for path, language, known in items]
        mentions: Counter[str] = Counter()
        for entry in entries:
            if entry.status == OK:
                mentions.update(entry.names.split())
        return Batch(entries, dict(mentions))


def _extract(language: str, data: bytes) -> list[Row] | None:
    """The definitions, or None when the file does not parse."""
    if language != "python":
        try:
            return extract_tree(language, data)
        except (ValueError, RecursionError, MemoryError):
            return None
    try:
        return extract_python(*_python_source(data))
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError, LookupError, IndexError):
        return None


def _python_source(data: bytes) -> tuple[bytes | str, bytes]:
    """What ``ast`` parses and the UTF-8 bytes its columns index into, honouring a coding cookie."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    if encoding in ("utf-8", "utf-8-sig"):
        return data, data
    text = data.decode(encoding)
    return text, text.encode("utf-8", "surrogatepass")


def names_of(data: bytes) -> str:
    """The words (ASCII letters, digits, underscores) ``data`` mentions, each once, space-separated."""
    return b" ".join(set(data.translate(_WORDS).split())).decode("ascii")
