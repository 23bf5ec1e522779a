"""The user's own slash commands in the app: ``/mycmd hello`` sends the file's expanded text to the model as a
message, shows what was typed with the expansion folded under it, and is completed by Tab and listed in the help,
the palette and ``/commands``; built-in commands keep their names; a command file runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ljtui.tui.palette import system_commands
from ljtui.tui.screens.help import HelpScreen
from ljtui.tui.user_commands import shown
from ljtui.tui.widgets.conversation import UserMessage
from ljtui.tui.widgets.plain_collapsible import PlainCollapsible
from tests.tui.conftest import AppFactory, notices, settle, until

SIZE = (100, 30)
MYCMD = "---\ndescription: Greet someone\nargument-hint: NAME\n---\nSay $ARGUMENTS to $1, politely.\n"


@pytest.fixture
def commands(isolated_env: Path) -> Path:
    folder = isolated_env / "ljtui" / "commands"
    folder.mkdir()
    return folder


def sent(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The user messages the model was sent, oldest first."""
    return [m.text for m in app.engine.history if m.role == "user"]


def body(folded: PlainCollapsible) -> str:
    """The text folded under a Conversation's details title."""
    return str(folded.query(Static).last().render())


async def ready(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.started and bool(shown(app).commands), "the commands to be read")
    await settle(pilot)


async def type_and_send(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*text, "enter")
    await settle(pilot)


