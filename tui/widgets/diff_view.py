"""The Diff pane's view of one block's diff: styled lines, drawn only where visible.

A Line API widget: the lines are rendered to strips as they scroll into
view, so a page of a long diff costs what the visible rows cost.

Long lines wrap by default: a line wider than the view goes on in rows
whose gutter (the column of the ``+``/``-`` mark) shows
:data:`~ljtui.tui.glyphs.CONTINUED`, so every character is on screen. How
many rows each line takes is counted from its width alone (no line is
rendered for that), again when the view's width changes. Unwrapped, the
view scrolls sideways and marks each row cut at an edge with
:data:`~ljtui.tui.glyphs.CUT`.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Literal

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.strip import Strip

from ljtui.tui import glyphs
from ljtui.tui.widgets.sized_scroll import SizedScrollView

Place = Literal["top", "bottom", "keep"]
"""Where the view scrolls to when it shows new lines."""

GUTTER = 2
"""Cells of a diff line's mark column (``+ ``, ``- ``, two spaces); continuation rows keep it."""
MIN_WRAP_WIDTH = GUTTER + 1
"""Narrower than this, lines are laid out as if the view were this wide."""
UNWRAPPED = " · no wrap"
"""Added to the title while lines are not wrapped."""


def row_starts(plain: str, cells: int, width: int) -> list[int]:
    """Where each row of a line wrapped at ``width`` cells starts (character offsets, the first row's 0).

    The first row holds ``width`` cells, each further row ``width - GUTTER`` after the continuation gutter.
    A row ends after its last space when that space is in the row's second half (words stay whole), else
    at the last character that fits; no character is left out.
    """
    if cells <= width:
        return [0]
    if cells == len(plain):
        return _starts_by_characters(plain, width)
    starts, used, room, space = [0], 0, width, -1
    for offset, char in enumerate(plain):
        size = get_character_cell_size(char)
        if used + size > room and used:
            row = starts[-1]
            start = space + 1 if space >= 0 and cell_len(plain[row:space + 1]) * 2 >= room else offset
            starts.append(start)
            used, room, space = cell_len(plain[start:offset]), width - GUTTER, -1
        if char == " ":
            space = offset
        used += size
    return starts


