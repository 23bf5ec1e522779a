"""The notices a session shows, kept in its log so a resumed conversation shows them again where they came.

:class:`NoticeRecorder` sits in the session's sink behind the redaction (what it keeps was already shown, with
the configured secrets taken out) and passes every event on; each notice, and the message of a failed turn,
becomes a ``notice`` record (:class:`~ljtui.core.agent.session_records.NoticeShown`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ljtui.core.events import Event, Notice, TurnFailed

if TYPE_CHECKING:
    from ljtui.core.agent.sessions import SessionLog
    from ljtui.core.ports import EventSink


def shown_notice(event: Event) -> tuple[str, str] | None:
    """``(level, text)`` of the notice ``event`` shows, or ``None`` when it is no notice."""
    if isinstance(event, Notice):
        return event.level, event.message
    if isinstance(event, TurnFailed):
        return "error", event.message
    return None


class NoticeRecorder:
    """An event sink that passes every event on and records the notices among them in the session's log.

    Args:
        inner: The sink every event goes to.
        log: The session's log now (a resume replaces it).
    """

    def __init__(self, inner: EventSink, log: Callable[[], SessionLog]) -> None:
        self.inner = inner
        self._log = log

    def emit(self, event: Event) -> None:
        self.inner.emit(event)
        notice = shown_notice(event)
        if notice is not None:
            self._log().notice(*notice)
