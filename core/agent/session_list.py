"""Listing the sessions of a repository: newest first, each marked resumable or not.

Every log is read in full through the strict reader (a listing counts the
messages a resume would bring back), within bounds on how many logs and
how many bytes one listing reads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ljtui.core.agent.session_owners import SessionOwners, repo_trusted
from ljtui.core.agent.session_records import SESSION_ID
from ljtui.core.agent.session_replay import (
    LOG_SUFFIX, MAX_SESSION_BYTES, SESSIONS_DIR, Session, SessionUnreadable, read_session,
)
from ljtui.core.statedir import StateDirUnsafe, state_dir

MAX_LISTED_SESSIONS = 1000
"""Logs read by one listing (the newest by name)."""
MAX_LIST_BYTES = 256 * 1024 * 1024
"""Bytes one listing reads over all logs."""


@dataclass(frozen=True)
class SessionInfo:
    """One session in a listing.

    Attributes:
        id: The session id.
        started: When it started (seconds since the epoch).
        first_message: The first thing the user said in what a resume would bring back, shortened to one
            line (``""`` when a failed turn or a clear forgot every message).
        messages: Messages a resume would bring back (a failed or stopped turn forgets its messages).
        resumable: Whether it may be resumed here.
        foreign: True when this user did not create it on this machine.
        note: Why it may not be resumed ("" when it may).
    """

    id: str
    started: float
    first_message: str
    messages: int
    resumable: bool
    foreign: bool
    note: str = ""


@dataclass(frozen=True)
class SessionListing:
    """The sessions of a repository, newest first; ``problem`` is set when none could be listed."""

    sessions: tuple[SessionInfo, ...] = ()
    warnings: tuple[str, ...] = ()
    problem: str | None = None


def list_sessions(root: Path, *, env: Mapping[str, str] | None = None, owners: SessionOwners | None = None,
                  trusted: bool | None = None) -> SessionListing:
    """Every session logged in the repository at ``root``, newest first.

    Args:
        root: The repository root.
        env: Where the user's state and config dirs are found (default: the process's).
        owners: The user's record of their sessions (default: from ``env``).
        trusted: Whether the repository is trusted (default: the user's trust list).
    """
    try:
        ids = _logged_ids(root)
    except StateDirUnsafe as exc:
        return SessionListing(problem=exc.message)
    except OSError as exc:
        return SessionListing(problem=f"cannot list .agent/{SESSIONS_DIR}: {exc.strerror or exc}")
    owners = owners or SessionOwners.for_env(env)
    mine = owners.owned(root)
    warnings = list(owners.warnings)
    trust = (repo_trusted(root, env) if trusted is None else trusted) if set(ids) - mine else False
    if len(ids) > MAX_LISTED_SESSIONS:
        warnings.append(f"{len(ids) - MAX_LISTED_SESSIONS} older sessions are not listed")
    infos, budget = [], MAX_LIST_BYTES
    for session_id in ids[:MAX_LISTED_SESSIONS]:
        limit = min(MAX_SESSION_BYTES, budget)
        session = read_session(root, session_id, limit=limit)
        if isinstance(session, SessionUnreadable):
            warnings.append(f"skipped: {session.message}")
            continue
        if not session.complete and limit < MAX_SESSION_BYTES:
            warnings.append(f"session {session_id} and older ones were not read: "
                            f"a listing reads at most {MAX_LIST_BYTES} bytes")
            break
        budget -= session.size
        warnings.extend(session.warnings)
        infos.append(_info(session, session_id in mine, trust))
    infos.sort(key=lambda i: (i.started, i.id), reverse=True)
    return SessionListing(tuple(infos), tuple(warnings))


def _logged_ids(root: Path) -> list[str]:
    """Ids of the logs in ``.agent/sessions``, newest name first."""
    directory = state_dir(root, SESSIONS_DIR, create=False)
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    try:
        names = os.listdir(fd)
    finally:
        os.close(fd)
    stems = (name[:-len(LOG_SUFFIX)] for name in names if name.endswith(LOG_SUFFIX))
    return sorted((s for s in stems if SESSION_ID.fullmatch(s)), reverse=True)


def _info(session: Session, mine: bool, trusted: bool) -> SessionInfo:
    note = ""
    if not session.complete:
        note = f"larger than {MAX_SESSION_BYTES} bytes: not resumed"
    elif not mine and not trusted:
        note = "not created by you on this machine: `ljtui trust` allows resuming it"
    return SessionInfo(session.id, session.header.started, session.first_message, len(session.history),
                       not note, not mine, note)
