"""The user's context reaching the model: ``!command`` run as a real subprocess in a temp repository, its output
and ``@`` attachments in the next request, and images in both wire formats, through the real SDKs and the fake
servers."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice
from ljtui.core.ports import ListSink
from ljtui.core.user_shell import HEAD_CHARS, TAIL_CHARS, command_of
from tests.fakes import anthropic_api, openai_api
from tests.fakes.fixtures import FAKE_KEY, fake_anthropic, fake_openai, fast_provider  # noqa: F401 - fixtures
from tests.fakes.server import FakeSSEServer

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24
WAIT = 30.0


def _engine(server: FakeSSEServer, root: Path, name: str = "openai-compatible", **provider: object) -> tuple[
        Engine, ListSink]:
    sink = ListSink()
    base = server.url + ("/v1" if name == "openai-compatible" else "")
    return Engine(Config(provider=fast_provider(name, base, **provider)), sink, repo_root=root), sink


def _user_text(body: dict) -> str:
    """The text of the last user message of an OpenAI-shaped request."""
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_only_text_that_starts_with_a_bang_is_a_command() -> None:
    assert command_of("!git status") == "git status"
    assert command_of("  !  ls -la ") == "ls -la"
    assert command_of("!") == "" and command_of("!   ") == ""
    assert command_of("run !ls") is None and command_of("hello") is None


async def test_a_bang_command_runs_in_the_repository_and_its_output_goes_with_the_next_message(
        fake_openai: FakeSSEServer, git_repo: Path) -> None:  # noqa: F811
    fake_openai.queue(openai_api.text_reply("seen"))
    engine, _ = _engine(fake_openai, git_repo)
    commands = engine.user_context.commands

    run = await commands.run("echo marker-41; pwd; exit 3")

    assert run.output == f"marker-41\n{git_repo}" and run.exit_code == 3 and run.ending == "exit 3"
    assert await engine.run_turn("what did it print?") is not None
    sent = _user_text(fake_openai.requests[0].json)
    assert sent.startswith("[The user ran `echo marker-41; pwd; exit 3` in their own terminal (exit 3)")
    assert "marker-41" in sent and sent.endswith("what did it print?")
    fake_openai.queue(openai_api.text_reply("again"))
    assert await engine.run_turn("and now?") is not None
    assert _user_text(fake_openai.requests[1].json) == "and now?"  # told once
    await engine.aclose()


async def test_the_provider_key_and_credentials_are_never_in_the_command_s_environment(
        fake_openai: FakeSSEServer, git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("MY_COPY", FAKE_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_x")
    monkeypatch.setenv("LJTUI_TEST_PLAIN", "kept")
    engine, _ = _engine(fake_openai, git_repo)

    run = await engine.user_context.commands.run("env")

    assert "LJTUI_TEST_PLAIN=kept" in run.output
    assert "sk-from-env" not in run.output and FAKE_KEY not in run.output and "ghp_x" not in run.output
    await engine.aclose()


async def test_a_command_s_output_is_bounded(fake_openai: FakeSSEServer, git_repo: Path) -> None:  # noqa: F811
    engine, _ = _engine(fake_openai, git_repo)

    run = await engine.user_context.commands.run("yes marker | head -c 100000")

    assert len(run.output) < HEAD_CHARS + TAIL_CHARS + 100 and "characters cut from the middle" in run.output
    await engine.aclose()


async def test_cancelling_stops_the_command_and_nothing_of_it_is_told(
        fake_openai: FakeSSEServer, git_repo: Path, tmp_path: Path) -> None:  # noqa: F811
    engine, _ = _engine(fake_openai, git_repo)
    started = tmp_path / "started"
    task = asyncio.create_task(engine.user_context.commands.run(f"touch {started}; sleep 60"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not started.exists():
        assert loop.time() < deadline, "the command never started"
        await asyncio.sleep(0.01)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    assert engine.user_context.commands.told() == ""
    await engine.aclose()


async def test_mentioned_files_go_with_the_message_and_the_conversation_says_what(
        fake_openai: FakeSSEServer, git_repo: Path) -> None:  # noqa: F811
    fake_openai.queue(openai_api.text_reply("ok"))
    (git_repo / ".env").write_text("TOKEN=hidden-value\n", encoding="utf-8")
    engine, sink = _engine(fake_openai, git_repo)

    assert await engine.run_turn("explain @app.py and @.env") is not None

    sent = _user_text(fake_openai.requests[0].json)
    assert '<file path="app.py">\ndef greet(name):' in sent and "hidden-value" not in sent
    notices = [e.message for e in sink.events if isinstance(e, Notice)]
    assert "Attached: app.py (44 B)" in notices
    assert any(n.startswith("@.env: not attached, it looks like a secret file") for n in notices)
    await engine.aclose()


async def test_an_image_goes_as_an_image_url_part_to_an_openai_compatible_model(
        fake_openai: FakeSSEServer, git_repo: Path) -> None:  # noqa: F811
    fake_openai.queue(openai_api.text_reply("a png"))
    (git_repo / "shot.png").write_bytes(PNG)
    engine, _ = _engine(fake_openai, git_repo, model="gpt-4o")

    assert await engine.handle_message("what is @shot.png?") is not None

    user = [m for m in fake_openai.requests[0].json["messages"] if m["role"] == "user"][-1]
    assert user["content"] == [
        {"type": "text", "text": "what is @shot.png?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}]
    await engine.aclose()


async def test_an_image_goes_as_a_base64_image_block_to_claude(
        fake_anthropic: FakeSSEServer, git_repo: Path) -> None:  # noqa: F811
    fake_anthropic.queue(anthropic_api.text_reply("a png"))
    (git_repo / "shot.png").write_bytes(PNG)
    engine, _ = _engine(fake_anthropic, git_repo, "anthropic", model="claude-sonnet-4-5")

    assert await engine.run_turn("what is @shot.png?") is not None

    content = fake_anthropic.requests[0].json["messages"][-1]["content"]
    assert content[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                      "data": base64.b64encode(PNG).decode()}}
    assert content[1]["type"] == "text" and content[1]["text"] == "what is @shot.png?"
    assert not fake_anthropic.violations
    await engine.aclose()


async def test_a_model_without_images_is_refused_before_sending_naming_the_model_and_the_setting(
        fake_openai: FakeSSEServer, git_repo: Path) -> None:  # noqa: F811
    engine, _ = _engine(fake_openai, git_repo, model="qwen2.5-coder:7b")

    refusal = engine.user_context.image_refusal("what is @shot.png?")

    assert refusal is not None and "'qwen2.5-coder:7b'" in refusal and "provider.images: true" in refusal
    assert engine.user_context.image_refusal("what is @app.py?") is None
    await engine.aclose()


def test_the_session_log_keeps_a_reference_to_an_image_that_its_strict_reader_accepts() -> None:
    from ljtui.core.agent.session_records import MessageAdded, encode_record, parse_record
    from ljtui.core.providers.base import ImageBlock, Message, TextBlock

    sent = Message("user", (ImageBlock("image/png", base64.b64encode(PNG).decode(), "shot.png"), TextBlock("what?")))

    line = encode_record(MessageAdded(sent))
    read = parse_record(line.rstrip(b"\n"))

    assert base64.b64encode(PNG).decode() not in line.decode()
    assert isinstance(read, MessageAdded) and read.message.content == (
        TextBlock("[image shot.png (image/png) was attached here; the log keeps no copy]"), TextBlock("what?"))
