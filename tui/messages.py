"""The Textual message that carries engine events into the UI.

Only :mod:`ljtui.tui.bridge` creates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from ljtui.core.events import Event


class EngineEventPosted(Message):
    """An engine event, delivered on the UI's event loop."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event
