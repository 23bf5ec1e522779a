"""A reply's paragraphs draw what Textual's Markdown paragraphs draw, making only the lines asked for."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Markdown

from ljtui.tui.widgets.conversation import new_reply, reply_parser
from ljtui.tui.widgets.reply_paragraph import LazyStrips, ReplyParagraph

SIZE = (60, 200)
SOURCE = (
    "Plain words, **bold words**, *slanted*, ~~struck~~ and `inline code` with a "
    "[link](https://example.com/a) in a paragraph long enough to wrap over several lines of the pane.\n"
    "A soft break joins this line to it.  \nA hard break starts a line.\n\n"
    "- an item whose text is long enough to wrap at least once in a narrow pane\n"
    "- another item\n\n"
    "> quoted text that also wraps when the pane is narrow enough for it to wrap\n\n"
    + " ".join(f"word{n}" for n in range(400))
)


def reference_reply() -> Markdown:
    """A reply widget drawn with Textual's own paragraph widget."""
    reply_class = type(new_reply())
    reference = type("ReferenceReply", (reply_class,), {"BLOCKS": Markdown.BLOCKS})
    return reference(parser_factory=reply_parser)  # type: ignore[misc]


class TwoReplies(App):
    def compose(self) -> ComposeResult:
        yield reference_reply()
        reply = new_reply()
        reply.id = "reply"
        yield reply


class OneReply(App):
    def compose(self) -> ComposeResult:
        reply = new_reply()
        reply.id = "reply"
        yield reply


def picture(markdown: Markdown) -> list[list[tuple[str, object]]]:
    """Every paragraph's lines, each as its segments (text and style, link and offset metadata included)."""
    out = []
    for paragraph in markdown.query("MarkdownParagraph"):
        width, height = paragraph.size
        for strip in paragraph.render_lines(Region(0, 0, width, height)):
            out.append([(seg.text, seg.style) for seg in strip])
    return out


async def test_reply_paragraphs_draw_exactly_what_textual_draws() -> None:
    app = TwoReplies()
    async with app.run_test(size=SIZE) as pilot:
        plain, reply = app.query(Markdown)
        await plain.update(SOURCE)
        await reply.update(SOURCE)
        await pilot.pause()
        assert not any(isinstance(p, ReplyParagraph) for p in plain.query("MarkdownParagraph"))
        paragraphs = list(reply.query("MarkdownParagraph"))
        assert paragraphs and all(isinstance(p, ReplyParagraph) for p in paragraphs)
        assert [p.size for p in paragraphs] == [p.size for p in plain.query("MarkdownParagraph")]
        assert picture(reply) == picture(plain)
        assert any(len(line) > 3 for line in picture(plain)), "styled lines are compared"


async def selected_picture(make: object) -> list[list[tuple[str, object]]]:
    """The picture of a reply built by ``make`` after selecting all text of its last paragraph."""

    class Selected(App):
        def compose(self) -> ComposeResult:
            yield make()  # type: ignore[operator]

    app = Selected()
    async with app.run_test(size=SIZE) as pilot:
        markdown = app.query_one(Markdown)
        await markdown.update(SOURCE)
        await pilot.pause()
        paragraph = list(markdown.query("MarkdownParagraph"))[-1]
        paragraph.text_select_all()
        await pilot.pause()
        assert paragraph.text_selection is not None
        return picture(markdown)


async def test_selected_text_in_a_reply_draws_as_in_textual() -> None:
    assert await selected_picture(new_reply) == await selected_picture(reference_reply)


async def test_a_long_paragraph_makes_only_the_lines_on_screen() -> None:
    app = OneReply()
    async with app.run_test(size=(60, 20)) as pilot:
        reply = app.query_one("#reply", Markdown)
        await reply.update(" ".join(f"word{n}" for n in range(4000)))
        await pilot.pause()
        [paragraph] = reply.query(ReplyParagraph)
        assert paragraph.size.height > 300
        lines = paragraph._render_cache.lines
        assert isinstance(lines, LazyStrips)
        assert 0 < lines.made <= 20, "only the lines the screen shows were drawn"


def test_lazy_strips_make_each_line_once_and_index_like_a_list() -> None:
    made: list[str] = []

    def make(line: str) -> Strip:
        made.append(line)
        return Strip.blank(1)

    strips = LazyStrips(["a", "b", "c", "d"], 3, make)  # type: ignore[arg-type]
    assert len(strips) == 3
    assert strips[1] is strips[1] and made == ["b"]
    assert strips[-1] is strips[2] and made == ["b", "c"]
    assert len(strips[0:2]) == 2 and made == ["b", "c", "a"]
    with pytest.raises(IndexError):
        strips[3]
    assert strips.made == 3
