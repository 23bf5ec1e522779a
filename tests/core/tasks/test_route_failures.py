"""A routed message against real SDKs and a fake server: a failed routing call ends the message once,
and ``agent.router_model`` names the routing call's model."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator

import pytest

import ljtui.core.providers.anthropic  # noqa: F401  (imported here so no timing below pays for it)
import ljtui.core.providers.openai_compat  # noqa: F401
from ljtui.core.config import AgentConfig, Config, ProviderConfig
from ljtui.core.engine import Engine, TurnResult
from ljtui.core.events import Notice, TurnFailed
from ljtui.core.ports import ListSink
from ljtui.core.providers.limits import CallLimits
from ljtui.core.tasks.events import MessageRouted
from ljtui.core.tasks.route import ROUTER_MAX_TOKENS
from tests.fakes import anthropic_api, openai_api
from tests.fakes.fixtures import FAKE_KEY, TEST_TIMEOUT, fast_provider
from tests.fakes.server import FakeSSEServer, RecordedRequest, Reply

ROUTER_MODEL = "small-fast-router"
ROUTED_TO_CHAT = json.dumps({"route": "chat", "skill": None, "reason": "a question"})
LOAD_SLACK = 1.0
"""Seconds a loaded machine may add to one failed call; less than one more call would take."""


@dataclass(frozen=True)
class Flavour:
    name: str
    api: ModuleType
    path: str
    unauthorized: Callable[[], Reply]

    def cfg(self, server: FakeSSEServer, **overrides: object) -> ProviderConfig:
        return fast_provider(self.name, server.url + self.path, **overrides)


FLAVOURS = [
    pytest.param(Flavour("anthropic", anthropic_api, "",
                         lambda: anthropic_api.status_reply(401, "authentication_error", "invalid x-api-key")),
                 id="anthropic"),
    pytest.param(Flavour("openai-compatible", openai_api, "/v1",
                         lambda: openai_api.status_reply(401, "invalid api key")), id="openai"),
]


@pytest.fixture
def server() -> Iterator[FakeSSEServer]:
    with FakeSSEServer(require_key=FAKE_KEY) as fake:
        yield fake


def engine_on(cfg: ProviderConfig, repo: Path, **agent: object) -> tuple[Engine, ListSink]:
    sink = ListSink()
    return Engine(Config(provider=cfg, agent=AgentConfig(**agent)), sink, repo_root=repo), sink  # type: ignore[arg-type]


def is_routing(request: RecordedRequest) -> bool:
    return request.json["max_tokens"] == ROUTER_MAX_TOKENS and "You route one message" in json.dumps(request.json)


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_silent_server_fails_a_routed_message_once_with_no_chat_call(
        flavour: Flavour, server: FakeSSEServer, git_repo: Path) -> None:
    server.responder = lambda request: flavour.api.never_answers()
    cfg = flavour.cfg(server)
    engine, sink = engine_on(cfg, git_repo)

    start = time.monotonic()
    result = await engine.handle_message("what does greet do?")
    elapsed = time.monotonic() - start
    await engine.aclose()

    assert result is None
    limits = CallLimits.from_config(cfg)
    assert len(server.requests) == limits.silent_attempts, "one call: its one silence retry, nothing more"
    assert all(is_routing(r) for r in server.requests), "no request was made for chat"
    [failed] = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert failed.error == "timeout" and failed.turn == 1
    assert f"sent nothing for {TEST_TIMEOUT:g}s (provider.timeout)" in failed.message
    assert failed.message.endswith("Your conversation is intact: send the message again to retry.")
    assert not [e for e in sink.events if isinstance(e, MessageRouted)]
    assert not [e for e in sink.events if isinstance(e, Notice) and "conversation agent" in e.message]
    assert engine.history == []
    assert limits.silent_attempts * TEST_TIMEOUT <= elapsed < limits.silent_failure_bound() + LOAD_SLACK


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_server_error_in_routing_ends_the_message_with_that_error(
        flavour: Flavour, server: FakeSSEServer, git_repo: Path) -> None:
    server.responder = lambda request: flavour.unauthorized()
    cfg = flavour.cfg(server)
    engine, sink = engine_on(cfg, git_repo)
    assert await engine.handle_message("hello") is None
    await engine.aclose()
    assert len(server.requests) == 1 and is_routing(server.requests[0])
    [failed] = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert failed.status == 401


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_an_unreadable_routing_answer_still_goes_to_chat(
        flavour: Flavour, server: FakeSSEServer, git_repo: Path) -> None:
    server.queue(flavour.api.text_reply("Plan it, definitely."), flavour.api.text_reply("It greets."))
    engine, sink = engine_on(flavour.cfg(server), git_repo)
    result = await engine.handle_message("what does greet do?")
    await engine.aclose()
    assert isinstance(result, TurnResult) and result.text == "It greets."
    assert [is_routing(r) for r in server.requests] == [True, False]
    assert any(isinstance(e, Notice) and e.message.startswith("The router's answer could not be read")
               for e in sink.events)


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_router_model_names_the_model_of_the_routing_request_only(
        flavour: Flavour, server: FakeSSEServer, git_repo: Path) -> None:
    server.queue(flavour.api.text_reply(ROUTED_TO_CHAT), flavour.api.text_reply("It greets."))
    cfg = flavour.cfg(server)
    engine, _ = engine_on(cfg, git_repo, router_model=ROUTER_MODEL)
    result = await engine.handle_message("what does greet do?")
    await engine.aclose()
    assert isinstance(result, TurnResult) and result.text == "It greets."
    assert [(is_routing(r), r.json["model"]) for r in server.requests] == [(True, ROUTER_MODEL),
                                                                          (False, cfg.model)]


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_without_router_model_the_routing_request_uses_the_session_model(
        flavour: Flavour, server: FakeSSEServer, git_repo: Path) -> None:
    server.queue(flavour.api.text_reply(ROUTED_TO_CHAT), flavour.api.text_reply("It greets."))
    cfg = flavour.cfg(server)
    engine, _ = engine_on(cfg, git_repo)
    assert isinstance(await engine.handle_message("what does greet do?"), TurnResult)
    await engine.aclose()
    assert [r.json["model"] for r in server.requests] == [cfg.model, cfg.model]


async def test_the_routing_call_is_priced_at_the_router_models_rates(server: FakeSSEServer, git_repo: Path) -> None:
    from ljtui.core.events import UsageRecorded

    api = anthropic_api
    server.queue(api.text_reply(ROUTED_TO_CHAT, input_tokens=1_000_000, output_tokens=0),
                 api.text_reply("It greets.", input_tokens=1_000_000, output_tokens=0))
    cfg = fast_provider("anthropic", server.url, prices={
        "claude-test": {"input": 3.0, "output": 15.0}, ROUTER_MODEL: {"input": 0.25, "output": 1.25}})
    engine, sink = engine_on(cfg, git_repo, router_model=ROUTER_MODEL)
    assert isinstance(await engine.handle_message("what does greet do?"), TurnResult)
    await engine.aclose()
    assert [e.cost_usd for e in sink.events if isinstance(e, UsageRecorded)] == [0.25, 3.0]
