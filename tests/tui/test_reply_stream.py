"""A streamed reply: shown at once, then redrawn a limited number of times a second, complete at its end."""

from __future__ import annotations

import gc

import pytest

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from ljtui.core.events import Notice
from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.widgets.conversation import (
    REPLY_LOOP_SHARE, REPLY_MAX_UPDATE_GAP, REPLY_UPDATES_PER_SECOND, Conversation, reply_parser, update_gap,
)
from tests.tui.conftest import AppFactory, until

PIECES = 200


class ConversationApp(App):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0)


async def test_pieces_arriving_together_are_drawn_in_one_update_and_the_end_shows_them_all() -> None:
    app = ConversationApp()
    async with app.run_test() as pilot:
        conv = app.query_one(Conversation)
        updates: list[str] = []
        await conv.append_reply("first ")
        [reply] = conv.query(Markdown)
        await until(pilot, lambda: reply.source == "first ", "the first piece, shown at once")
        original = reply.append
        reply.append = lambda text: (updates.append(text), original(text))[1]  # type: ignore[method-assign]
        for n in range(PIECES):
            await conv.append_reply(f"w{n} ")
        await until(pilot, lambda: bool(updates), "one update for the pieces gathered so far")
        assert len(updates) < PIECES / 10, "pieces are gathered, not drawn one by one"
        await conv.append_reply("last")
        await conv.end_reply()
        assert reply.source == "first " + "".join(f"w{n} " for n in range(PIECES)) + "last"
        assert drawn(reply) == reply.source.split(), "the drawn reply is the whole reply"


def drawn(reply: Markdown) -> list[str]:
    """The words the reply's paragraphs draw."""
    return " ".join(str(p.render()) for p in reply.query("MarkdownParagraph")).split()


async def test_replies_streamed_with_pauses_anywhere_are_drawn_whole() -> None:
    import random

    rng = random.Random(5)
    app = ConversationApp()
    async with app.run_test() as pilot:
        conv = app.query_one(Conversation)
        for round_ in range(5):
            words = [f"r{round_}w{n}" for n in range(rng.randint(20, 200))]
            for word in words:
                await conv.append_reply(word + " ")
                if rng.random() < 0.1:
                    await pilot.pause(rng.choice([0, 0.01, 2 / REPLY_UPDATES_PER_SECOND]))
            [*_, reply] = conv.query(Markdown)
            await conv.end_reply()
            await pilot.pause()
            assert drawn(reply) == words


async def test_gathered_pieces_show_without_waiting_for_the_end() -> None:
    app = ConversationApp()
    async with app.run_test() as pilot:
        conv = app.query_one(Conversation)
        await conv.append_reply("a ")
        await conv.append_reply("b")
        [reply] = conv.query(Markdown)
        await pilot.pause(2 / REPLY_UPDATES_PER_SECOND)
        await until(pilot, lambda: reply.source == "a b", "the gathered piece, drawn by the timer")


def test_replies_keep_markdown_links_but_do_not_scan_for_bare_urls() -> None:
    tokens = reply_parser().parseInline("see [docs](https://example.com/a) or https://example.com/b")
    kinds = [child.type for child in tokens[0].children or []]
    assert kinds.count("link_open") == 1
    assert reply_parser().parse("| a |\n| - |\n| 1 |\n")[0].type == "table_open", "tables still render"


async def test_an_event_arriving_while_the_app_closes_is_dropped(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test():
        pass
    assert not app.screen_stack
    await app.on_engine_event_posted(EngineEventPosted(Notice("late")))  # no IndexError
    assert gc.isenabled()


async def test_an_event_arriving_while_the_main_screen_closes_is_dropped_but_one_while_it_runs_is_not(
        make_app: AppFactory) -> None:
    from textual.css.query import NoMatches

    from ljtui.core.events import ConfigChanged

    app = make_app()
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.main_screen.is_attached, "the main screen")
        await app.main_screen.query_one("StatusBar").remove()
        with pytest.raises(NoMatches):  # while the app runs, a missing pane is a fault, not hidden
            await app.on_engine_event_posted(EngineEventPosted(ConfigChanged("scripted")))
        app.main_screen._closing = True  # as while the app tears its screens down
        await app.on_engine_event_posted(EngineEventPosted(ConfigChanged("scripted")))
        app.main_screen._closing = False


async def test_a_reply_is_set_apart_from_the_question_a_tool_call_and_a_notice(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test():
        conv = app.main_screen.conversation
        await conv.remove_children()
        conv.add_user("why?")
        await conv.append_reply("Because.")
        await conv.tool_started("call-1", "read_file app.py")
        conv.tool_finished("call-1", "read_file app.py", True, "text")
        await conv.append_reply("Read it.")
        await conv.end_reply()
        conv.add_notice("Applied 1 block.", "info")
        await conv.append_reply("Done.")
        await conv.end_reply()
        first, second, third = conv.query(Markdown)
        assert [r.has_class("-set-apart") for r in (first, second, third)] == [True, True, True]


def test_slow_updates_of_a_streamed_reply_are_spaced_to_leave_the_event_loop_free() -> None:
    fastest = 1 / REPLY_UPDATES_PER_SECOND
    assert update_gap(0.001) == fastest, "cheap updates: the usual rate"
    assert update_gap(0.05) == pytest.approx(0.05 / REPLY_LOOP_SHARE), "a 50 ms update waits for its share"
    assert update_gap(0.05) > fastest
    assert update_gap(10.0) == REPLY_MAX_UPDATE_GAP, "however slow, the reply keeps moving"
