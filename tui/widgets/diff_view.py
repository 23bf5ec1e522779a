"""The Diff pane's view of one block's diff: styled lines, drawn only where visible.

A Line API widget: the lines are rendered to strips as they scroll into
view, so a page of a long diff costs what the visible lines cost.
"""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

Place = Literal["top", "bottom", "keep"]
"""Where the view scrolls to when it shows new lines."""


class DiffView(ScrollView, can_focus=False):
    """Lines of a diff (with notes), scrollable both ways by keys the pane binds, or the mouse."""

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        border-top: solid $border-blurred;
        border-title-color: $text-muted;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.lines: list[Text] = []
        self._strips: dict[int, Strip] = {}

    def show(self, lines: list[Text], title: str | Text, place: Place = "top") -> None:
        """Show ``lines`` under ``title`` (plain text, never markup), scrolled to ``place``."""
        self.lines = lines
        self._strips.clear()
        self.border_title = Content(title) if isinstance(title, str) else title
        width = max((line.cell_len for line in lines), default=0)
        self.virtual_size = Size(width, len(lines))
        if place == "top":
            self.scroll_to(0, 0, animate=False, immediate=True)
        elif place == "bottom":
            self.scroll_to(0, max(0, len(lines) - self.scrollable_content_region.height), animate=False,
                           immediate=True)
        self.refresh()

    @property
    def at_top(self) -> bool:
        return self.scroll_y <= 0

    @property
    def at_bottom(self) -> bool:
        return self.scroll_y >= self.max_scroll_y

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self.lines):
            return Strip.blank(width, base)
        strip = self._strips.get(index)
        if strip is None:
            line = self.lines[index]
            strip = self._strips[index] = Strip(line.render(self.app.console), line.cell_len).apply_style(base)
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, index)
