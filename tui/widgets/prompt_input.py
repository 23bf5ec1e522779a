"""The input box at the bottom: messages and slash commands."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

PLACEHOLDER = "Ask for a change, or type /help"


class PromptInput(Input):
    """Single-line prompt; Enter sends."""

    DEFAULT_CSS = """
    PromptInput {
        border: tall $border-blurred;
        &:focus { border: tall $border; }
    }
    """

    def __init__(self, *, blink: bool = True, **kwargs: object) -> None:
        super().__init__(placeholder=PLACEHOLDER, select_on_focus=False, **kwargs)
        self.cursor_blink = blink

    async def _on_key(self, event: events.Key) -> None:
        """A ``?`` typed into an empty input opens help instead of being typed.

        Decided here, in order with the keys the input has taken, not by an app binding: bindings are
        checked when a key arrives, before the input has taken the keys typed just before it.
        """
        if event.character == "?" and not self.value:
            event.stop()
            event.prevent_default()
            await self.app.run_action("app.help")
