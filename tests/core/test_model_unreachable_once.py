"""A message whose routing call fails for a reason the conversation call would meet too (no model set up, a
refused connection, a rejected key) ends as one short error naming the fix, not the same error twice."""

from __future__ import annotations

import socket
from pathlib import Path

from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Event, Notice, TurnFailed
from ljtui.core.ports import ListSink
from ljtui.core.tasks.events import MessageRouted
from tests.fakes.fixtures import fake_anthropic, fast_provider  # noqa: F401
from tests.fakes.server import FakeSSEServer

COLUMNS = 80
MAX_LINES = 2
"""The error fits this many lines of an 80-column pane."""


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed): connecting to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def one_message(root: Path, config: Config) -> list[Event]:
    sink = ListSink()
    engine = Engine(config, sink, repo_root=root)
    assert await engine.handle_message("rename greet to welcome") is None
    await engine.aclose()
    return sink.events


def the_one_error(events: list[Event]) -> TurnFailed:
    """The message's only error: one ``turn_failed``, no error or warning notice, never routed to chat."""
    [failed] = [e for e in events if isinstance(e, TurnFailed)]
    assert not [e for e in events if isinstance(e, Notice) and e.level in ("error", "warning")]
    assert not [e for e in events if isinstance(e, MessageRouted)]
    assert "\n" not in failed.message and len(failed.message) <= COLUMNS * MAX_LINES, failed.message
    return failed


async def test_no_model_set_up_is_one_short_error_naming_the_fix(git_repo: Path) -> None:
    failed = the_one_error(await one_message(git_repo, Config()))
    assert failed.error == "config"
    assert failed.message == "no model is configured: set ANTHROPIC_API_KEY, or run `ljtui doctor` for the other ways"


async def test_a_refused_connection_is_one_short_error(git_repo: Path) -> None:
    config = Config()
    config.provider = fast_provider("anthropic", f"http://127.0.0.1:{closed_port()}", max_retries=0)
    failed = the_one_error(await one_message(git_repo, config))
    assert failed.error == "connection" and "cannot reach the Anthropic API at http://127.0.0.1:" in failed.message


async def test_a_rejected_key_is_one_short_error(git_repo: Path, fake_anthropic: FakeSSEServer) -> None:
    config = Config()
    config.provider = fast_provider("anthropic", fake_anthropic.url, api_key="sk-ant-wrong")
    failed = the_one_error(await one_message(git_repo, config))
    assert failed.error == "auth" and "Set ANTHROPIC_API_KEY or provider.api_key" in failed.message
    assert len(fake_anthropic.requests) == 1  # the routing call only: the conversation call is not tried again


def test_doctor_gives_every_way_to_set_a_model_up(git_repo: Path) -> None:
    from ljtui.cli.cmd_doctor import gather, render

    report = gather(git_repo, {})
    assert report["model"]["problem"].startswith("no model is configured: set ANTHROPIC_API_KEY, or use an")
    [row] = [line for line in render(report) if line.startswith("model")]
    assert "--provider scripted --script FILE" in row