def _starts_by_characters(plain: str, width: int) -> list[int]:
    """:func:`row_starts` of a line whose every character is one cell wide."""
    starts, start, room = [0], 0, width
    while len(plain) - start > room:
        end = start + room
        space = plain.rfind(" ", start + room // 2, end)
        start = space + 1 if space >= 0 else end
        starts.append(start)
        room = width - GUTTER
    return starts


def row_count(plain: str, cells: int, width: int) -> int:
    """How many rows :func:`row_starts` gives (one, without looking at the line, when it fits)."""
    return 1 if cells <= width else len(row_starts(plain, cells, width))


class DiffView(SizedScrollView, can_focus=False):
    """Lines of a diff (with notes), wrapped or scrollable sideways by keys the pane binds, or the mouse."""

    COMPONENT_CLASSES = {"diff-view--cut"}

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        border-top: solid $border-blurred;
        border-title-color: $text-muted;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        & > .diff-view--cut { color: $accent; background: $boost; text-style: bold; }
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.lines: list[Text] = []
        self.wrap = True
        """Whether long lines go on in continuation rows (else the view scrolls sideways)."""
        self._title = Text()
        self._cells: list[int] = []
        self._starts: list[int] = [0]
        """The first row of each line when wrapped, and the row count last."""
        self._wrap_width = 0
        self._strips: dict[tuple[int, int], Strip] = {}

    def show(self, lines: list[Text], title: str | Text, place: Place = "top") -> None:
        """Show ``lines`` under ``title`` (plain text, never markup), scrolled to ``place``."""
        self.lines = lines
        self._cells = [line.cell_len for line in lines]
        self._title = Text(title) if isinstance(title, str) else title
        self._show_title()
        self._lay_out()
        if place == "top":
            self.scroll_to(0, 0, animate=False, immediate=True)
        elif place == "bottom":
            self.scroll_to(0, max(0, self.virtual_size.height - self.scrollable_content_region.height),
                           animate=False, immediate=True)
        self.refresh()

    def set_wrap(self, wrap: bool) -> None:
        """Wrap long lines (or stop), keeping the line at the top of the view there."""
        if wrap == self.wrap:
            return
        top = self.top_line
        self.wrap = wrap
        self._show_title()
        self._lay_out()
        self.scroll_to(0, self._row_of(top), animate=False, immediate=True)
        self.refresh()

    @property
    def top_line(self) -> int:
        """The index of the line at the top of the view."""
        row = int(self.scroll_y)
        return max(0, bisect_right(self._starts, row) - 1) if self.wrap else row

    @property
    def at_top(self) -> bool:
        return self.scroll_y <= 0

    @property
    def at_bottom(self) -> bool:
        return self.scroll_y >= self.max_scroll_y

    def scroll_sideways(self, step: int) -> None:
        """Unwrapped: scroll ``step`` half views right (left when negative)."""
        if not self.wrap:
            half = max(1, self.scrollable_content_region.width // 2)
            self.scroll_to(x=max(0, int(self.scroll_x) + step * half), animate=False, immediate=True)

    def scroll_line_start(self) -> None:
        """Unwrapped: back to the start of the lines."""
        self.scroll_to(x=0, animate=False, immediate=True)

    def scroll_line_end(self) -> None:
        """Unwrapped: to the end of the longest line in view."""
        if self.wrap:
            return
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        longest = max(self._cells[top:top + height], default=0)
        self.scroll_to(x=max(0, longest - self.scrollable_content_region.width), animate=False, immediate=True)

    def _show_title(self) -> None:
        self.border_title = self._title if self.wrap else self._title + Text(UNWRAPPED)

    def _lay_out(self) -> None:
        """Count the rows of every line (wrapped) and size the scrollable area."""
        self._strips.clear()
        if not self.wrap:
            self._starts = [0]
            self.set_virtual_size(Size(max(self._cells, default=0), len(self.lines)))
            return
        width = self._wrap_width = self._width_to_wrap()
        rows = (row_count(line.plain, cells, width) for line, cells in zip(self.lines, self._cells))
        self._starts = list(accumulate(rows, initial=0))
        self.set_virtual_size(Size(width, self._starts[-1]))

    def _width_to_wrap(self) -> int:
        """The view's width less its vertical scrollbar's (kept free whether it shows or not)."""
        return max(MIN_WRAP_WIDTH, self.content_region.width - self.styles.scrollbar_size_vertical)

    def _row_of(self, index: int) -> int:
        if not self.wrap:
            return index
        return self._starts[min(index, len(self._starts) - 1)]

    def _on_resize(self, event: events.Resize) -> None:
        if self.wrap and self._width_to_wrap() != self._wrap_width:
            top = self.top_line
            self._lay_out()
            self.scroll_to(0, self._row_of(top), animate=False, immediate=True)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if self.wrap:
            if row >= self._starts[-1]:
                return Strip.blank(width, base)
            index = bisect_right(self._starts, row) - 1
            strip = self._wrapped_row(index, row - self._starts[index])
            return strip.crop_extend(0, width, base).apply_offsets(0, row)
        if row >= len(self.lines):
            return Strip.blank(width, base)
        strip = self._strips.get((row, 0))
        if strip is None:
            line = self.lines[row]
            strip = self._strips[row, 0] = Strip(line.render(self.app.console), line.cell_len).apply_style(base)
        return self._marked(strip.crop_extend(scroll_x, scroll_x + width, base), row, scroll_x, width)\
            .apply_offsets(scroll_x, row)

    def _wrapped_row(self, index: int, part: int) -> Strip:
        """Row ``part`` of line ``index`` wrapped (after the first: the continuation gutter, then the text)."""
        strip = self._strips.get((index, part))
        if strip is not None:
            return strip
        line = self.lines[index]
        starts = row_starts(line.plain, self._cells[index], self._wrap_width)
        end = starts[part + 1] if part + 1 < len(starts) else len(line.plain)
        piece = line[starts[part]:end] if len(starts) > 1 else line
        if part:
            gutter = Text(glyphs.CONTINUED.ljust(GUTTER), style=line.get_style_at_offset(self.app.console, 0))
            piece = gutter + piece
        strip = Strip(piece.render(self.app.console), piece.cell_len).apply_style(self.rich_style)
        self._strips[index, part] = strip
        return strip

    def _marked(self, strip: Strip, index: int, scroll_x: int, width: int) -> Strip:
        """``strip`` (line ``index`` cut to the view) with :data:`~ljtui.tui.glyphs.CUT` at each edge it is cut at."""
        cells = self._cells[index]
        cut_right = cells > scroll_x + width
        cut_left = scroll_x > 0 and cells > 0
        if width < 2 or not (cut_left or cut_right):
            return strip
        mark = Segment(glyphs.CUT, self.rich_style + self.get_component_rich_style("diff-view--cut"))
        segments = list(strip.crop(1 if cut_left else 0, width - 1 if cut_right else width))
        return Strip([*([mark] if cut_left else []), *segments, *([mark] if cut_right else [])], width)
