"""Bringing context in from the prompt: the ``@`` file picker, ``!command`` as the user's own, and the refusal of
an image for a model that takes none — with the real app, real files, real git and a real subprocess."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Collapsible

from ljtui.core.providers.base import TextBlock
from ljtui.core.user_shell import USAGE
from ljtui.tui.widgets.file_picker import FilePicker
from tests.tui.conftest import AppFactory, notices, settle, until

SIZE = (100, 30)


def _picker(app) -> FilePicker:
    return app.main_screen.query_one(FilePicker)


def _options(app) -> list[str]:
    picker = _picker(app)
    return [str(picker.get_option_at_index(i).prompt) for i in range(picker.option_count)]


async def _open(pilot, typed: str) -> FilePicker:
    await settle(pilot)
    await pilot.press(*typed)
    await until(pilot, lambda: bool(pilot.app.main_screen.query(FilePicker)) and _picker(pilot.app).chosen
                is not None, "the picker's candidates")
    return _picker(pilot.app)


async def _send(pilot, text: str) -> None:
    """Put ``text`` in the prompt whole (no picker opens on the way) and press Enter."""
    await settle(pilot)
    pilot.app.main_screen.prompt.value = text
    await pilot.press("enter")
    await settle(pilot)


async def test_at_opens_the_picker_typing_filters_and_enter_inserts_the_path(
        make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "src").mkdir()
    (git_repo / "src" / "main_loop.py").write_text("loop = 1\n", encoding="utf-8")
    (git_repo / ".env").write_text("TOKEN=x\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        picker = await _open(pilot, "look at @")
        assert picker.is_open and ".env" not in _options(app)
        assert set(_options(app)) == {"README.md", "app.py", "src/main_loop.py", "src/"}
        await pilot.press(*"mloop")
        await until(pilot, lambda: _options(app)[:1] == ["src/main_loop.py"], "the ranked candidates")
        await pilot.press("enter")
        await until(pilot, lambda: not picker.is_open, "the picker to close")
        assert app.main_screen.prompt.text == "look at @src/main_loop.py "


async def test_up_down_and_tab_pick_another_and_esc_closes_without_cancelling_or_sending(
        make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        picker = await _open(pilot, "@")
        first = picker.chosen
        await pilot.press("down")
        assert picker.chosen != first
        await pilot.press("up")
        assert picker.chosen == first
        await pilot.press("escape")
        assert not picker.is_open and app.main_screen.prompt.text == "@"
        assert "Nothing is running" not in " ".join(notices(app))
        await pilot.press(*"app", "tab")
        await until(pilot, lambda: app.main_screen.prompt.text == "@app.py ", "tab to insert the path")


async def test_a_folder_picked_stays_open_to_pick_inside_it(make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "guide.md").write_text("guide\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        picker = await _open(pilot, "@doc")
        await until(pilot, lambda: picker.chosen == "docs/", "the folder first")
        await pilot.press("enter")
        await until(pilot, lambda: picker.chosen == "docs/guide.md", "the folder's file")
        assert app.main_screen.prompt.text == "@docs/"


async def test_a_sent_mention_attaches_the_file_and_the_conversation_says_so(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _send(pilot, "explain @app.py")
        assert "Attached: app.py (44 B)" in notices(app)
        sent = next(m for m in app.engine.history if m.role == "user")
        assert '<file path="app.py">' in sent.text and sent.text.startswith("explain @app.py")


async def test_a_bang_command_runs_shows_its_output_and_goes_with_the_next_message(
        make_app: AppFactory, git_repo: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"!echo marker-41 && ls", "enter")
        await settle(pilot)
        [shown] = [c for c in app.main_screen.conversation.query(Collapsible) if "marker-41" in str(c.title)]
        assert shown.title == "$ echo marker-41 && ls  (exit 0)" and not shown.collapsed
        assert "Its output goes to the model with your next message." in notices(app)
        assert app.engine.history == []  # the model was not asked
        assert (git_repo / "app.py").exists()
        await pilot.press(*"what now?", "enter")
        await settle(pilot)
        sent = next(m for m in app.engine.history if m.role == "user")
        [text] = [b.text for b in sent.content if isinstance(b, TextBlock)]
        assert "[The user ran `echo marker-41 && ls` in their own terminal (exit 0)" in text
        assert "marker-41\nREADME.md\napp.py" in text and text.endswith("what now?")


async def test_a_bang_alone_says_how_to_use_it(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("!", "space", "space", "enter")
        await settle(pilot)
        assert notices(app)[-1] == USAGE
        assert app.engine.history == []


async def test_an_image_for_a_model_without_images_is_refused_and_the_message_stays(
        make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 24)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _send(pilot, "what is wrong in @shot.png")
        assert notices(app)[-1].startswith(
            "Not sent: the model 'claude-sonnet-5-5' (scripted) is not known to take images")
        assert "provider.images: true" in notices(app)[-1]
        assert app.main_screen.prompt.text == "what is wrong in @shot.png" and app.engine.history == []


async def test_a_pasted_image_path_becomes_a_mention(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main_screen.prompt.paste_text(f"'{tmp_path}/screen shot.png'")
        assert app.main_screen.prompt.text == f'@"{tmp_path}/screen shot.png" '


def test_the_picker_over_the_prompt(snap_compare, make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "src").mkdir()
    (git_repo / "src" / "main_loop.py").write_text("loop = 1\n", encoding="utf-8")

    async def typed(pilot) -> None:
        await _open(pilot, "see @")
        await until(pilot, lambda: len(_options(pilot.app)) == 4, "every candidate")
        await pilot.press("down")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=typed)


async def test_a_bang_in_a_model_reply_or_an_attached_file_never_runs(
        make_app: AppFactory, git_repo: Path, tmp_path: Path) -> None:
    by_model, by_file = tmp_path / "by-model", tmp_path / "by-file"
    script = tmp_path / "bang.yaml"
    script.write_text(f"turns:\n  - text: |\n      !touch {by_model}\n", encoding="utf-8")
    (git_repo / "notes.md").write_text(f"!touch {by_file}\n", encoding="utf-8")
    app = make_app(str(script))
    async with app.run_test(size=SIZE) as pilot:
        await _send(pilot, "@notes.md")
        assert any(f"!touch {by_model}" in m.text for m in app.engine.history if m.role == "assistant")
        assert not by_model.exists() and not by_file.exists()


async def test_the_picker_closes_when_the_prompt_loses_the_focus(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        picker = await _open(pilot, "@")
        await pilot.press("f2")
        await until(pilot, lambda: not picker.is_open, "the picker to close")


async def test_esc_stops_a_running_bang_command(make_app: AppFactory, tmp_path: Path) -> None:
    started = tmp_path / "started"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*f"!touch {started}; sleep 60", "enter")
        await until(pilot, started.exists, "the command to start")
        await pilot.press("escape")
        await settle(pilot)
        assert f"Stopped: touch {started}; sleep 60 (nothing of it goes to the model)." in notices(app)
        assert app.engine.user_context.commands.told() == ""
