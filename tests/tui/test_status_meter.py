"""The status bar's context meter, the session's cost and "waiting for you": the meter's text and level against
the model's window, what is left out first when the bar is narrow, and the state while a dialog or a plan waits."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from ljtui.core.events import ContextWindowKnown, Usage, UsageRecorded
from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.status_bar import WAITING, StatusBar, context_meter, meter_level
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.plan_helpers import Asked, ask, pane, post
from tests.tui.test_notify import ask_in_a_dialog

SMALL, LARGE = (80, 24), (120, 40)
CALL = Usage(input_tokens=5_200, output_tokens=300, cache_read_tokens=40)


def test_the_meter_shows_the_share_used_and_what_is_left_in_eight_cells() -> None:
    assert str(context_meter(2_800, 8_192)) == "▰▰▰▱▱▱▱▱ 34% · 5.4k left"
    assert str(context_meter(2_800, 8_192, bar=False)) == "34% · 5.4k left"
    assert str(context_meter(0, 200_000)) == "▱▱▱▱▱▱▱▱ 0% · 200.0k left"
    assert str(context_meter(9_000, 8_192)) == "▰▰▰▰▰▰▰▰ 100% · 0 left", "past the window: full, nothing left"


def test_without_a_known_window_only_the_tokens_used_show() -> None:
    assert str(context_meter(4_900, None)) == "context 4.9k"
    assert context_meter(0, None) is None, "nothing before the first call"


@pytest.mark.parametrize(("used", "level", "style"), [(5_700, "ok", "$text-success"),
                                                       (5_800, "warning", "$text-warning"),
                                                       (7_500, "error", "bold $text-error")])
def test_the_meter_is_coloured_by_its_level(used: int, level: str, style: str) -> None:
    percent = round(100 * used / 8_192)
    assert meter_level(percent) == level
    meter = context_meter(used, 8_192)
    assert meter is not None and [span.style for span in meter.spans] == [style]


class BarApp(App[None]):
    """The status bar alone, at the width of the terminal."""

    def compose(self) -> ComposeResult:
        yield StatusBar()


def _fill(bar: StatusBar, *, window: int | None = 8_192, cost: float | None = 0.1234) -> None:
    bar.provider = "anthropic claude-sonnet-4-5"
    bar.usage = Usage(48_000, 2_100, 12_000)
    bar.context_used, bar.window, bar.cost = 2_800, window, cost
    bar.branch, bar.busy, bar.layer_mode = "main", True, "direct"


async def _bar_text(width: int, **fill: object) -> str:
    app = BarApp()
    async with app.run_test(size=(width, 3)) as pilot:
        bar = app.query_one(StatusBar)
        _fill(bar, **fill)  # type: ignore[arg-type]
        await pilot.pause()
        return str(bar.render())


async def test_a_wide_bar_shows_every_segment() -> None:
    text = await _bar_text(200)
    assert text == ("anthropic claude-sonnet-4-5  │  tokens in 48.0k out 2.1k cached 12.0k  │  "
                    "▰▰▰▱▱▱▱▱ 34% · 5.4k left  │  $0.12  │  direct  │  branch main  │  working")


async def test_at_120_columns_the_token_counts_go_first() -> None:
    text = await _bar_text(120)
    assert text == ("anthropic claude-sonnet-4-5 │ ▰▰▰▱▱▱▱▱ 34% · 5.4k left │ $0.12 │ direct │ branch main │ "
                    "working")


async def test_at_80_columns_the_bar_goes_and_the_branch_and_what_is_left_stay() -> None:
    text = await _bar_text(80)
    assert text == "anthropic claude-sonnet-4-5 │ 34% · 5.4k left │ $0.12 │ branch main │ working"
    assert len(text) <= 78


async def test_an_unknown_window_and_price_show_the_tokens_used_and_no_cost() -> None:
    text = await _bar_text(120, window=None, cost=None)
    assert "context 2.8k" in text and "$" not in text and "left" not in text


async def test_a_model_call_moves_the_meter_in_the_app(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        post(app, ContextWindowKnown(8_192, "configured"),
             UsageRecorded(1, CALL, CALL, 0.0201, 0.0201))
        status = app.main_screen.status
        await until(pilot, lambda: status.window == 8_192 and status.cost is not None, "the call's usage")
        text = str(status.render())
        assert "▰▰▰▰▰▱▱▱ 68% · 2.7k left" in text and "$0.02" in text, text


async def test_a_dialog_waiting_says_waiting_for_you_not_working(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        status = app.main_screen.status
        status.busy = True
        decided = ask_in_a_dialog(app)
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the dialog")
        text = str(status.render())
        assert text.endswith(WAITING) and "working" not in text, text
        await pilot.press("escape")
        await until(pilot, lambda: bool(decided), "the answer")
        assert str(status.render()).endswith("working") and not status.waiting


async def test_a_plan_waiting_for_approval_says_waiting_for_you(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        asked: Asked = await ask(pilot)
        assert app.main_screen.status.waiting and WAITING in str(app.main_screen.status.render())
        await pilot.press("escape")
        await until(pilot, lambda: asked.decision is not None, "the plan rejected")
        assert not app.main_screen.status.waiting and not pane(app).approving


async def _metered(pilot) -> None:
    await settle(pilot)
    post(pilot.app, ContextWindowKnown(8_192, "configured"), UsageRecorded(1, CALL, CALL, 0.0201, 0.0201))
    await until(pilot, lambda: pilot.app.main_screen.status.cost is not None, "the call's usage")
    await settle(pilot)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_the_meter_and_cost_in_the_status_bar(snap_compare, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_metered)
