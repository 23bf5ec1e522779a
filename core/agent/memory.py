"""Long-term memory (AGENT-5): ``.agent/memory.md``, appended by ``save_memory``, read at start.

The file lives in the repository, so it is untrusted input: a cloned
repository can commit a ``memory.md`` full of instructions to the model.
It is loaded into the system prompt only when

* the user trusts the repository (:class:`~ljtui.core.trust.TrustStore`), or
* its content is exactly what ljtui last wrote there for this user: after
  every append the SHA-256 of the whole file is recorded in the user's
  state dir (:class:`MemoryHashes`, ``memory-hashes.json``), keyed by the
  repository's real path.

An append never vouches for text ljtui did not write: the fingerprint is
recorded only when the content before the append was empty or matched the
last fingerprint (trust lets a file load, but does not fingerprint it, so
revoking trust stops it loading again).

Every entry is headed by when it was saved and, where known, by which
session and agent (``## 2026-05-09 07:35 UTC (session …, chat)``), so the
system prompt can present the file as notes with their origin. The
``save_memory`` tool asks the user before it appends (the exact text is in
the question).

The file is always reached through :mod:`ljtui.core.statedir`, never
through a symlink, and it is bounded: one entry at most
:data:`MAX_ENTRY_CHARS`, the file at most :data:`MAX_MEMORY_BYTES`.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.clock import Clock, SystemClock
from ljtui.core.statedir import StateDirUnsafe, open_state_file, read_at_most
from ljtui.core.trust import TrustStore
from ljtui.core.user_records import RecordsBacked, UserRecords
from ljtui.core.userdirs import user_state_dir

MEMORY_FILE = "memory.md"
MEMORY_PATH = f".agent/{MEMORY_FILE}"
"""How the file is named to the user and the model."""
MAX_ENTRY_CHARS = 2_000
"""Longest text one ``save_memory`` call may save."""
MAX_MEMORY_BYTES = 32 * 1024
"""Largest memory file: it goes into every system prompt."""
MAX_SHOW_CHARS = 8_000
"""Characters ``/memory`` shows before it cuts."""
ENTRY_DATE_FORMAT = "%Y-%m-%d %H:%M UTC"
MAX_SOURCE_CHARS = 120
"""Longest "saved by" note in an entry's heading (the session id and the agent)."""
TRUST_HINT = "run `ljtui trust` to accept it"
HASHES_FILE = "memory-hashes.json"
"""The fingerprints of what ljtui wrote, in the user's state dir."""
HASHES_VERSION = 1
MAX_HASHES_FILE_BYTES = 4 * 1024 * 1024
"""A fingerprint file larger than this is treated as damaged."""
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ONE_LINE = re.compile(r"[\n\u2028\u2029]")


@dataclass(frozen=True)
class MemoryLoad:
    """What the next session's system prompt gets.

    Attributes:
        text: the memory to include ('' when there is none or it is not loaded).
        notice: one line for the user when a memory file exists but is not loaded.
    """

    text: str
    notice: str | None = None


@dataclass(frozen=True)
class SaveResult:
    """The outcome of one append.

    Attributes:
        ok: whether the entry was written.
        message: the sentence the model (and the user) reads.
        used_bytes: the file's size after the call.
        will_load: whether the memory will be loaded in the next session.
    """

    ok: bool
    message: str
    used_bytes: int = 0
    will_load: bool = False


@dataclass(frozen=True)
class MemoryView:
    """What ``/memory`` shows.

    Attributes:
        text: the file's text, cut at :data:`MAX_SHOW_CHARS`.
        cut: characters left out.
        exists: whether there is a memory file.
        loaded: whether the next session loads it.
        reason: why it is (or is not) loaded, one sentence.
    """

    text: str
    cut: int
    exists: bool
    loaded: bool
    reason: str

    def lines(self) -> list[str]:
        """The view as lines for a pane or a terminal."""
        if not self.exists:
            return [self.reason]
        head = f"{MEMORY_PATH} — " + ("loaded at start: " if self.loaded else "NOT loaded: ") + self.reason
        tail = [f"… {self.cut:,} more characters in {MEMORY_PATH}"] if self.cut else []
        return [head, "", *self.text.splitlines(), *tail]


