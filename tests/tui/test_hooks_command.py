"""Hooks in the app: ``/hooks`` lists them, a hook that blocks says so in the Conversation pane, and
``SessionStart`` hooks hear ``resume`` when the app continues a saved session."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from textual.widgets import Collapsible, Static

from tests.conftest import DIRECT_CONFIG
from tests.tui.conftest import AppFactory, notices, until
from tests.tui.test_app_pilot import send

SIZE = (120, 40)


def user_hooks(config_home: Path, hooks: dict[str, object]) -> None:
    """The user's config: the tests' own, with ``hooks``."""
    text = DIRECT_CONFIG + yaml.safe_dump({"hooks": hooks})
    (config_home / "ljtui" / "config.yaml").write_text(text, encoding="utf-8")


def on(event: str, matcher: str, command: str) -> dict[str, object]:
    return {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}


async def test_slash_hooks_lists_your_hooks(make_app: AppFactory, isolated_env: Path) -> None:
    user_hooks(isolated_env, on("PreToolUse", "Bash", "echo hi"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/hooks")
        await until(pilot, lambda: bool(app.main_screen.query(Collapsible)), "the hook list")
        [view] = app.main_screen.query(Collapsible)
        body = [str(w.render()) for w in view.query(Static)]
        assert view.title == "Hooks" and not view.collapsed
        assert body[-1].splitlines() == ["PreToolUse [Bash] · your config · timeout 60 s · echo hi",
                                         "    last: not run yet"]


async def test_a_hook_that_keeps_a_message_back_says_why(make_app: AppFactory, isolated_env: Path) -> None:
    user_hooks(isolated_env, on("UserPromptSubmit", "", "echo 'not on Fridays' >&2; exit 2"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/chat hello")
        kept = ("Your message was not sent: a UserPromptSubmit hook kept it back.\n"
                "echo 'not on Fridays' >&2; exit 2: not on Fridays")
        await until(pilot, lambda: kept in notices(app), "the hook's notice")
        assert app.engine.history == [] and not any("blocked UserPromptSubmit" in n for n in notices(app))


async def test_a_blocked_call_names_the_hook_and_its_reason_with_escapes_shown_as_text(
        make_app: AppFactory, isolated_env: Path) -> None:
    user_hooks(isolated_env, on("PreToolUse", "Bash", r"printf '\033[31mred\033[0m: no ls\n' >&2; exit 2"))
    app = make_app("bash_quick.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "list the files")
        await until(pilot, lambda: bool([n for n in notices(app) if "blocked PreToolUse" in n]), "the block")
        [blocked] = [n for n in notices(app) if "blocked PreToolUse" in n]
        assert blocked.endswith("blocked PreToolUse: \\x1b[31mred\\x1b[0m: no ls")
        assert "\x1b" not in blocked


async def test_session_start_hooks_hear_resume_when_the_app_continues_a_session(
        make_app: AppFactory, isolated_env: Path, git_repo: Path) -> None:
    from tests.tui.test_resume import saved_session

    await saved_session(make_app)
    user_hooks(isolated_env, on("SessionStart", "", 'cat > "$CLAUDE_PROJECT_DIR/started.json"'))
    app = make_app("hello.yaml", resume="")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any("Resumed session" in n for n in notices(app)), "the resumed session")
        await until(pilot, lambda: (git_repo / "started.json").is_file(), "the SessionStart hook")
        await pilot.app.workers.wait_for_complete()
    heard = json.loads((git_repo / "started.json").read_text(encoding="utf-8"))
    assert (heard["hook_event_name"], heard["source"]) == ("SessionStart", "resume")
