"""Notifications while the terminal is not focused: a turn that ended and a question that waits send the bell or
the terminal's desktop notification sequence (``ui.notify``), plain and bounded; nothing while focused."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from ljtui.core.approval import ApprovalRequest
from ljtui.core.config import load_config
from ljtui.tui.notify import MAX_TEXT_CHARS, notify_mode, plain_text, sequence
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.tui.conftest import AppFactory, settle, until

SIZE = (120, 40)


@pytest.mark.parametrize(("setting", "env", "mode"), [
    ("auto", {}, "bell"),
    ("auto", {"TERM_PROGRAM": "iTerm.app"}, "osc9"),
    ("auto", {"TERM_PROGRAM": "ghostty"}, "osc9"),
    ("auto", {"WT_SESSION": "c0ffee"}, "osc9"),
    ("auto", {"TERM_PROGRAM": "Apple_Terminal"}, "bell"),
    ("osc777", {"TERM_PROGRAM": "iTerm.app"}, "osc777"),
    ("off", {}, "off"),
])
def test_auto_is_osc9_only_in_terminals_known_to_show_it(setting: str, env: dict[str, str], mode: str) -> None:
    assert notify_mode(setting, env) == mode


def test_each_mode_writes_its_sequence() -> None:
    assert sequence("bell", "done") == "\x07"
    assert sequence("osc9", "done") == "\x1b]9;ljtui: done\x07"
    assert sequence("osc777", "done") == "\x1b]777;notify;ljtui;done\x07"
    assert sequence("off", "done") == ""


def test_model_text_is_made_plain_and_bounded() -> None:
    hostile = "done\x07\x1b]52;c;ZXZpbA==\x07 \u202eevil; rm\n\tnext" + "x" * 500
    body = plain_text(hostile)
    assert not any(ord(ch) < 32 or ch in "\x7f\u202e;" for ch in body)
    assert body.startswith("done ]52 c ZXZpbA== evil rm nextxxx")
    assert len(body) == MAX_TEXT_CHARS and body.endswith("…")
    assert sequence("osc9", hostile).count("\x07") == 1 and sequence("osc9", hostile).count("\x1b") == 1


def test_an_unknown_notify_setting_is_refused(tmp_path: Path) -> None:
    loaded = load_config(tmp_path, {}, {"ui.notify": "loud"})
    assert loaded.config.ui.notify == "auto"
    assert any("ui.notify" in w for w in loaded.warnings), loaded.warnings


def ask_in_a_dialog(app) -> list[object]:  # type: ignore[no-untyped-def]
    """Ask a question through the app's approver, as engine work does; its answer lands in the list returned."""
    answers: list[object] = []

    async def decide() -> None:
        answers.append(await app.approver.decide(ApprovalRequest("overwrite", "Overwrite notes.txt?")))

    app.run_worker(decide(), name="ask", group="engine", exit_on_error=False)
    return answers


def recorded(app) -> list[str]:  # type: ignore[no-untyped-def]
    """What the app sends to the terminal for notifications, from now on (the terminal is the boundary)."""
    sent: list[str] = []
    app.attention.write = sent.append
    return sent


async def _blur(pilot) -> None:  # type: ignore[no-untyped-def]
    pilot.app.post_message(events.AppBlur())
    await until(pilot, lambda: not pilot.app.app_focus, "the terminal to lose the focus")


async def test_a_turn_ending_while_unfocused_sends_the_desktop_notification(make_app: AppFactory,
                                                                          tmp_path: Path) -> None:
    script = tmp_path / "two.yaml"
    script.write_text("turns:\n  - text: First reply.\n  - text: \"\\n\\x1b[2J Second\\x07 reply.\"\n",
                      encoding="utf-8")
    app = make_app(str(script), **{"ui.notify": "osc9"})
    sent = recorded(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/chat hello", "enter")
        await settle(pilot)
        assert sent == [], "focused: nothing is sent"
        await _blur(pilot)
        app.ask("again")  # as Enter sends it (a key typed in the terminal would focus it again)
        await until(pilot, lambda: bool(sent), "the notification")
        assert sent == ["\x1b]9;ljtui: done: [2J Second reply.\x07"]


@pytest.mark.parametrize(("setting", "expected"), [("bell", ["\x07"]), ("off", [])])
async def test_a_dialog_waiting_while_unfocused_rings_the_bell_once(make_app: AppFactory, setting: str,
                                                                   expected: list[str]) -> None:
    app = make_app(**{"ui.notify": setting})
    sent = recorded(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _blur(pilot)
        answers = ask_in_a_dialog(app)
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the dialog")
        assert sent == expected
        app.post_message(events.AppFocus())
        await until(pilot, lambda: app.app_focus, "the focus back")
        await pilot.press("escape")
        await until(pilot, lambda: bool(answers), "the answer")
        assert sent == expected, "once: nothing more when the answer comes"