@dataclass(frozen=True)
class _Read:
    """The memory file as read: its bytes, or why it cannot be read."""

    data: bytes | None
    problem: str | None = None


class MemoryStore:
    """The memory of one repository for one user."""

    def __init__(self, root: Path, trust: TrustStore, hashes: MemoryHashes, clock: Clock | None = None) -> None:
        self.root = root
        self.trust = trust
        self.hashes = hashes
        self.clock = clock or SystemClock()

    @classmethod
    def for_repo(cls, root: Path, env: Mapping[str, str] | None = None, clock: Clock | None = None) -> MemoryStore:
        """The store of the repository at ``root``, with the user's trust list and fingerprints."""
        return cls(root, TrustStore.for_env(env), MemoryHashes.for_env(env), clock)

    @property
    def key(self) -> str:
        """How the repository is recorded: its real path (as in the trust list)."""
        return TrustStore.key(self.root)

    def append(self, text: str, *, source: str = "") -> SaveResult:
        """Append an entry headed by when it was saved (and ``source``: which session and agent saved it).

        Empty or oversized entries and a full file are refused.
        """
        problem = entry_problem(text)
        if problem is not None:
            return SaveResult(False, problem)
        entry = text.strip()
        stamp = time.strftime(ENTRY_DATE_FORMAT, time.gmtime(self.clock.now()))
        by = _ONE_LINE.sub(" ", _CONTROL.sub("", source)).strip()[:MAX_SOURCE_CHARS]
        record = f"## {stamp}{f' ({by})' if by else ''}\n\n{entry}\n\n".encode("utf-8")
        try:
            fd = open_state_file(self.root, MEMORY_FILE, flags=os.O_RDWR | os.O_CREAT | os.O_APPEND)
        except StateDirUnsafe as exc:
            return SaveResult(False, exc.message)
        except OSError as exc:
            return SaveResult(False, f"cannot open {MEMORY_PATH}: {exc.strerror or exc}")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return self._append_locked(fd, record)
        except OSError as exc:
            return SaveResult(False, f"cannot write {MEMORY_PATH}: {exc.strerror or exc}")
        finally:
            os.close(fd)

    def _append_locked(self, fd: int, record: bytes) -> SaveResult:
        size = os.fstat(fd).st_size
        if size + len(record) > MAX_MEMORY_BYTES:
            return SaveResult(False, f"memory is full: {MEMORY_PATH} holds {size:,} bytes and this entry needs "
                                     f"{len(record):,} more; the limit is {MAX_MEMORY_BYTES:,}. Ask the user to "
                                     f"remove old entries from {MEMORY_PATH}", size, False)
        before = os.pread(fd, size, 0) if size else b""
        ours = not before or self.hashes.get(self.key) == _digest(before)
        view = memoryview(record)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        used = size + len(record)
        problem = self.hashes.record(self.key, _digest(before + record), self.clock.now()) if ours else None
        trusted = self._trusted()
        if not ours and not trusted:
            return SaveResult(True, f"saved to {MEMORY_PATH}, but that file also holds text ljtui did not write "
                                    f"for you (it may have come with the repository), so it is not loaded in the "
                                    f"next session until the user trusts this repository (`ljtui trust`)",
                              used, False)
        if problem is not None and not trusted:
            return SaveResult(True, f"saved to {MEMORY_PATH}, but its fingerprint could not be recorded "
                                    f"({problem}), so it is not loaded in the next session until the user trusts "
                                    f"this repository (`ljtui trust`)", used, False)
        return SaveResult(True, f"saved to {MEMORY_PATH} ({used:,} of {MAX_MEMORY_BYTES:,} bytes used); it is "
                                f"part of the system prompt from the next session on", used, True)

    def load(self) -> MemoryLoad:
        """The memory for the next system prompt, or nothing and a one-line notice saying why."""
        read = self._read()
        if read.problem is not None:
            return MemoryLoad("", f"{MEMORY_PATH} is not loaded: {read.problem}")
        if not read.data:
            return MemoryLoad("")
        loaded, reason = self._verdict(read.data)
        if not loaded:
            return MemoryLoad("", f"{MEMORY_PATH} is not loaded: {reason}")
        return MemoryLoad(_text(read.data))

    def show(self) -> MemoryView:
        """The memory for ``/memory``: the text (bounded), whether it will be loaded, and why (not)."""
        read = self._read()
        if read.problem is not None:
            return MemoryView("", 0, True, False, read.problem)
        if read.data is None:
            return MemoryView("", 0, False, False, f"no memory saved yet ({MEMORY_PATH} does not exist)")
        text = _text(read.data)
        loaded, reason = self._verdict(read.data)
        return MemoryView(text[:MAX_SHOW_CHARS], max(0, len(text) - MAX_SHOW_CHARS), True, loaded, reason)

    def _verdict(self, data: bytes) -> tuple[bool, str]:
        if self._trusted():
            return True, "this repository is trusted"
        if self.hashes.get(self.key) == _digest(data):
            return True, "it is exactly what ljtui last saved there for you"
        damaged = f" ({'; '.join(self.hashes.warnings)})" if self.hashes.warnings else ""
        return False, (f"this repository is not trusted and the file is not what ljtui last saved there for you "
                       f"(it may have come with the repository){damaged}; read it with /memory, then "
                       f"{TRUST_HINT}")

    def _trusted(self) -> bool:
        return self.trust.is_trusted(self.root)

    def _read(self) -> _Read:
        try:
            fd = open_state_file(self.root, MEMORY_FILE, flags=os.O_RDONLY)
        except FileNotFoundError:
            return _Read(None)
        except StateDirUnsafe as exc:
            return _Read(None, exc.message)
        except OSError as exc:
            return _Read(None, f"it cannot be opened: {exc.strerror or exc}")
        try:
            data = read_at_most(fd, MAX_MEMORY_BYTES + 1)
            size = os.fstat(fd).st_size
        except OSError as exc:
            return _Read(None, f"it cannot be read: {exc.strerror or exc}")
        finally:
            os.close(fd)
        if len(data) > MAX_MEMORY_BYTES or size > MAX_MEMORY_BYTES:
            return _Read(None, f"it is {max(size, len(data)):,} bytes, over the limit of {MAX_MEMORY_BYTES:,}; "
                               f"shorten it")
        return _Read(data)