async def test_a_command_sends_its_expansion_to_the_model(make_app: AppFactory, commands: Path) -> None:
    (commands / "mycmd.md").write_text(MYCMD, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await type_and_send(pilot, "/mycmd hello")
        assert sent(app) == ["Say hello to hello, politely."]
        assert [str(u.render()) for u in app.main_screen.query(UserMessage)] == ["› /mycmd hello"]
        folded = app.main_screen.conversation.query(PlainCollapsible).last()
        assert folded.title == f"message sent · {commands / 'mycmd.md'}" and folded.collapsed
        assert body(folded) == "Say hello to hello, politely."
        assert app.main_screen.prompt.value == ""


async def test_the_file_is_read_when_the_command_runs(make_app: AppFactory, commands: Path) -> None:
    path = commands / "mycmd.md"
    path.write_text("first text", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        path.write_text("edited text $1", encoding="utf-8")
        await type_and_send(pilot, "/mycmd now")
        assert sent(app) == ["edited text now"]
        path.unlink()
        await type_and_send(pilot, "/mycmd again")
        assert notices(app)[-1].startswith("Unknown command /mycmd. Available: ")
        assert app.main_screen.prompt.value == "/mycmd again", "kept to fix"
        assert sent(app) == ["edited text now"]


async def test_a_file_added_is_known_from_the_next_message(make_app: AppFactory, commands: Path) -> None:
    (commands / "first.md").write_text("one", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        (commands / "later.md").write_text("added later", encoding="utf-8")
        await type_and_send(pilot, "/later")
        assert notices(app)[-1].startswith("Unknown command /later."), "read again for the next message"
        await until(pilot, lambda: "later" in shown(app).commands, "the files read again")
        app.main_screen.prompt.clear()
        await pilot.press(*"/lat", "tab")
        assert app.main_screen.prompt.value == "/later "
        await pilot.press("enter")
        await settle(pilot)
        assert sent(app) == ["added later"]


async def test_tab_completes_a_namespaced_command(make_app: AppFactory, commands: Path) -> None:
    (commands / "frontend").mkdir()
    (commands / "frontend" / "component.md").write_text("Make $1", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press(*"/fron", "tab")
        assert app.main_screen.prompt.value == "/frontend:component "
        await pilot.press(*"Button", "enter")
        await settle(pilot)
        assert sent(app) == ["Make Button"]


async def test_a_command_file_runs_nothing(make_app: AppFactory, commands: Path, tmp_path: Path) -> None:
    marker, other = tmp_path / "ran-bang", tmp_path / "ran-backtick"
    (commands / "sneaky.md").write_text(f"!touch {marker}\nand !`touch {other}`", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await type_and_send(pilot, "/sneaky")
        assert sent(app) == [f"!touch {marker}\nand !`touch {other}`"], "sent to the model as text"
        assert not marker.exists() and not other.exists()


async def test_a_builtin_keeps_its_name_and_the_notice_is_said_once(make_app: AppFactory, commands: Path) -> None:
    (commands / "help.md").write_text("not the help", encoding="utf-8")
    (commands / "mycmd.md").write_text(MYCMD, encoding="utf-8")
    (commands / "broken.md").write_text("---\ndescription: [unclosed\n  more: [\n---\nbody", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        told = f"user command {commands / 'help.md'} is not used: /help is a built-in command"
        broken = f"user command {commands / 'broken.md'}: front matter is not valid YAML at line 2; skipped"
        assert told in notices(app) and broken in notices(app)
        await type_and_send(pilot, "/mycmd x")
        await type_and_send(pilot, "/help")
        assert isinstance(app.screen, HelpScreen), "the built-in help"
        assert notices(app).count(told) == 1 and notices(app).count(broken) == 1


async def test_help_palette_and_commands_list_them(make_app: AppFactory, commands: Path) -> None:
    (commands / "mycmd.md").write_text(MYCMD, encoding="utf-8")
    (commands / "status.md").write_text("Status: !`git status`", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        entries = {str(c.title): str(c.help) for c in system_commands(app, app.screen)}
        assert entries["/mycmd NAME"] == f"Greet someone — {commands / 'mycmd.md'}"
        await type_and_send(pilot, "/commands")
        lines = body(app.main_screen.conversation.query(PlainCollapsible).last())
        assert f"/mycmd NAME  Greet someone — {commands / 'mycmd.md'}" in lines
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        text = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "Your commands" in text and "/mycmd NAME" in text
        assert f"Status: !`git status` (its !`…` text is sent as text, not run) — {commands / 'status.md'}" in text


async def test_an_untrusted_repository_s_commands_are_not_offered(make_app: AppFactory, commands: Path,
                                                                   git_repo: Path) -> None:
    (git_repo / ".claude" / "commands").mkdir(parents=True)
    (git_repo / ".claude" / "commands" / "deploy.md").write_text("deploy it", encoding="utf-8")
    (commands / "mine.md").write_text("mine", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert shown(app).names == ("mine",)
        assert ("1 repository command(s) in .claude/commands are ignored because this repository is not trusted; "
                "`ljtui trust` enables them") in notices(app)
        await type_and_send(pilot, "/deploy")
        assert notices(app)[-1].startswith("Unknown command /deploy. Available: ")
        assert "/mine" in notices(app)[-1]


async def test_a_command_sent_while_busy_is_kept(make_app: AppFactory, commands: Path, tmp_path: Path) -> None:
    (commands / "mycmd.md").write_text(MYCMD, encoding="utf-8")
    script = tmp_path / "slow.yaml"  # 2000 words, 50 ms apart: busy until cancelled
    script.write_text("chunk_delay: 0.05\nturns:\n  - text: " + "word " * 2000 + "\n", encoding="utf-8")
    app = make_app(script=None, **{"provider.name": "scripted", "provider.script": str(script)})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press(*"/chat first", "enter")
        await until(pilot, lambda: app.bridge.busy, "the first message to start")
        await pilot.press(*"/mycmd hello", "enter")
        await pilot.pause()
        assert notices(app)[-1] == "Still working on the previous request; wait for it to finish."
        assert app.main_screen.prompt.value == "/mycmd hello"
        await pilot.press("escape")
        await until(pilot, lambda: not app.bridge.busy, "the reply to be cancelled")
        assert sent(app) == []


async def test_the_palette_runs_a_command_or_puts_one_that_takes_text_in_the_input(make_app: AppFactory,
                                                                                  commands: Path) -> None:
    (commands / "mycmd.md").write_text(MYCMD, encoding="utf-8")
    (commands / "tidy.md").write_text("Tidy the imports.", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        entries = {str(c.title): c for c in system_commands(app, app.screen)}
        entries["/mycmd NAME"].callback()
        await pilot.pause()
        assert app.main_screen.prompt.value == "/mycmd " and sent(app) == []
        app.main_screen.prompt.value = "a draft"
        entries["/tidy"].callback()
        await settle(pilot)
        assert sent(app) == ["Tidy the imports."]
        assert app.main_screen.prompt.value == "a draft", "the draft in the input box stays"


async def test_a_skill_keeps_its_name(make_app: AppFactory, commands: Path) -> None:
    (commands / "fix-with-test.md").write_text("not the skill", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "fix-with-test" in app.skill_names, "the skills to be read")
        await type_and_send(pilot, "/commands")
        assert f"user command {commands / 'fix-with-test.md'} is not used: /fix-with-test is a skill" in notices(app)
        assert shown(app).names == ()
