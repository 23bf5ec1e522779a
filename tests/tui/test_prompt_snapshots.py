"""The prompt at 80x24 and 120x40: a draft of several lines with a folded paste, and a box grown to its
six rows that scrolls to the line being typed.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

import pytest

from ljtui.tui.widgets.prompt_input import MAX_ROWS
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.test_prompt_editor import TRACEBACK, paste

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


async def _draft_with_a_paste(pilot) -> None:
    await settle(pilot)
    await pilot.press(*"/chat Why does this fail?", "ctrl+j")
    await paste(pilot, TRACEBACK)
    await pilot.press("ctrl+j", *"It started after the upgrade.")
    prompt = pilot.app.main_screen.prompt
    await until(pilot, lambda: prompt.text.endswith("upgrade.") and prompt.region.height == 5, "the draft's 3 rows")
    assert prompt.value == f"/chat Why does this fail?\n{TRACEBACK}\nIt started after the upgrade."


async def _box_at_its_rows(pilot) -> None:
    await settle(pilot)
    for n in range(1, MAX_ROWS + 3):
        await pilot.press(*f"line {n}", "ctrl+j")
    await pilot.press(*"the line being typed")
    prompt = pilot.app.main_screen.prompt
    await until(pilot, lambda: prompt.region.height == MAX_ROWS + 2 and prompt.scroll_y > 0, "the box full, scrolled")


@SIZES
def test_a_draft_of_three_lines_with_a_folded_62_line_paste(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_draft_with_a_paste)


@SIZES
def test_the_box_grown_to_six_rows_scrolls_to_the_line_typed(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_box_at_its_rows)
