from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown

from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.screens.help import HelpScreen
from ljtui.tui.widgets.conversation import ToolCallLine, UserMessage
from ljtui.tui.widgets.prompt_input import PromptInput
from tests.fixtures import SCRIPTS
from tests.tui.conftest import AppFactory, notices, until

SIZE = (120, 40)


async def send(pilot, text: str) -> None:
    await pilot.click(PromptInput)
    pilot.app.main_screen.query_one(PromptInput).value = text
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_typing_a_message_streams_the_reply(make_app: AppFactory, tmp_path: Path) -> None:
    paced = tmp_path / "paced.yaml"  # pieces arrive apart, as from a server: each is shown as it comes
    paced.write_text("chunk_delay: 0.01\n" + (SCRIPTS / "hello.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    app = make_app(str(paced))
    posted: list[str] = []

    def hook(message) -> None:
        if isinstance(message, EngineEventPosted):
            posted.append(message.event.kind)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await pilot.press(*"/chat add retries", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        conv = app.main_screen.conversation
        assert [str(u.render()) for u in conv.query(UserMessage)] == ["› add retries"]
        [reply] = conv.query(Markdown)
        assert "retry" in reply.source and "def greet" in reply.source
        assert posted.count("token_delta") > 5 and posted[-1] == "turn_finished"
        assert app.main_screen.status.usage.output_tokens > 0
        assert app.main_screen.query_one(PromptInput).value == ""


async def test_tool_calls_show_as_folded_lines(make_app: AppFactory) -> None:
    app = make_app("tool_then_text.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/chat look")
        [line] = app.main_screen.query(ToolCallLine)
        assert line.text == "▸ read_file app.py ✓"  # executed for real on the sample repository
        assert not line.has_class("-failed")


async def test_no_model_configured_opens_and_explains(make_app: AppFactory) -> None:
    app = make_app(script=None)
    async with app.run_test(size=SIZE) as pilot:
        assert any("No model is configured" in n and "ANTHROPIC_API_KEY" in n for n in notices(app))
        await send(pilot, "/chat hello")
        assert any(n.startswith("no model is configured") for n in notices(app))
        await send(pilot, "plan something")
        assert notices(app)[-1].startswith("no model is configured")


async def test_unknown_slash_command_lists_available(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.skill_names), "the skills to be read")
        await send(pilot, "/frobnicate now")
        from ljtui.tui.commands import ACTIONS

        names = ", ".join(sorted([*(f"/{a.slash}" for a in ACTIONS.slash_commands()),
                                  *(f"/{name}" for name in app.skill_names)]))
        assert notices(app)[-1] == f"Unknown command /frobnicate. Available: {names}"
        assert "/fix-with-test" in names, "the skills are listed with the commands"
        assert "/apply, /bump-dependency, /chat, /clear" in names
        assert app.main_screen.query_one(PromptInput).value == "/frobnicate now"
        assert not app.main_screen.query(UserMessage)


async def test_double_slash_sends_a_message(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "//etc/hosts is odd")
        assert [str(u.render()) for u in app.main_screen.query(UserMessage)] == ["› /etc/hosts is odd"]


async def test_clear_and_help_commands(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/chat hello")
        assert app.engine.history
        await pilot.click(PromptInput)
        app.main_screen.query_one(PromptInput).value = "/clear"
        await pilot.press("enter")  # not waiting for the work to end: it waits for the answer
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the question")
        assert app.screen.request.title == "Forget the conversation?"
        await pilot.press("enter")
        await until(pilot, lambda: not app.main_screen.conversation.children, "the cleared pane")
        assert app.engine.history == []
        await send(pilot, "/help")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_help_keys(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f2", "question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_theme_switch_by_slash_command(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "dark"
        await send(pilot, "/theme light")
        assert app.theme == "light"
        assert app.get_css_variables()["diff-added"] == "#006b2d"
        await send(pilot, "/theme neon")
        assert app.theme == "light"
        assert notices(app)[-1] == "Unknown theme 'neon'. Available: dark, high-contrast, light."
        await send(pilot, "/theme")
        assert notices(app)[-1] == "Theme: light. Available: dark, high-contrast, light."


async def test_theme_switch_from_command_palette(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Theme: high")

        def offered() -> bool:
            from textual.command import CommandPalette
            from textual.widgets import OptionList

            palette = app.screen
            if not isinstance(palette, CommandPalette):
                return False
            options = palette.query_one(OptionList)
            return options.option_count > 0 and "high-contrast" in str(options.get_option_at_index(0).prompt)

        await until(pilot, offered, "the palette to offer the high-contrast theme")
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "high-contrast"


async def test_pane_focus_and_maximise(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.main_screen
        assert isinstance(screen.focused, PromptInput)
        for key, pane in [("f3", "plan"), ("f4", "diff"), ("f5", "gates"), ("f2", "conversation")]:
            await pilot.press(key)
            assert screen.focused is screen.pane(pane)
        await pilot.press("f4", "f8")
        assert screen.maximized_pane == "diff"
        await pilot.press("f8")
        assert screen.maximized_pane is None
        await pilot.press("f6", "f8")
        assert screen.maximized_pane == "conversation"
        await pilot.press("f3")
        assert screen.maximized_pane is None and screen.focused is screen.pane("plan")
        await pilot.press("f9")
        assert not screen.query_one("#side").display
        assert isinstance(screen.focused, PromptInput)
        await pilot.press("f5")
        assert screen.query_one("#side").display and screen.focused is screen.pane("gates")


async def test_unknown_theme_in_config_falls_back(make_app: AppFactory) -> None:
    app = make_app(theme="neon")
    async with app.run_test(size=SIZE):
        assert app.theme == "dark"
        assert any("Unknown theme 'neon' (ui.theme)" in n for n in notices(app))


async def test_bad_user_theme_file_warns_and_app_starts(make_app: AppFactory, isolated_env: Path) -> None:
    themes = isolated_env / "ljtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "broken.yaml").write_text("name: broken\nprimary: not-a-colour\n", encoding="utf-8")
    (themes / "garbage.yaml").write_text("name: [\n", encoding="utf-8")
    (themes / "mine.yaml").write_text("name: mine\nprimary: '#ff0000'\ndark: false\n", encoding="utf-8")
    app = make_app(theme="mine")
    async with app.run_test(size=SIZE):
        assert app.theme == "mine"
        assert app.get_css_variables()["diff-added"] == "#006b2d"
        warned = "\n".join(notices(app))
        assert "broken.yaml" in warned and "skipped" in warned
        assert "garbage.yaml: line" in warned


async def test_malformed_config_warns_and_app_starts(make_app: AppFactory, isolated_env: Path) -> None:
    (isolated_env / "ljtui").mkdir(exist_ok=True)
    (isolated_env / "ljtui" / "config.yaml").write_text("ui: [oops\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE):
        assert any("config.yaml" in n and "file ignored" in n for n in notices(app))


async def test_message_while_busy_is_kept(make_app: AppFactory, tmp_path: Path) -> None:
    script = tmp_path / "slow.yaml"
    script.write_text("chunk_delay: 0.05\nturns:\n  - text: " + "word " * 2000 + "\n", encoding="utf-8")
    app = make_app(script=None, **{"provider.name": "scripted", "provider.script": str(script)})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/chat first", "enter")
        await until(pilot, lambda: app.bridge.busy, "the first message to start")
        app.main_screen.query_one(PromptInput).value = "/chat second"
        await pilot.press("enter")
        await pilot.pause()
        assert notices(app)[-1] == "Still working on the previous request; wait for it to finish."
        assert app.main_screen.query_one(PromptInput).value == "/chat second"  # sent again, it is still /chat
        await pilot.press("escape")  # cancels the slow reply
        await until(pilot, lambda: not app.bridge.busy, "the reply to be cancelled")


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


async def test_unfocused_pane_borders_stand_out_from_the_background_in_every_theme(make_app: AppFactory) -> None:
    from rich.color import Color as RichColor

    for theme in ("dark", "light", "high-contrast"):
        app = make_app(theme=theme)
        async with app.run_test(size=SIZE):
            variables = app.get_css_variables()
            border, background = variables["border-blurred"], variables["background"]
            lighter, darker = sorted((_luminance(border), _luminance(background)), reverse=True)
            assert (lighter + 0.05) / (darker + 0.05) >= 2.0, theme
            in_256 = [RichColor.parse(c).downgrade(2).number for c in (border, background)]  # 256-colour terminals
            assert in_256[0] != in_256[1], theme


async def test_slash_memory_shows_the_memory_file_and_whether_it_loads(make_app: AppFactory, git_repo: Path) -> None:
    from textual.widgets import Collapsible, Static

    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "memory.md").write_text("- the build is `make`\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/memory")
        await until(pilot, lambda: bool(app.main_screen.query(Collapsible)), "the memory view")
        [view] = app.main_screen.query(Collapsible)
        body = "\n".join(str(w.render()) for w in view.query(Static))
        assert not view.collapsed and "NOT loaded" in body and "the build is `make`" in body


async def test_keys_typed_while_the_main_screen_is_still_composing_reach_the_input_in_order(
        make_app: AppFactory) -> None:
    app = make_app()
    ready_at_first_key: list[bool] = []

    async def type_at_once(pilot) -> None:
        ready_at_first_key.append(app.main_screen.takes_keys)
        await pilot.press(*"/chat hi")
        await until(pilot, lambda: app.main_screen.prompt.value == "/chat hi", "the keys in the input")
        app.exit()

    await app.run_async(headless=True, auto_pilot=type_at_once, size=SIZE)
    assert ready_at_first_key == [False]


async def test_a_paste_and_enter_while_the_main_screen_is_still_composing_send_the_pasted_message(
        make_app: AppFactory) -> None:
    from textual import events

    app = make_app()
    ready_at_paste: list[bool] = []

    async def paste_and_send(pilot) -> None:
        ready_at_paste.append(app.main_screen.takes_keys)
        app.post_message(events.Paste("/chat first pasted line\nsecond pasted line"))
        await pilot.press("enter")
        sent = lambda: [str(u.render()) for u in app.main_screen.query(UserMessage)]  # noqa: E731
        await until(pilot, lambda: sent() == ["› first pasted line\nsecond pasted line"]
                    and app.main_screen.prompt.value == "", "the pasted message sent")
        app.exit()

    await app.run_async(headless=True, auto_pilot=paste_and_send, size=SIZE)
    assert ready_at_paste == [False]


async def test_a_plan_sent_for_approval_while_the_main_screen_is_still_composing_waits_for_the_plan_pane(
        make_app: AppFactory) -> None:
    from tests.tui.plan_helpers import pane, plan_request

    app = make_app()
    answers: list[str] = []

    async def ask_at_once(pilot) -> None:
        assert not app.main_screen.takes_keys

        async def decide() -> None:
            answers.append((await app.approver.decide(plan_request())).choice)

        app.run_worker(decide(), name="early plan")
        await until(pilot, lambda: pane(app).approving and app.focused is pane(app), "the plan in the Plan pane")
        await pilot.press("enter")
        await until(pilot, lambda: bool(answers), "the answer")
        app.exit()

    await app.run_async(headless=True, auto_pilot=ask_at_once, size=SIZE)
    assert answers == ["approve"]


async def test_ctrl_l_asks_first_and_escape_keeps_the_conversation(make_app: AppFactory) -> None:
    from ljtui.core.agent.chat import KEPT, NOTHING_TO_CLEAR

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+l")
        await until(pilot, lambda: NOTHING_TO_CLEAR in notices(app), "nothing to clear")
        await send(pilot, "/chat hello")
        history = list(app.engine.history)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the question")
        await pilot.press("escape")
        await until(pilot, lambda: KEPT in notices(app), "the conversation kept")
        assert app.engine.history == history and history
