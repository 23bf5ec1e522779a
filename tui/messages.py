"""The Textual message that carries engine events into the UI.

Only :mod:`ljtui.tui.bridge` creates it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from ljtui.core.events import Event, TokenDelta


class ReplyText:
    """The pieces of a reply streamed since the UI last took them: one message however many pieces.

    A model (or a script) can stream text faster than the UI draws it; one
    message per piece let the app's queue grow with the reply (a gigabyte
    for a 10 MB reply of single words). Pieces are added here until the UI
    takes them, so at most one message of a reply's text waits at a time.
    """

    def __init__(self, turn: int, text: str) -> None:
        self.turn = turn
        self._pieces = [text]
        self._taken = False
        self._lock = threading.Lock()

    def add(self, turn: int, text: str) -> bool:
        """Add a piece of turn ``turn``; False once the UI has taken the text (or for another turn)."""
        with self._lock:
            if self._taken or turn != self.turn:
                return False
            self._pieces.append(text)
            return True

    def take(self) -> TokenDelta:
        """Every piece so far, as one event; later pieces go to a new message."""
        with self._lock:
            self._taken = True
            text = "".join(self._pieces)
            self._pieces.clear()
        from ljtui.core.events import TokenDelta  # the event classes load on first use, not at start-up

        return TokenDelta(self.turn, text)


class EngineEventPosted(Message):
    """An engine event, delivered on the UI's event loop (streamed text as :class:`ReplyText`)."""

    def __init__(self, event: Event | ReplyText) -> None:
        super().__init__()
        self._event = event

    @property
    def event(self) -> Event:
        """The event; for streamed text, every piece added until now."""
        event = self._event
        if isinstance(event, ReplyText):
            self._event = event = event.take()
        return event
