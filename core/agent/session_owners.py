"""Which sessions this user created on this machine, kept outside every repository.

A repository can commit ``.agent/sessions/``, so a session log found there
may be someone else's. The ids of the sessions ljtui creates are recorded in
the user's state dir (``sessions.json``), keyed by the repository's real
path; only those may be resumed unless the user trusts the repository. The
file is the user's, but it is still read defensively: anything malformed
counts as "no session recorded", with a warning.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.agent.session_records import SESSION_ID
from ljtui.core.userdirs import user_state_dir

OWNERS_FILE = "sessions.json"
OWNERS_VERSION = 1
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
MAX_OWNERS_FILE_BYTES = 16 * 1024 * 1024
"""A larger file is treated as damaged."""
MAX_SESSIONS_PER_REPO = 10_000
"""Ids kept per repository; the oldest (smallest, as ids sort by time) are forgotten first."""


class SessionOwners:
    """The user's record of the sessions they created, per repository."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> SessionOwners:
        """The record in the user's state dir."""
        return cls(user_state_dir(env) / OWNERS_FILE)

    @staticmethod
    def key(root: Path) -> str:
        """How a repository is recorded: its real path."""
        return os.path.realpath(root)

    def owned(self, root: Path) -> frozenset[str]:
        """Ids of the sessions this user created in the repository at ``root``."""
        return frozenset(self._load().get(self.key(root), ()))

    def record(self, root: Path, session_id: str) -> None:
        """Remember that this user created ``session_id`` in the repository at ``root``.

        Raises:
            OSError: The state dir or the file could not be written.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        lock = os.open(self.path.with_name(f".{self.path.name}.lock"),
                       os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            repos = self._load()
            ids = sorted({*repos.get(self.key(root), ()), session_id})
            repos[self.key(root)] = ids[-MAX_SESSIONS_PER_REPO:]
            self._save(repos)
        finally:
            os.close(lock)

    def _load(self) -> dict[str, list[str]]:
        self.warnings = []
        try:
            if self.path.stat().st_size > MAX_OWNERS_FILE_BYTES:
                return self._damaged("too large")
            data: Any = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            return self._damaged(type(exc).__name__)
        repos = data.get("repositories") if isinstance(data, dict) and data.get("version") == OWNERS_VERSION else None
        if not isinstance(repos, dict):
            return self._damaged(f"not a version {OWNERS_VERSION} session list")
        out: dict[str, list[str]] = {}
        for path, ids in repos.items():
            if isinstance(path, str) and os.path.isabs(path) and isinstance(ids, list) \
                    and all(isinstance(i, str) and SESSION_ID.fullmatch(i) for i in ids):
                out[path] = ids
            else:
                self.warnings.append(f"{self.path}: entry {path!r} is malformed; skipped")
        return out

    def _damaged(self, why: str) -> dict[str, list[str]]:
        self.warnings.append(f"{self.path} cannot be read ({why}); no session counts as yours")
        return {}

    def _save(self, repos: dict[str, list[str]]) -> None:
        data = {"version": OWNERS_VERSION, "repositories": dict(sorted(repos.items()))}
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, self.path)


def repo_trusted(root: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether the user trusts the repository at ``root`` (its sessions may then be resumed)."""
    from ljtui.core.trust import TrustStore

    return TrustStore.for_env(env).is_trusted(root)
