"""Which sessions this user created on this machine, kept outside every repository.

A repository can commit ``.agent/sessions/``, so a session log found there
may be someone else's. The ids of the sessions ljtui creates are recorded in
the user's state dir (``sessions.json``), keyed by the repository's real
path; only those may be resumed unless the user trusts the repository. The
file is kept as :class:`~ljtui.core.user_records.UserRecords`: anything
malformed counts as "no session recorded", with a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ljtui.core.agent.session_records import SESSION_ID
from ljtui.core.user_records import RecordsBacked, UserRecords
from ljtui.core.userdirs import user_state_dir

OWNERS_FILE = "sessions.json"
OWNERS_VERSION = 1
MAX_OWNERS_FILE_BYTES = 16 * 1024 * 1024
"""A larger file is treated as damaged."""
MAX_SESSIONS_PER_REPO = 10_000
"""Ids kept per repository; the oldest (smallest, as ids sort by time) are forgotten first."""


class SessionOwners(RecordsBacked):
    """The user's record of the sessions they created, per repository."""

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=OWNERS_VERSION, what="session list",
                                   when_damaged="no session counts as yours", clean=_ids,
                                   max_bytes=MAX_OWNERS_FILE_BYTES)


    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> SessionOwners:
        """The record in the user's state dir."""
        return cls(user_state_dir(env) / OWNERS_FILE)


    def owned(self, root: Path) -> frozenset[str]:
        """Ids of the sessions this user created in the repository at ``root``."""
        return frozenset(self.records.load().get(self.key(root), ()))

    def record(self, root: Path, session_id: str) -> None:
        """Remember that this user created ``session_id`` in the repository at ``root``.

        Raises:
            OSError: The state dir or the file could not be written.
        """
        with self.records.editing() as repos:
            ids = sorted({*repos.get(self.key(root), ()), session_id})
            repos[self.key(root)] = ids[-MAX_SESSIONS_PER_REPO:]


def _ids(_: str, ids: Any) -> list[str] | None:
    ok = isinstance(ids, list) and all(isinstance(i, str) and SESSION_ID.fullmatch(i) for i in ids)
    return ids if ok else None


def repo_trusted(root: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether the user trusts the repository at ``root`` (its sessions may then be resumed)."""
    from ljtui.core.trust import TrustStore

    return TrustStore.for_env(env).is_trusted(root)
