"""Resuming a saved session in the app: at start (``ljtui --continue``) and with /resume."""

from __future__ import annotations

from pathlib import Path

import yaml
from textual.widgets import Collapsible, Markdown, Static

from ljtui.tui.widgets.conversation import NoticeLine, ToolCallLine, UserMessage
from tests.tui.conftest import AppFactory, notices, settle, until
from tests.tui.test_app_pilot import send

SIZE = (120, 40)


async def saved_session(make_app: AppFactory) -> str:
    """Run one tool-using turn in an app and return its session id."""
    app = make_app("tool_then_text.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "what is in app.py?")
        await settle(pilot)
        session_id = app.engine.session_log.id
        tokens = app.main_screen.status.usage.output_tokens
    assert tokens > 0
    return session_id


def shown(app) -> list[str]:
    conv = app.main_screen.conversation
    out = []
    for widget in conv.children:
        if isinstance(widget, UserMessage):
            out.append(str(widget.render()))
        elif isinstance(widget, ToolCallLine):
            out.append(widget.text)
        elif isinstance(widget, Markdown):
            out.append(widget.source)
    return out


async def test_continue_at_start_shows_the_saved_conversation_and_goes_on(make_app: AppFactory) -> None:
    session_id = await saved_session(make_app)
    app = make_app("hello.yaml", resume="")
    async with app.run_test(size=SIZE) as pilot:
        expected = ["› what is in app.py?", "Let me check the file.", "▸ read_file app.py ✓",
                    "The file defines `greet`."]
        await until(pilot, lambda: shown(app) == expected, "the resumed conversation drawn")
        assert notices(app)[-1] == f"Resumed session {session_id}: 4 messages."
        assert app.main_screen.status.usage.output_tokens > 0
        await send(pilot, "and now?")
        await settle(pilot)
        assert app.engine.session_log.id == session_id and len(app.engine.history) == 6


async def test_slash_resume_lists_the_sessions_then_resumes_one_by_id(make_app: AppFactory) -> None:
    session_id = await saved_session(make_app)
    app = make_app("hello.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/resume")
        await until(pilot, lambda: bool(app.main_screen.query(Collapsible)), "the session list")
        [listing] = app.main_screen.query(Collapsible)
        assert not listing.collapsed and "/resume ID continues one" in listing.title
        body = "\n".join(str(w.render()) for w in listing.query(Static))
        assert f"{session_id}  " in body and "what is in app.py?" in body
        await send(pilot, f"/resume {session_id}")
        await until(pilot, lambda: any("Resumed session" in n for n in notices(app)), "the resumed session")
        assert shown(app)[0] == "› what is in app.py?"


async def test_resume_problems_are_notices_and_the_conversation_stays(make_app: AppFactory) -> None:
    app = make_app("hello.yaml", resume="")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "There is no earlier session to resume here." in notices(app), "the refusal")
        await send(pilot, "/resume")
        assert notices(app).count("There is no earlier session to resume here.") == 2
        await send(pilot, "/resume 20990101-000000-ffff")
        await settle(pilot)
        assert any("20990101-000000-ffff" in n for n in notices(app))
        await send(pilot, "/resume ../../x")
        await settle(pilot)
        assert any("is not a session id (/resume in the app" in n for n in notices(app))


async def test_a_resumed_transcript_marks_each_call_done_or_failed_and_shows_the_notices_again(
        make_app: AppFactory, tmp_path: Path) -> None:
    script = tmp_path / "two_reads.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"text": "Reading both.", "tool_calls": [{"name": "read_file", "input": {"path": "app.py"}},
                                                  {"name": "read_file", "input": {"path": "missing.py"}}]},
        {"text": "One of them is missing."}]}), encoding="utf-8")
    app = make_app(str(script))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read app.py and missing.py")
        await settle(pilot)
        await send(pilot, "/resume 20990101-000000-ffff")
        await until(pilot, lambda: any("20990101-000000-ffff" in n for n in notices(app)), "the refusal")
        refusal = next(n for n in notices(app) if "20990101-000000-ffff" in n)
        session_id = app.engine.session_log.id
    app = make_app("hello.yaml", resume=session_id)
    async with app.run_test(size=SIZE) as pilot:
        expected = ["› read app.py and missing.py", "Reading both.", "▸ read_file app.py ✓",
                    "▸ read_file missing.py ✗", "One of them is missing."]
        await until(pilot, lambda: shown(app) == expected, "the resumed conversation drawn")
        lines = list(app.main_screen.conversation.query(ToolCallLine))
        assert [line.has_class("-failed") for line in lines] == [False, True]
        assert notices(app) == [refusal, f"Resumed session {session_id}: 4 messages."]
        [shown_again] = [n for n in app.main_screen.conversation.query(NoticeLine) if "20990101" in str(n.render())]
        assert shown_again.has_class("-error")
