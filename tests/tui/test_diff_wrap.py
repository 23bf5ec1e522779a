"""Every changed character of a diff is reachable by keyboard: long lines wrap by default, and unwrapped
they scroll sideways with a mark at each edge a row is cut at."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from ljtui.tui import glyphs
from ljtui.tui.widgets.diff_view import GUTTER, DiffView, row_count, row_starts
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.screen_check import drawn

SMALL = (80, 24)
LARGE = (120, 40)
SIZES = pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
LONG = ("    log.warning('the file %s does not decode in the encoding it declares at its top, so its text is read "
        "once more byte by byte and every part that fails is shown escaped, then the whole is read again, "
        "falling back to UTF-8', path)")
"""The added line: wider than the Diff pane at both sizes; its end is what the tests look for."""
END = "UTF-8', path)"


def long_line_plan(repo: Path) -> Path:
    """One block replacing a short line of ``enc.py`` with :data:`LONG`."""
    (repo / "enc.py").write_text("def read(path):\n    pass\n", encoding="utf-8")
    plan = repo / "plan.md"
    plan.write_text(f"### EDIT 1\n\n- file: `enc.py`\n- where: `read (~1)`\n\n```old\n    pass\n```\n\n"
                    f"```new\n{LONG}\n```\n", encoding="utf-8")
    return plan


async def _opened(pilot) -> None:
    await settle(pilot)
    await until(pilot, lambda: any("log.warning" in line.plain for line in _view(pilot.app).lines), "the diff")
    await pilot.pause()


def _view(app) -> DiffView:
    return app.main_screen.query_one(DiffView)


def _diff_rows(app) -> list[str]:
    """The Diff view's rows as drawn on screen, inside the pane's borders."""
    region = _view(app).scrollable_content_region
    lines = drawn(app).lines
    return [lines[y][region.x:region.right] for y in range(region.y, region.bottom)]


def _assert_wrapped(rows: list[str], width: int) -> None:
    """The added line is on screen whole: its first row, then continuation rows after their gutter, each
    holding its part of the line (:func:`row_starts` at the view's ``width``) and nothing after it."""
    line = "+ " + LONG
    starts = row_starts(line, len(line), width)
    first = next(i for i, row in enumerate(rows) if row.startswith("+ "))
    assert len(starts) > 1
    for part, (start, end) in enumerate(zip(starts, [*starts[1:], len(line)])):
        row = rows[first + part]
        gutter = GUTTER if part else 0
        if part:
            assert row.startswith(glyphs.CONTINUED + " ")
        assert row[gutter:gutter + end - start] == line[start:end] and not row[gutter + end - start:].strip()
    assert not rows[first + len(starts)].startswith(glyphs.CONTINUED)


@SIZES
async def test_a_long_line_wraps_with_every_character_on_screen(make_app: AppFactory, git_repo: Path, size) -> None:
    app = make_app(script=None, review_path=long_line_plan(git_repo))
    async with app.run_test(size=size) as pilot:
        await _opened(pilot)
        rows = _diff_rows(app)
        assert any(END in row for row in rows)
        _assert_wrapped(rows, _view(app).virtual_size.width)
        assert "no wrap" not in str(_view(app).border_title)


@SIZES
async def test_w_unwraps_and_the_keys_scroll_sideways_to_the_end(make_app: AppFactory, git_repo: Path, size) -> None:
    app = make_app(script=None, review_path=long_line_plan(git_repo))
    async with app.run_test(size=size) as pilot:
        await _opened(pilot)
        await pilot.press("w")
        await pilot.pause()
        view = _view(app)
        assert not view.wrap and "no wrap" in str(view.border_title)
        rows = _diff_rows(app)
        long_row = next(row for row in rows if "log.warning" in row)
        assert long_row.endswith(glyphs.CUT) and not any(END in row for row in rows)
        assert not any(row.startswith(glyphs.CONTINUED) for row in rows)
        for key in ["l", "right"] * 10:
            if any(END in row for row in _diff_rows(app)):
                break
            await pilot.press(key)
            await pilot.pause()
        rows = _diff_rows(app)
        assert any(row.rstrip().endswith(END) for row in rows)
        assert all(row.startswith(glyphs.CUT) for row in rows if row.strip())
        await pilot.press("home")
        await pilot.pause()
        assert view.scroll_x == 0 and not _diff_rows(app)[0].startswith(glyphs.CUT)
        await pilot.press("end")
        await pilot.pause()
        assert any(row.rstrip().endswith(END) for row in _diff_rows(app))
        await pilot.press("h", "left")
        await pilot.pause()
        assert not any(END in row for row in _diff_rows(app))
        await pilot.press("w")
        await pilot.pause()
        assert view.wrap and view.scroll_x == 0 and "no wrap" not in str(view.border_title)
        assert any(END in row for row in _diff_rows(app))


async def test_the_rows_are_counted_again_when_the_terminal_is_resized(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_line_plan(git_repo))
    async with app.run_test(size=LARGE) as pilot:
        await _opened(pilot)
        wide_rows = _view(app).virtual_size.height
        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        await pilot.pause()
        rows = _diff_rows(app)
        assert _view(app).virtual_size.height > wide_rows
        _assert_wrapped(rows, _view(app).virtual_size.width)


async def test_the_wrap_keys_are_listed_in_the_footer(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_line_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        assert "w Wrap" in drawn(app).lines[-1]


class _OneView(App[None]):
    def compose(self) -> ComposeResult:
        yield DiffView()


async def test_a_10000_line_diff_renders_only_the_rows_in_view() -> None:
    lines = [Text(f"+ line {i} " + "x" * (i % 300)) for i in range(10_000)]
    app = _OneView()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(DiffView)
        view.show(lines, "big.txt")
        await pilot.pause()
        width = view.virtual_size.width
        assert view.virtual_size.height == sum(row_count(t.plain, t.cell_len, width) for t in lines)
        assert 0 < len(view._strips) <= view.size.height
        view.scroll_to(y=view.max_scroll_y, animate=False, immediate=True)
        await pilot.pause()
        assert len(view._strips) <= 2 * view.size.height


async def test_the_scrollbar_follows_the_rows_as_soon_as_they_are_counted() -> None:
    """A layout that finds the view's size unchanged does not look at its scrollbars again, so the count of rows
    itself shows or hides them: a long diff has the scrollbar, a short one shown after it has none (a view first
    counted at no width, before its first layout, kept the long count's scrollbar at 60x15)."""
    app = _OneView()
    async with app.run_test(size=(60, 8)) as pilot:
        view = app.query_one(DiffView)
        view.show([Text(f"+ {n}") for n in range(20)], "long.txt")
        assert view.show_vertical_scrollbar
        view.show([Text(f"+ {n} fits on one row") for n in range(4)], "short.txt")
        assert not view.show_vertical_scrollbar, "a scrollbar kept from the long count"
        await pilot.pause()
        assert not view.show_vertical_scrollbar and view.max_scroll_y == 0


@pytest.mark.parametrize(("plain", "width", "starts"), [
    ("abcdef", 6, [0]),
    ("abcdefghij", 6, [0, 6]),
    ("abcdefghijklmn", 6, [0, 6, 10]),
    ("ab日本語cdef", 6, [0, 4, 7]),
    ("ab cd efgh ij", 6, [0, 6, 10]),
    ("a 日本語 cd", 6, [0, 4, 6]),
])
def test_row_starts(plain: str, width: int, starts: list[int]) -> None:
    text = Text(plain)
    assert row_starts(plain, text.cell_len, width) == starts
    assert row_count(plain, text.cell_len, width) == len(starts)


@SIZES
def test_snapshot_of_a_wrapped_long_line(snap_compare, make_app: AppFactory, git_repo: Path, size) -> None:
    app = make_app(script=None, review_path=long_line_plan(git_repo))
    assert snap_compare(app, terminal_size=size, run_before=_opened)
