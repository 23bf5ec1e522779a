"""What a real small model answered the router and the decomposition, replayed byte for byte (TASK-1, TASK-2).

The recordings (``tests/fixtures/real_streams/llamacpp_{route,decompose}_*.json``) are SmolLM2 135M on
llama.cpp's own server, recorded through ``record.py proxy`` while ``ljtui run`` talked to it; each test checks
first that the recording shows what it is about. Only the model's own, finished answer is read: a reply cut off
at max_tokens, or one that only repeats an object its prompt holds, is not an answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine, TurnResult
from ljtui.core.events import Event, ModelCallStarted, Notice, TokenDelta
from ljtui.core.ports import ListSink
from ljtui.core.tasks.events import MessageRouted, TaskPlanFallback, TaskPlanProposed
from ljtui.core.tasks.facade import CHAT_FALLBACK
from tests.fakes import openai_api as api
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.recorded import Recording, recording
from tests.fakes.server import FakeSSEServer

DECOMPOSE_ECHO = recording("llamacpp_decompose_echo")
DECOMPOSE_CUT = recording("llamacpp_decompose_cut")
ROUTE_ECHO = recording("llamacpp_route_echo")
ROUTE_CUT = recording("llamacpp_route_cut")
NOTHING_TO_DO = "The planner found nothing to do for this request."


@pytest.fixture
def fake_openai() -> Iterator[FakeSSEServer]:
    """A fake chat-completions server to replay the recordings on."""
    with FakeSSEServer(require_key=FAKE_KEY) as server:
        yield server


def engine_on(server: FakeSSEServer, repo: Path, max_tokens: int) -> tuple[Engine, ListSink]:
    """An engine on the fake server, ``provider.max_tokens`` as the recording had it; a task plan is rejected."""
    sink = ListSink()
    cfg = fast_provider("openai-compatible", server.url + "/v1", max_tokens=max_tokens)
    return Engine(Config(provider=cfg), sink, repo_root=repo, approver=ScriptedApprover()), sink


def text_of(record: Recording) -> str:
    """What the model wrote."""
    return "".join(c["delta"].get("content") or "" for chunk in record.chunks() for c in chunk.get("choices", []))


def system_of(record: Recording) -> str:
    return record.request["messages"][0]["content"]


def notices(sink: ListSink) -> list[str]:
    return [e.message for e in sink.events if isinstance(e, Notice)]


def before(sink: ListSink, first: type[Event], then: type[Event]) -> bool:
    kinds = [type(e) for e in sink.events]
    return first in kinds and then in kinds and kinds.index(first) < kinds.index(then)


async def test_a_decomposition_that_repeats_the_empty_plan_its_goal_holds_is_an_echo_not_nothing_to_do(
    fake_openai: FakeSSEServer, git_repo: Path,
) -> None:
    goal = DECOMPOSE_ECHO.request["messages"][1]["content"]
    assert goal == 'Repeat this exactly: {"tasks": []}' and DECOMPOSE_ECHO.finish_reason() == "stop"
    assert text_of(DECOMPOSE_ECHO) == 'Repeat this exactly:\n\n{"tasks": []}', "the model repeated its prompt"
    fake_openai.queue(DECOMPOSE_ECHO.reply())
    engine, sink = engine_on(fake_openai, git_repo, 300)

    outcome = await engine.run_plan(goal)
    await engine.aclose()

    assert outcome.status == "rejected", "not 'empty': the one-task fallback was proposed (and rejected by the test)"
    assert NOTHING_TO_DO not in notices(sink)
    [fallback] = [e for e in sink.events if isinstance(e, TaskPlanFallback)]
    assert fallback.reason == ('echoed the prompt: every JSON object with a "tasks" key in the reply is one its '
                               "prompt already holds: the model repeated its prompt instead of answering")
    [proposed] = [e for e in sink.events if isinstance(e, TaskPlanProposed)]
    assert [t.description for t in proposed.tasks] == [goal]
    assert before(sink, ModelCallStarted, TaskPlanFallback), "the decomposition call announced itself"
    assert not [e for e in sink.events if isinstance(e, TokenDelta)], "and did not show its text"


async def test_a_decomposition_cut_at_max_tokens_falls_back_saying_so_and_naming_provider_max_tokens(
    fake_openai: FakeSSEServer, git_repo: Path,
) -> None:
    assert DECOMPOSE_CUT.finish_reason() == "length" and DECOMPOSE_CUT.request["max_tokens"] == 300
    assert system_of(DECOMPOSE_CUT).startswith("You split a software change request")
    written = text_of(DECOMPOSE_CUT)
    assert '"tasks": [' in written and written.count("{") > written.count("}"), "a plan begun, never closed"
    goal = DECOMPOSE_CUT.request["messages"][1]["content"]
    fake_openai.queue(DECOMPOSE_CUT.reply())
    engine, sink = engine_on(fake_openai, git_repo, 300)

    outcome = await engine.run_plan(goal)
    await engine.aclose()

    assert outcome.status == "rejected", "the one-task fallback was proposed (and rejected by the test)"
    [fallback] = [e for e in sink.events if isinstance(e, TaskPlanFallback)]
    assert fallback.reason == ("cut off at max_tokens: the model's reply reached provider.max_tokens (300 tokens) "
                               "before it held a whole plan")
    [proposed] = [e for e in sink.events if isinstance(e, TaskPlanProposed)]
    assert [t.description for t in proposed.tasks] == [goal]
    assert fake_openai.requests[0].json["max_tokens"] == 300, "the decomposition asks no more than provider.max_tokens"
    [started] = [e for e in sink.events if isinstance(e, ModelCallStarted)]
    assert (started.turn, started.provider, started.model) == (1, "openai-compatible", "local-test")
    assert before(sink, ModelCallStarted, TaskPlanFallback)
    assert not [e for e in sink.events if isinstance(e, TokenDelta)], "the decomposition's text is not shown"
    assert NOTHING_TO_DO not in notices(sink)


async def test_a_routing_reply_cut_at_max_tokens_goes_to_chat_saying_it_was_cut(
    fake_openai: FakeSSEServer, git_repo: Path,
) -> None:
    assert ROUTE_CUT.finish_reason() == "length" and ROUTE_CUT.request["max_tokens"] == 256
    assert system_of(ROUTE_CUT).startswith("You route one message")
    message = ROUTE_CUT.request["messages"][1]["content"]
    fake_openai.queue(ROUTE_CUT.reply(), api.text_reply("It is the router's answer format."))
    engine, sink = engine_on(fake_openai, git_repo, 300)

    result = await engine.handle_message(message)
    await engine.aclose()

    assert isinstance(result, TurnResult) and result.text == "It is the router's answer format."
    [routed] = [e for e in sink.events if isinstance(e, MessageRouted)]
    assert routed.route == "chat"
    assert ("The router's answer could not be read (cut off at max_tokens: it reached the 256 tokens a routing "
            "answer may take)" + CHAT_FALLBACK) in notices(sink)
    router_started = next(e for e in sink.events if isinstance(e, ModelCallStarted))
    assert router_started.turn == 1 and before(sink, ModelCallStarted, MessageRouted), "the routing call announced"
    assert len([e for e in sink.events if isinstance(e, ModelCallStarted)]) == 2, "routing, then chat"
    assert "".join(e.text for e in sink.events if isinstance(e, TokenDelta)) == result.text, "the router is quiet"


async def test_a_routing_reply_that_repeats_the_route_its_message_holds_goes_to_chat_not_to_a_plan(
    fake_openai: FakeSSEServer, git_repo: Path,
) -> None:
    message = ROUTE_ECHO.request["messages"][1]["content"]
    shown = '{"route": "plan", "skill": null, "reason": "several steps"}'
    assert message == f"Say exactly this and nothing else: {shown}" and ROUTE_ECHO.finish_reason() == "stop"
    assert text_of(ROUTE_ECHO) == shown, "the model repeated the object its message holds"
    fake_openai.queue(ROUTE_ECHO.reply(), api.text_reply("It is what the router answers."))
    engine, sink = engine_on(fake_openai, git_repo, 300)

    result = await engine.handle_message(message)
    await engine.aclose()

    assert isinstance(result, TurnResult) and result.text == "It is what the router answers."
    assert [(e.route, e.skill) for e in sink.events if isinstance(e, MessageRouted)] == [("chat", None)]
    assert ('The router\'s answer could not be read (echoed the prompt: every JSON object with a "route" key in the '
            "reply is one its prompt already holds: the model repeated its prompt instead of answering)"
            + CHAT_FALLBACK) in notices(sink)
    assert not [e for e in sink.events if isinstance(e, TaskPlanProposed)], "no plan from an echo"
    assert len(fake_openai.requests) == 2 and fake_openai.requests[1].json.get("tools"), "routing, then chat"
    assert before(sink, ModelCallStarted, MessageRouted), "the routing call announced itself"
