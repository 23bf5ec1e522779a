"""A scroll animation that lands near the end of a following log ends cleanly, whatever the load."""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets._collapsible import CollapsibleTitle

from ljtui.tui.widgets.tool_line import ToolCallLine
from tests.tui.conftest import until
from tests.tui.test_conversation_follow import ConversationApp, _filled


class FoldsApp(ConversationApp):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {"tool-call": "cyan"}  # ljtui's themes define it; the widget alone does not


async def _until(pilot, condition, what: str) -> None:
    """:func:`until`, ending early when the app failed (its error is raised as the test leaves ``run_test``)."""
    await until(pilot, lambda: pilot.app._exception is not None or condition(), what)


async def test_an_animated_scroll_ending_one_row_above_the_end_finishes_without_error() -> None:
    """The last frame puts the view within a row of the end: the log follows again, after the frame."""
    app = FoldsApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        conv.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        conv.scroll_to(y=conv.max_scroll_y - 1, animate=True, duration=0.05, immediate=True)
        await _until(pilot, lambda: not app.animator.is_being_animated(conv, "scroll_y"), "the animation over")
        await _until(pilot, lambda: conv.following, "the log following again")
    assert app.return_code in (0, None)


async def test_fold_toggles_and_animated_scrolls_while_a_reply_streams_end_cleanly() -> None:
    """Many folds opened and closed, and short scroll animations ending at and near the end, while a reply streams.

    Short animations are what a loaded box gives: the animator's first frame for them is already the last one.
    """
    app = FoldsApp()
    async with app.run_test(size=(60, 20)) as pilot:
        conv = await _filled(pilot)
        for n in range(6):
            await conv.tool_started(f"bash-{n}", f"bash echo {n}")
            conv.tool_output(f"bash-{n}", "\n".join(f"line {k}" for k in range(8)))
            conv.tool_finished(f"bash-{n}", f"bash echo {n}", True, "\n".join(f"out {k}" for k in range(8)))
        await pilot.pause()
        folds = list(conv.query(ToolCallLine))
        for n in range(45):
            if app._exception is not None:
                break  # raised as the test leaves run_test
            await conv.append_reply(f"word{n} " + ("\n\n" if n % 7 == 6 else ""))
            fold = folds[n % len(folds)]
            fold.collapsed = not fold.collapsed
            if n % 5 == 0:
                fold.query_one(CollapsibleTitle).focus()
                await pilot.press("enter")
            await pilot.pause()
            offset = n % 3  # at the end, one row above it, two rows above it
            conv.scroll_to(y=max(0, conv.max_scroll_y - offset), animate=True, duration=0.01, immediate=True)
            if offset == 1:  # this one ends where the log follows again: let it end before the reply grows
                await _until(pilot, lambda: not app.animator.is_being_animated(conv, "scroll_y"), "the animation over")
        await conv.end_reply()
        await _until(pilot, lambda: not app.animator.is_being_animated(conv, "scroll_y"), "the animations over")
        assert "word44" in conv.query(Markdown).last().source
    assert app.return_code in (0, None)