def entry_problem(text: str) -> str | None:
    """Why ``text`` cannot be saved as one entry (empty, too long), or ``None``."""
    entry = text.strip()
    if not entry:
        return "nothing to save: the text is empty"
    if len(entry) > MAX_ENTRY_CHARS:
        return (f"the entry is {len(entry):,} characters; one entry may hold at most {MAX_ENTRY_CHARS:,}. "
                f"Save a shorter summary")
    return None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _text(data: bytes) -> str:
    """The file as text; control characters (terminal escapes) removed."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return _CONTROL.sub("", text).strip("\n")


class MemoryHashes(RecordsBacked):
    """The SHA-256 of each repository's memory file as ljtui last wrote it, for this user.

    Kept as :class:`~ljtui.core.user_records.UserRecords` in the user's state
    dir: anything malformed counts as "no fingerprint" (so nothing extra is
    loaded) and is reported in :attr:`warnings`; writes are atomic, under a
    lock, so two sessions never lose each other's entries.
    """

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=HASHES_VERSION, what="fingerprint list",
                                   when_damaged="no memory fingerprint is known",
                                   clean=lambda key, value: value if _valid_entry(key, value) else None,
                                   max_bytes=MAX_HASHES_FILE_BYTES)


    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> MemoryHashes:
        """The fingerprints in the user's state dir."""
        return cls(user_state_dir(env) / HASHES_FILE)

    def get(self, key: str) -> str | None:
        """The recorded fingerprint of the repository ``key`` (its real path), if any."""
        entry = self.records.load().get(key)
        return entry["sha256"] if entry else None

    def record(self, key: str, digest: str, now: float) -> str | None:
        """Record ``digest`` for ``key``; the problem, or ``None`` when it was written."""
        try:
            with self.records.editing() as entries:
                entries[key] = {"sha256": digest, "at": now}
        except OSError as exc:
            return f"{self.path}: {exc.strerror or exc}"
        return None


def _valid_entry(key: Any, value: Any) -> bool:
    return (isinstance(key, str) and os.path.isabs(key) and isinstance(value, dict)
            and isinstance(value.get("sha256"), str) and _SHA256_HEX.fullmatch(value["sha256"]) is not None
            and isinstance(value.get("at"), (int, float)) and not isinstance(value.get("at"), bool))
