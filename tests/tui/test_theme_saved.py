"""The theme chosen with ``/theme`` (or the palette) is saved in the user's state dir and is the next run's theme;
a flag still wins, and a saved file that is invalid, or names a theme that is gone, is a notice, never a crash."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ljtui.core.theme_files import CHOICE_FILE, MAX_CHOICE_BYTES, read_theme_choice, save_theme_choice
from ljtui.core.userdirs import user_state_dir
from tests.tui.conftest import AppFactory, notices, settle, until

SIZE = (120, 40)


def saved_file() -> Path:
    return user_state_dir() / CHOICE_FILE


async def test_the_chosen_theme_is_saved_and_restored_in_the_next_run(make_app: AppFactory) -> None:
    assert os.environ["XDG_STATE_HOME"] in str(saved_file()), "the test's own state dir"
    first = make_app()
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert first.theme == "dark"
        await pilot.press(*"/theme high-contrast", "enter")
        await until(pilot, lambda: saved_file().is_file(), "the choice saved")
        await settle(pilot)
    assert json.loads(saved_file().read_text(encoding="utf-8")) == {"theme": "high-contrast"}
    assert [p.name for p in saved_file().parent.iterdir()] == [CHOICE_FILE], "no temporary file left"
    second = make_app()
    assert second.theme == "high-contrast", "read before the app runs"
    async with second.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert second.theme == "high-contrast"
        assert not any("theme" in n.lower() for n in notices(second))


async def test_a_theme_flag_wins_over_the_saved_one(make_app: AppFactory) -> None:
    save_theme_choice(user_state_dir(), "high-contrast")
    assert make_app(theme="light").theme == "light"


async def test_an_invalid_saved_file_is_ignored_with_a_notice(make_app: AppFactory) -> None:
    saved_file().parent.mkdir(parents=True, exist_ok=True)
    saved_file().write_text("{not json", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "dark"
        assert any("saved theme" in n and "ignored" in n for n in notices(app)), notices(app)


async def test_a_saved_theme_that_is_gone_is_named_and_the_configured_one_used(make_app: AppFactory) -> None:
    save_theme_choice(user_state_dir(), "solarized-mine")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "dark"
        assert any("Saved theme 'solarized-mine' is not installed" in n for n in notices(app)), notices(app)


async def test_a_choice_that_cannot_be_saved_says_so_and_the_theme_still_changes(make_app: AppFactory) -> None:
    state = user_state_dir()
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("a file where the state dir should be", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/theme light", "enter")
        await until(pilot, lambda: any("could not be saved" in n for n in notices(app)), "the failure told")
        assert app.theme == "light"


def test_reading_the_saved_choice(tmp_path: Path) -> None:
    assert read_theme_choice(tmp_path).name is None and read_theme_choice(tmp_path).warning is None
    too_long = json.dumps({"theme": "x" * 300}).encode()
    for raw in (b'{"theme": 3}', b'["light"]', b'{"theme": ""}', b"\xff\xfe", too_long):
        (tmp_path / CHOICE_FILE).write_bytes(raw)
        choice = read_theme_choice(tmp_path)
        assert choice.name is None and choice.warning is not None and "ignored" in choice.warning, raw
    (tmp_path / CHOICE_FILE).write_text(json.dumps({"theme": "light", "pad": "x" * MAX_CHOICE_BYTES}))
    assert read_theme_choice(tmp_path).warning is not None, "too large"
    save_theme_choice(tmp_path / "new", "light")
    assert read_theme_choice(tmp_path / "new").name == "light"
