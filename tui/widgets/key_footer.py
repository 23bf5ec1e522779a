"""The footer: the keys that work where the focus is.

Textual's footer rebuilds itself every time the bindings change, and at
start-up (focus, mount, screen resume) they change several times within one
frame. This footer gathers those changes and rebuilds once per frame.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that rebuilds at most once per frame."""

    _rebuild_pending = False

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_pending = False
        await self.recompose()
