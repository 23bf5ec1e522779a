"""Continuing an earlier session in the running one: a function of the engine's session state (:class:`ResumeHost`).

:class:`~ljtui.core.engine.Engine` delegates ``resume`` here. The earlier session's log replaces the running
one's, and its history, summary, token totals and plan under review are put back in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ljtui.core.events import Notice, SessionResumed

if TYPE_CHECKING:
    from ljtui.core.agent.chat import Conversation
    from ljtui.core.agent.model_calls import ModelCalls
    from ljtui.core.agent.sessions import SessionLog
    from ljtui.core.ports import Clock, EventSink
    from ljtui.core.review.service import ReviewService


class ResumeHost(Protocol):
    """The session state a resume reads and replaces: the engine's."""

    session_log: SessionLog

    @property
    def repo_root(self) -> Path: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def sink(self) -> EventSink: ...

    @property
    def chat(self) -> Conversation: ...

    @property
    def model(self) -> ModelCalls: ...

    @property
    def review(self) -> ReviewService: ...


def resume(host: ResumeHost, session_id: str = "") -> bool:
    """Continue an earlier session: its history, summary, token totals and plan under review (put under
    review again only while it still applies to the files; an applied or stale one is told, not offered).

    Disk work: call from a thread. A session another user or a cloned
    repository left is refused unless the repository is trusted.

    Args:
        host: The running session, whose log and conversation are replaced.
        session_id: The session to continue; ``""`` resumes the newest session that may be resumed, other than
            the running one.

    Returns:
        Whether the session was resumed; a refusal is told as a notice.
    """
    from ljtui.core.agent.session_replay import transcript
    from ljtui.core.agent.sessions import SessionRefused, list_sessions, resume_session

    if not session_id:
        listing = list_sessions(host.repo_root)
        newest = next((s.id for s in listing.sessions if s.resumable and s.id != host.session_log.id), None)
        if newest is None:
            host.sink.emit(Notice(listing.problem or "There is no earlier session to resume here.", "error"))
            return False
        session_id = newest
    if session_id == host.session_log.id:
        host.sink.emit(Notice(f"Session {session_id} is the one running.", "warning"))
        return False
    outcome = resume_session(host.repo_root, session_id, clock=host.clock)
    if isinstance(outcome, SessionRefused):
        host.sink.emit(Notice(outcome.message, "error"))
        return False
    host.session_log.close()
    host.session_log, state = outcome.log, outcome.session
    host.chat.history = list(state.history)
    host.chat.summary = state.summary or ""
    host.model.usage, host.model.cost_usd = state.usage, state.cost_usd
    if state.plan is not None:
        host.review.resume_text(state.plan.text, state.plan.origin)
    host.sink.emit(SessionResumed(session_id, len(host.chat.history), host.model.usage,
                                  transcript(host.chat.history, state.notices), host.chat.summary))
    return True
