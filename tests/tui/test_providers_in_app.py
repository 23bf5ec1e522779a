"""Both real providers through the app, against the loopback fake servers."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown

from ljtui.core.ports import FixedClock
from ljtui.tui.app import LjtuiApp
from ljtui.tui.widgets.conversation import NoticeLine
from tests.fakes import anthropic_api, openai_api
from tests.fakes.fixtures import FAKE_KEY, TEST_RETRY_DELAY, TEST_TIMEOUT, fake_anthropic, fake_openai  # noqa: F401
from tests.fakes.server import FakeSSEServer

SIZE = (120, 40)


def app_for(repo: Path, name: str, url: str) -> LjtuiApp:
    overrides = {
        "provider.name": name, "provider.model": "test-model", "provider.base_url": url,
        "provider.api_key": FAKE_KEY, "provider.timeout": TEST_TIMEOUT, "provider.max_retries": 2,
        "provider.retry_delay": TEST_RETRY_DELAY, "provider.retry_max_delay": TEST_RETRY_DELAY,
    }
    return LjtuiApp(repo, overrides=overrides, clock=FixedClock(), cursor_blink=False, watch=False)


def screen_text(app: LjtuiApp) -> str:
    notices = [str(n.render()) for n in app.main_screen.query(NoticeLine)]
    replies = [m.source for m in app.main_screen.query(Markdown)]
    return "\n".join(notices + replies)


async def chat(pilot, text: str) -> None:
    await pilot.press(*f"/chat {text}", "enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_anthropic_reply_streams_into_the_conversation(fake_anthropic: FakeSSEServer, git_repo: Path) -> None:
    fake_anthropic.queue(anthropic_api.text_reply("Hello from **Claude**."))
    app = app_for(git_repo, "anthropic", fake_anthropic.url)
    async with app.run_test(size=SIZE) as pilot:
        await chat(pilot, "hi")
        assert "Hello from **Claude**." in screen_text(app)
        assert app.main_screen.status.usage.output_tokens > 0
        assert FAKE_KEY not in screen_text(app)


async def test_anthropic_exhausted_retries_keep_the_session(fake_anthropic: FakeSSEServer, git_repo: Path) -> None:
    fake_anthropic.queue(*[anthropic_api.overloaded() for _ in range(3)], anthropic_api.text_reply("Back."))
    app = app_for(git_repo, "anthropic", fake_anthropic.url)
    async with app.run_test(size=SIZE) as pilot:
        await chat(pilot, "hi")
        text = screen_text(app)
        assert "overloaded (HTTP 529)" in text and "Your conversation is intact" in text
        assert "retrying (1/2)" in text
        await chat(pilot, "again")
        assert "Back." in screen_text(app)


async def test_openai_compatible_reply_and_bad_key(fake_openai: FakeSSEServer, git_repo: Path) -> None:
    fake_openai.queue(openai_api.text_reply("Hello from a local model."))
    app = app_for(git_repo, "openai-compatible", fake_openai.url)
    async with app.run_test(size=SIZE) as pilot:
        await chat(pilot, "hi")
        assert "Hello from a local model." in screen_text(app)
        fake_openai.queue(openai_api.status_reply(401, "invalid key"))
        await chat(pilot, "again")
        text = screen_text(app)
        assert "key" in text.lower() and FAKE_KEY not in text


async def test_the_status_bar_shows_the_context_used_of_a_llamacpp_servers_window(git_repo: Path) -> None:
    from tests.core.providers.test_real_llamacpp_context import llamacpp_props

    with FakeSSEServer(llamacpp_props, require_key=FAKE_KEY) as server:
        server.queue(openai_api.text_reply("Hello.", prompt_tokens=3000, completion_tokens=100))
        app = app_for(git_repo, "openai-compatible", server.url + "/v1")
        async with app.run_test(size=SIZE) as pilot:
            await chat(pilot, "hi")
            status = str(app.main_screen.status.render())
            assert "38% · 5.1k left" in status, status


async def test_while_a_local_model_reads_the_prompt_the_waiting_line_says_how_long_it_is(git_repo: Path) -> None:
    from tests.core.providers.test_real_llamacpp_context import llamacpp_props
    from tests.fakes.server import Reply
    from ljtui.tui.widgets.thinking import Thinking

    with FakeSSEServer(llamacpp_props, require_key=FAKE_KEY) as server:
        server.queue(Reply(events=tuple(openai_api.completion_events("Hello.")), chunk_delay=0.5))
        app = app_for(git_repo, "openai-compatible", server.url + "/v1")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"/chat hi", "enter")
            for _ in range(100):
                await pilot.pause(0.05)
                lines = list(app.main_screen.query(Thinking))
                if lines:
                    break
            [line] = lines
            assert line.label.startswith("reading the prompt (≈") and line.label.endswith(" tokens) and answering…")
            await app.workers.wait_for_complete()
