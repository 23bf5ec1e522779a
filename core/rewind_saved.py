"""Rewind of a saved session, with no app running (``ljtui rewind``): its messages from its log, the code through
the journal, the conversation by a ``Rewound`` record appended to the log.

Only a session this user created is cut (ljtui never appends to a log it did
not create); its code can be rewound whoever created it, as any undo can.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ljtui.core.asking import Ask
from ljtui.core.ports import Clock, EventSink
from ljtui.core.rewind import RewindPlace, points_of, rewind_to
from ljtui.core.rewind_events import CODE, RewindFinished, RewindPoint
from ljtui.core.rewind_log import LoggedMessage, LogUnreadable, logged_messages


@dataclass(frozen=True)
class SavedSession:
    """A saved session's id and the messages it can be rewound to (oldest first)."""

    id: str
    points: tuple[RewindPoint, ...]
    messages: int
    """Messages in the history its log brings back (the user's among them are the points)."""


def newest_session(root: Path) -> str | None:
    """The id of the newest session saved in the repository that may be resumed, if any."""
    from ljtui.core.agent.sessions import list_sessions

    listing = list_sessions(root)
    return next((s.id for s in listing.sessions if s.resumable), None)


def saved_session(root: Path, session_id: str) -> SavedSession:
    """The messages of ``session_id`` that it can be rewound to.

    Raises:
        LogUnreadable: The log cannot be read.
    """
    logged = logged_messages(root, session_id)
    points = points_of(root, logged, [(m.index, m.text) for m in logged])
    return SavedSession(session_id, tuple(points), _length(root, session_id, logged))


def _length(root: Path, session_id: str, logged: list[LoggedMessage]) -> int:
    from ljtui.core.agent.session_replay import Session, read_session

    session = read_session(root, session_id)
    if isinstance(session, Session):
        return len(session.history)
    return logged[-1].index + 1 if logged else 0


async def rewind_saved(root: Path, saved: SavedSession, number: int, mode: str, *, ask: Ask, sink: EventSink,
                       clock: Clock | None = None, env: Mapping[str, str] | None = None) -> bool:
    """Ask, then rewind ``saved`` to its message ``number``; False when refused, declined or unknown."""
    point = next((p for p in saved.points if p.number == number), None)
    if point is None:
        sink.emit(RewindFinished(number, mode, error=f"there is no message {number} in session {saved.id} "
                                                     f"(it has {len(saved.points)})"))
        return False
    if mode != CODE:
        from ljtui.core.agent.session_owners import SessionOwners

        if saved.id not in SessionOwners.for_env(env).owned(root):
            sink.emit(RewindFinished(number, mode, error=f"session {saved.id} was not created by you on this "
                                                         "machine: its conversation is not changed (--code "
                                                         "rewinds the files only)"))
            return False
    place = RewindPlace(root, sink, ask, clock, lambda index: _cut(root, saved.id, index), lambda note: None,
                        lambda index: saved.messages - index)
    return await rewind_to(place, point, mode)


def _cut(root: Path, session_id: str, index: int) -> None:
    """Append the cut to the session's own log, and wait for it to be on disk."""
    from ljtui.core.agent.session_replay import Session, read_session
    from ljtui.core.agent.sessions import SessionLog

    session = read_session(root, session_id)
    if not isinstance(session, Session):
        raise LogUnreadable(session.message)
    log = SessionLog.continuing(root, session)
    log.rewound(index, sync=True)
    log.close()


__all__ = ["LogUnreadable", "SavedSession", "newest_session", "rewind_saved", "saved_session"]
