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
        super().__init__(placeholder=PLACEHOLDER, select_on_focus=False, **kwargs)
        self.cursor_blink = blink

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """A ``?`` typed into an empty input opens help instead of being typed."""
        if character == "?" and not self.value:
            return False
        return super().check_consume_key(key, character)
