"""Editing one task's description in place: an input laid over the task's line in the Plan pane.

It is a modal layer of its own so that every key goes to the text (the
pane's single-letter actions and the input box stay out of it), it drops
keys typed before it opened, and Escape cancels the edit only.
"""

from __future__ import annotations

from textual import _time
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.content import Content
from textual.widgets import Input, Static

MAX_DESCRIPTION_CHARS = 500
"""Longest task description the input takes (core's limit for a task)."""
EDIT_KEYS = "⏎ save the task  esc cancel the edit"
"""The footer while a task is edited: the keys that work now (not the plan's Run and Reject)."""


class TaskEditInput(Input):
    """The one-line input of a task being edited."""

    DEFAULT_CSS = """
    TaskEditInput {
        border: none;
        height: 1;
        padding: 0 0;
        background: $primary-muted;
        &:focus { border: none; }
    }
    """


class TaskEditScreen(ModalScreen[str | None]):
    """Enter saves the text, Escape cancels; the screen underneath stays visible."""

    DEFAULT_CSS = """
    TaskEditScreen {
        background: transparent;
        layout: vertical;
    }
    TaskEditScreen #task-edit-keys {
        dock: bottom;
        height: 1;
        width: 100%;
        background: $panel;
        color: $text;
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel the edit", show=False)]

    def __init__(self, text: str, place: Region) -> None:
        """
        Args:
            text: the description to start from.
            place: where the input goes, in screen cells (the task's line).
        """
        super().__init__()
        self.text = text
        self.place = place
        self.opened_at = _time.get_time()
        """When the edit opened; keys pressed before it are not for it."""

    def compose(self) -> ComposeResult:
        field = TaskEditInput(self.text, max_length=MAX_DESCRIPTION_CHARS, select_on_focus=False, id="task-edit")
        field.styles.offset = (self.place.x, self.place.y)
        field.styles.width = max(1, self.place.width)
        yield field
        yield Static(Content(EDIT_KEYS), id="task-edit-keys")

    def on_mount(self) -> None:
        self.opened_at = _time.get_time()
        self.query_one(TaskEditInput).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
