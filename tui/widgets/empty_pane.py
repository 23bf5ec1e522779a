"""A side pane that shows an honest empty state until it has content."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static


class EmptyState(Static):
    """The placeholder text of an empty pane (plain text, never markup)."""

    DEFAULT_CSS = """
    EmptyState {
        color: $text-muted;
        padding: 0 1;
    }
    """

    def __init__(self, text: str, **kwargs: object) -> None:
        super().__init__(Content(text), **kwargs)  # type: ignore[arg-type]


class SidePane(VerticalScroll):
    """Base of the Plan, Diff and Gates panes."""

    ALLOW_MAXIMIZE = True
    EMPTY_TEXT = ""

    def compose(self):  # type: ignore[override]
        yield EmptyState(self.EMPTY_TEXT)
