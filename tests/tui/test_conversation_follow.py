"""The Conversation follows new output while its view is at the end, and says when output lands below."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from ljtui.tui.widgets.conversation import Conversation, NoticeLine
from ljtui.tui.widgets.follow import NEW_BELOW, NewBelow
from tests.tui.conftest import until

NOTICES = 40


class ConversationApp(App):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0)

    def on_mount(self) -> None:
        self.query_one(Conversation).focus()


async def _filled(pilot) -> Conversation:
    conv = pilot.app.query_one(Conversation)
    for n in range(NOTICES):
        conv.add_notice(f"notice {n}")
    await pilot.pause()
    await until(pilot, lambda: conv.max_scroll_y > 0 and conv.scroll_y == conv.max_scroll_y, "the view at the end")
    return conv


def _last_notice_visible(conv: Conversation) -> bool:
    last = conv.query(NoticeLine).last()
    return conv.scrollable_content_region.contains_region(last.region)


async def test_new_output_while_scrolled_up_keeps_the_place_and_shows_the_marker_until_end() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        await pilot.press("pageup")
        await pilot.pause()
        place = conv.scroll_y
        assert place < conv.max_scroll_y - 1 and not conv.new_below
        conv.add_notice("arrived below")
        await pilot.pause()
        await pilot.pause()
        assert conv.scroll_y == place, "the view keeps its place"
        assert conv.new_below and not _last_notice_visible(conv)
        [marker] = conv.query(NewBelow)
        assert str(marker.render()) == NEW_BELOW
        assert marker.region.bottom == conv.scrollable_content_region.bottom, "docked at the pane's bottom"
        assert conv.children[-1] is conv.query(NoticeLine).last(), "the marker is not the log's last output"
        await pilot.press("end")
        await until(pilot, lambda: not conv.new_below, "the marker gone at the end")
        assert conv.scroll_y == conv.max_scroll_y and _last_notice_visible(conv)
        conv.add_notice("follows again")
        await until(pilot, lambda: _last_notice_visible(conv) and "follows again" in str(
            conv.query(NoticeLine).last().render()), "the new notice in view")
        assert not conv.new_below


async def test_scrolling_back_down_by_hand_hides_the_marker() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        await pilot.press("pageup")
        conv.add_notice("arrived below")
        await until(pilot, lambda: conv.new_below, "the marker")
        await pilot.press("pagedown", "pagedown")
        await until(pilot, lambda: not conv.new_below, "the marker gone at the end")
        conv.add_notice("in view")
        await until(pilot, lambda: _last_notice_visible(conv), "the new notice in view")


async def test_at_the_end_new_notices_keep_the_view_at_the_end() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        for n in range(10):
            conv.add_notice(f"more {n}")
            await pilot.pause()
            assert conv.scroll_y == conv.max_scroll_y and _last_notice_visible(conv)
        assert not conv.new_below


async def test_a_scroll_that_moves_nothing_does_not_stop_the_following() -> None:
    """A short log has nothing to scroll: PageUp there releases Textual's anchor without moving the view."""
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = app.query_one(Conversation)
        conv.add_notice("one")
        await pilot.pause()
        await pilot.press("pageup", "home")
        for n in range(NOTICES):
            conv.add_notice(f"notice {n}")
        await until(pilot, lambda: conv.max_scroll_y > 0 and _last_notice_visible(conv), "the last notice in view")
        assert not conv.new_below


async def test_a_view_one_row_above_the_end_still_follows() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        conv.scroll_to(y=conv.max_scroll_y - 1, animate=False, immediate=True)
        await pilot.pause()
        conv.add_notice("arrived")
        await until(pilot, lambda: _last_notice_visible(conv), "the new notice in view")
        assert not conv.new_below


async def test_a_streamed_reply_growing_at_the_end_stays_in_view() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        for n in range(120):
            await conv.append_reply(f"word{n} " + ("\n\n" if n % 10 == 9 else ""))
            if n % 15 == 0:
                await pilot.pause(0.1)
                assert conv.scroll_y == conv.max_scroll_y
        await conv.end_reply()
        await pilot.pause()
        reply = conv.query(Markdown).last()
        assert "word119" in reply.source
        await until(pilot, lambda: conv.scroll_y == conv.max_scroll_y
                    and reply.region.bottom <= conv.scrollable_content_region.bottom, "the reply's end in view")
        assert not conv.new_below


async def test_a_streamed_reply_while_scrolled_up_shows_the_marker() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        await pilot.press("home")
        await pilot.pause()
        for n in range(60):
            await conv.append_reply(f"word{n} ")
        await conv.end_reply()
        await pilot.pause()
        assert conv.scroll_y == 0 and conv.new_below


async def test_clearing_the_pane_removes_the_marker_too() -> None:
    app = ConversationApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        await pilot.press("home")
        conv.add_notice("below")
        await until(pilot, lambda: conv.new_below, "the marker")
        await conv.clear()
        await pilot.pause()
        assert not conv.children and not conv.new_below
