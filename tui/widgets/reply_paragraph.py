"""A Markdown paragraph of a reply that wraps once and draws only the lines on screen.

Textual draws a widget by rendering every line of it whenever it changes,
and wraps its text twice (once for the layout's height, once to draw). A
streamed reply whose last paragraph (or soft-wrapped text) is hundreds of
lines long is redrawn several times a second, so that work grew with the
reply and held the event loop long enough for keys to wait behind it.
:class:`ReplyParagraph` wraps the text once per text and width, and turns a
wrapped line into a strip only when the compositor asks for that line:
what it draws is Textual's own formatted line, identical to what
:class:`~textual.widgets._markdown.MarkdownParagraph` draws.

While text is selected, or with a content alignment other than top-left,
it draws as Textual does (those cases need every line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence, overload

from textual.content import Content
from textual.strip import Strip
from textual.widget import _RenderCache
from textual.widgets._markdown import MarkdownParagraph

if TYPE_CHECKING:
    from textual.content import _FormattedLine
    from textual.style import Style

TAB_SIZE = 8
"""Tab width Textual's ``Content.render_strips`` uses."""


class LazyStrips(Sequence[Strip]):
    """The strips of formatted lines, each made the first time it is read."""

    def __init__(self, lines: Sequence[_FormattedLine], height: int, make: Callable[[_FormattedLine], Strip]) -> None:
        self._lines = lines
        self._height = min(height, len(lines))
        self._make = make
        self._made: dict[int, Strip] = {}

    def __len__(self) -> int:
        return self._height

    @property
    def made(self) -> int:
        """How many strips have been made so far."""
        return len(self._made)

    @overload
    def __getitem__(self, index: int) -> Strip: ...

    @overload
    def __getitem__(self, index: slice) -> list[Strip]: ...

    def __getitem__(self, index: int | slice) -> Strip | list[Strip]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._height))]
        if index < 0:
            index += self._height
        if not 0 <= index < self._height:
            raise IndexError(index)
        strip = self._made.get(index)
        if strip is None:
            strip = self._made[index] = self._make(self._lines[index])
        return strip


class ReplyParagraph(MarkdownParagraph):
    """A reply's paragraph: one wrap per text and width; only the lines on screen are drawn."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._wrapped: tuple[Content, int, tuple[object, ...], list[_FormattedLine]] | None = None

    def _lazy_text(self) -> Content | None:
        """The text to draw line by line, or None when Textual must draw every line itself."""
        visual = self._render()
        if not isinstance(visual, Content) or self.text_selection is not None:
            return None
        if self.styles.content_align != ("left", "top"):
            return None
        return visual

    def _wrap(self, text: Content, width: int) -> list[_FormattedLine]:
        """``text`` wrapped to ``width`` exactly as ``Content.render_strips`` wraps it (cached)."""
        get_rule = self.styles.get_rule
        rules = (get_rule("text_align", "left"), get_rule("text_overflow", "fold"),
                 get_rule("text_wrap", "wrap") == "nowrap", get_rule("line_pad", 0))
        cached = self._wrapped
        if cached is not None and cached[0] is text and cached[1] == width and cached[2] == rules:
            return cached[3]
        align, overflow, no_wrap, line_pad = rules
        lines = text._wrap_and_format(width, align=align, overflow=overflow, no_wrap=no_wrap, line_pad=line_pad,
                                      tab_size=TAB_SIZE, get_style=self._get_style)
        self._wrapped = (text, width, rules, lines)
        return lines

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[no-untyped-def]
        text = self._lazy_text()
        if text is None or not width:
            return super().get_content_height(container, viewport, width)
        return len(self._wrap(text, width))

    def _render_content(self) -> None:
        text = self._lazy_text()
        width, height = self.size
        if text is None or not width:
            super()._render_content()
            return
        style = self.visual_style
        link_style: Style | None = None
        if self.auto_links and not self.screen._selecting:
            link_style = self.link_style

        def make(line: _FormattedLine) -> Strip:
            strip = Strip(*line.to_strip(style))
            return strip if link_style is None else strip._apply_link_style(link_style)

        self._render_cache = _RenderCache(self.size, LazyStrips(self._wrap(text, width), height, make))  # type: ignore[arg-type]
        self._dirty_regions.clear()
