"""The waiting line: a model call's announcement keeps the label of the line already shown (the planner's turn)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from ljtui.tui.widgets.conversation import Conversation
from ljtui.tui.widgets.thinking import Thinking


class ConversationApp(App):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0)


async def test_an_announced_call_keeps_the_shown_label_moves_the_line_last_and_says_thinking_otherwise() -> None:
    app = ConversationApp()
    async with app.run_test() as pilot:
        conv = app.query_one(Conversation)
        conv.show_thinking("planning (turn 2/30)…")
        conv.add_notice("Routed to a task plan.")
        conv.show_thinking()
        await pilot.pause()
        [line] = conv.query(Thinking)
        assert line.label == "planning (turn 2/30)…" and conv.children[-1] is line
        conv.hide_thinking()
        conv.show_thinking()
        await pilot.pause()
        [line] = conv.query(Thinking)
        assert line.label == "thinking…"
