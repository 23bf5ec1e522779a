"""The help screen, page by page, at 80x24 and 120x40: every key and slash command readable, none cut.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from ljtui.tui.commands import ACTIONS
from ljtui.tui.screens.help import BUILT_IN_KEYS, HelpScreen, key_label, slash_lines
from tests.tui.conftest import AppFactory, until

SMALL = (80, 24)
LARGE = (120, 40)
PAGES = {SMALL: 12, LARGE: 6}
"""PageDown presses from the help's top to its end, plus one: the pages the snapshots show."""
SNAPSHOTS = Path(__file__).parent / "__snapshots__" / Path(__file__).stem


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def _open_at_page(page: int):
    async def run(pilot) -> None:
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
        for _ in range(page):
            await pilot.press("pagedown")
        await pilot.pause()

    return run


@pytest.mark.parametrize(("size", "page"), [(size, page) for size, pages in PAGES.items() for page in range(pages)],
                         ids=[f"{_size_id(size)}-page{page + 1}" for size, pages in PAGES.items()
                              for page in range(pages)])
def test_help_page(snap_compare, make_app: AppFactory, size: tuple[int, int], page: int) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_open_at_page(page))


def _words(text: str) -> str:
    return " ".join(text.split())


def _help_scroll(app) -> VerticalScroll:
    assert isinstance(app.screen, HelpScreen)
    return app.screen.query_one(VerticalScroll)


def drawn_text(app) -> str:
    """Every line the help's widgets draw at the screen's size (those scrolled out of view too), words
    separated by single spaces: a cell cut off at a widget's edge is missing from it."""
    lines: list[str] = []
    for widget in _help_scroll(app).query(Static):
        width, height = widget.outer_size
        assert width and height, f"{widget!r} is laid out"
        lines.extend(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))
    return _words(" ".join(lines))


@pytest.mark.parametrize("size", PAGES, ids=_size_id)
async def test_the_snapshot_pages_reach_the_end_of_the_help(make_app: AppFactory, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await _open_at_page(PAGES[size] - 2)(pilot)
        scroll = _help_scroll(app)
        assert scroll.scroll_y < scroll.max_scroll_y, f"fewer pages at {_size_id(size)}: lower PAGES"
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y, f"more pages at {_size_id(size)}: raise PAGES"


async def test_every_command_and_key_is_drawn_whole_at_80x24(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await _open_at_page(0)(pilot)
        text = drawn_text(app)
        for usage, what in slash_lines(ACTIONS):
            assert _words(usage) in text, usage
            assert _words(what) in text, what
        for action in ACTIONS.actions:
            if action.keys:
                title = re.sub(r"^(Diff|Plan|Gates) pane[:,] ", "", action.title)  # said by the keys' heading
                assert _words(f"{key_label(action.keys)} {title[:1].upper()}{title[1:]}") in text, action.id
        for _scope, keys, what in BUILT_IN_KEYS:  # Textual's own keys and the input box's
            assert _words(f"{key_label(keys)} {what}") in text, keys
        assert "In the input box (F6) Enter Send the message Ctrl+J Break the line (so do Shift+Enter and Alt+Enter" in text


ROW = re.compile(r'<text[^>]*clip-path="url\(#terminal-line-(\d+)\)"[^>]*>([^<]*)</text>')


def snapshot_rows(svg: str) -> list[str]:
    """The text of each terminal row of a snapshot."""
    rows: dict[int, str] = {}
    for number, text in ROW.findall(svg):
        rows[int(number)] = rows.get(int(number), "") + html.unescape(text).replace("\xa0", " ")
    return [rows[n] for n in sorted(rows)]


@pytest.mark.parametrize("size", PAGES, ids=_size_id)
def test_every_command_and_the_start_of_its_description_is_in_a_snapshot(size: tuple[int, int]) -> None:
    """Read from the stored snapshots, so a snapshot updated with a help that cuts words fails here."""
    rows = [row for page in range(PAGES[size])
            for row in snapshot_rows((SNAPSHOTS / f"test_help_page[{_size_id(size)}-page{page + 1}].svg")
                                     .read_text(encoding="utf-8"))]
    for usage, what in slash_lines(ACTIONS):
        name = usage.split()[0]
        start = " ".join(what.split()[:3])
        assert any(re.search(rf"(?<![\w/]){re.escape(name)}(?![\w-])", row) for row in rows), name
        assert any(start in row for row in rows), start
