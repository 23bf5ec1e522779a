"""The input box at the bottom: messages and slash commands."""

from __future__ import annotations

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
        super().__init__(placeholder=PLACEHOLDER, **kwargs)
        self.cursor_blink = blink
