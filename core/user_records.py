"""Per-repository records in the user's own dirs: one versioned JSON file, read defensively.

The trust list, the gate confirmations, the memory fingerprints and the
session owners are decisions that must not live in a repository. Each is a
file ``{"version": N, "repositories": {<real path>: <record>}}`` in the
user's config or state dir. The file is the user's, but it is read as if
anyone could have written it: bounded, every entry checked (a malformed
one is skipped and counted), a damaged file counts as empty and says so.
Writes are atomic (a private temp file, fsync, rename; mode 0600) under an
exclusive lock, so two sessions never lose each other's entries.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
"""A larger file is treated as damaged."""



@dataclass(frozen=True)
class Partly:
    """An entry kept in part: ``value`` (dropped when empty) and how many of its own items were skipped."""

    value: Any
    skipped: int


Clean = Callable[[str, Any], Any]
"""Checks one entry (its key is an absolute path): the value to keep, a :class:`Partly`, or ``None`` to skip it."""


class UserRecords:
    """One versioned JSON file of per-repository records.

    Attributes:
        path: where the file lives.
        warnings: what the last read found wrong (damaged file, skipped entries).
    """

    def __init__(self, path: Path, *, version: int, what: str, when_damaged: str, clean: Clean,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        """
        Args:
            path: the file.
            version: the format version written and accepted.
            what: what the file is, for messages (``trust list``).
            when_damaged: what a damaged file means, for messages (``no repository is trusted``).
            clean: checks each entry.
            max_bytes: a larger file is treated as damaged.
        """
        self.path = path
        self.version = version
        self.what = what
        self.when_damaged = when_damaged
        self.clean = clean
        self.max_bytes = max_bytes
        self.warnings: list[str] = []

    @staticmethod
    def key(root: Path) -> str:
        """How a repository is recorded: its real path."""
        return os.path.realpath(root)

    def load(self) -> dict[str, Any]:
        """Every valid entry; a missing file is empty, a damaged one empty with a warning."""
        self.warnings = []
        try:
            if self.path.stat().st_size > self.max_bytes:
                return self._damaged("too large")
            data: Any = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            return self._damaged(type(exc).__name__)
        entries = data.get("repositories") if isinstance(data, dict) and data.get("version") == self.version else None
        if not isinstance(entries, dict):
            return self._damaged(f"not a version {self.version} {self.what}")
        out: dict[str, Any] = {}
        skipped = 0
        for key, value in entries.items():
            kept = self.clean(key, value) if isinstance(key, str) and os.path.isabs(key) else None
            if isinstance(kept, Partly):
                skipped += kept.skipped
                kept = kept.value or None
            elif kept is None:
                skipped += 1
            if kept is not None:
                out[key] = kept
        if skipped:
            self.warnings.append(f"{self.path}: {skipped} malformed entries skipped")
        return out

    @contextmanager
    def editing(self) -> Iterator[dict[str, Any]]:
        """The entries under the file's lock, written back when the block ends without an error.

        Raises:
            OSError: the folder, the lock or the file could not be made or written.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        lock = os.open(self.path.with_name(f".{self.path.name}.lock"),
                       os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = self.load()
            yield entries
            self._save(entries)
        finally:
            os.close(lock)

    def _damaged(self, why: str) -> dict[str, Any]:
        self.warnings.append(f"{self.path} cannot be read ({why}); {self.when_damaged}")
        return {}

    def _save(self, entries: dict[str, Any]) -> None:
        data = {"version": self.version, "repositories": dict(sorted(entries.items()))}
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            os.fchmod(fd, PRIVATE_FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


class RecordsBacked:
    """A store kept in one :class:`UserRecords` file (``self.records``): its path, warnings and key."""

    records: UserRecords

    @property
    def path(self) -> Path:
        """Where the file lives."""
        return self.records.path

    @property
    def warnings(self) -> list[str]:
        """What the last read found wrong."""
        return self.records.warnings

    key = staticmethod(UserRecords.key)
