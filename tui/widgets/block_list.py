"""The Diff pane's list of EDIT blocks: one line per block, drawn only where visible.

A Line API widget: a plan of thousands of blocks costs what its visible
rows cost, and a new picture of the review replaces a tuple, not widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from ljtui.core.display import shown, shown_line
from ljtui.tui import glyphs
from ljtui.tui.widgets.sized_scroll import SizedScrollView

if TYPE_CHECKING:
    from ljtui.core.review.views import BlockView

STATE_MARKS = {"accepted": glyphs.OK, "rejected": glyphs.REJECTED, "stale": glyphs.STALE, "failed": glyphs.FAILED,
               "checking": glyphs.PENDING}


def row_text(view: BlockView, selected: bool = False) -> Text:
    """``▸✓ EDIT 1  accepted  app.py  greet (~2) — why`` for an EDIT plan's block, ``▸✓ hunk 2/5  accepted
    src/app.py`` for a hunk of a diff or of another tool's blocks (the mark before the state is the selection's,
    as in the Plan pane; the file and the hint are the plan's: controls visible). What tells the rows apart comes
    first: a row too long for the pane is cut at its end."""
    mark = glyphs.SELECTED if selected else " "
    if view.hunk:
        return Text(f"{mark}{STATE_MARKS[view.state]} {view.hunk}  {view.state:<8}  {shown_line(view.file)}",
                    no_wrap=True, overflow="ellipsis")
    where = f"  {shown(view.where.replace('`', ''), one_line=True)}" if view.where else ""
    return Text(f"{mark}{STATE_MARKS[view.state]} EDIT {view.number}  {view.state:<8}  {shown_line(view.file)}"
                f"{where}", no_wrap=True, overflow="ellipsis")


class BlockList(SizedScrollView, can_focus=False):
    """The blocks of the plan under review; the pane that owns it moves the selection."""

    COMPONENT_CLASSES = {
        "block-list--accepted", "block-list--rejected", "block-list--stale", "block-list--failed",
        "block-list--checking", "block-list--selected",
    }

    DEFAULT_CSS = """
    BlockList {
        height: auto;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
        padding: 0 1;
        & > .block-list--accepted { color: $diff-added; }
        & > .block-list--rejected { color: $text-muted; }
        & > .block-list--stale { color: $warning; }
        & > .block-list--failed { color: $error; }
        & > .block-list--checking { color: $text-muted; }
        & > .block-list--selected { background: $primary-muted; text-style: bold; }
    }
    """

    class Clicked(Message):
        """A row was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.rows: tuple[BlockView, ...] = ()
        self.selected = 0

    def show(self, rows: tuple[BlockView, ...], selected: int) -> None:
        """Show ``rows`` with row ``selected`` highlighted and in view."""
        resized = len(rows) != len(self.rows)
        self.rows = rows
        self.selected = selected
        self.set_virtual_size(Size(self.scrollable_content_region.width, len(rows)))
        self.refresh(layout=resized)
        self.scroll_to_row(selected)

    def scroll_to_row(self, index: int) -> None:
        """Scroll as little as needed to bring row ``index`` into view."""
        height = self.scrollable_content_region.height
        if not height:
            self.call_after_refresh(self._scroll_after_layout, index)
            return
        top = int(self.scroll_y)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    def _scroll_after_layout(self, index: int) -> None:
        if self.scrollable_content_region.height:
            self.scroll_to_row(index)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, base)
        view = self.rows[index]
        style = self.get_component_rich_style(f"block-list--{view.state}")
        if index == self.selected:
            cursor = self.get_component_rich_style("block-list--selected")
            style += Style(bgcolor=cursor.bgcolor, bold=cursor.bold, italic=cursor.italic)
        text = row_text(view, index == self.selected)
        text.truncate(width, overflow="ellipsis", pad=True)
        text.stylize(style)
        return Strip(text.render(self.app.console), width).apply_style(style).apply_offsets(scroll_x, index)

    def _on_resize(self, event: events.Resize) -> None:
        self.set_virtual_size(Size(self.scrollable_content_region.width, len(self.rows)))
        self.scroll_to_row(self.selected)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and 0 <= offset.y + int(self.scroll_y) < len(self.rows):
            self.post_message(self.Clicked(offset.y + int(self.scroll_y)))
