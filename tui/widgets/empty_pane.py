"""A side pane that shows an honest empty state until it has content."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static


class EmptyState(Static):
    """The placeholder text of an empty pane."""

    DEFAULT_CSS = """
    EmptyState {
        color: $text-muted;
        padding: 0 1;
    }
    """


class SidePane(VerticalScroll):
    """Base of the Plan, Diff and Gates panes."""

    ALLOW_MAXIMIZE = True
    EMPTY_TEXT = ""

    def compose(self):  # type: ignore[override]
        yield EmptyState(self.EMPTY_TEXT)
