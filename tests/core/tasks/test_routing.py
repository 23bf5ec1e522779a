"""A plain message routed through the engine: to chat, a task plan or a skill, with scripted agents."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.engine import Engine, TurnResult
from ljtui.core.events import Notice, TurnFailed, UsageRecorded
from ljtui.core.ports import ListSink
from ljtui.core.tasks import events as T
from ljtui.core.tasks.facade import ROUTING_CANCELLED
from ljtui.core.tasks.runner import RunOutcome
from tests.core.agent.helpers import until
from tests.core.tasks.test_runner import THREE, make_engine


def route(route: str, skill: str | None = None, reason: str = "because") -> dict[str, Any]:
    return {"text": json.dumps({"route": route, "skill": skill, "reason": reason})}


def seen(engine: Engine) -> list[str]:
    """The agent of every model call the scripted provider answered."""
    return list(engine.model.client().agents_seen)  # type: ignore[attr-defined]


def routed(sink: ListSink) -> list[T.MessageRouted]:
    return [e for e in sink.events if isinstance(e, T.MessageRouted)]


def notices(sink: ListSink) -> list[str]:
    return [e.message for e in sink.events if isinstance(e, Notice)]


async def test_a_message_routed_to_a_plan_proposes_the_decomposed_plan(git_repo: Path) -> None:
    approver = ScriptedApprover()  # the safe answer: reject
    engine, sink = make_engine(git_repo, {"router": [route("plan", reason="three steps and a check")],
                                          "decompose": [THREE]}, approver)
    outcome = await engine.handle_message("read the sample and run its tests")
    assert isinstance(outcome, RunOutcome) and outcome.status == "rejected"
    assert [(e.route, e.skill, e.reason) for e in routed(sink)] == [("plan", None, "three steps and a check")]
    assert "Routed to a task plan: three steps and a check" in notices(sink)
    [proposed] = [e for e in sink.events if isinstance(e, T.TaskPlanProposed)]
    assert [t.description for t in proposed.tasks] == ["Read app.py", "Read README.md", "Run the tests"]
    assert proposed.run_id == outcome.run_id and approver.asked[0].kind == "task_plan"
    assert seen(engine) == ["router", "decompose"]


async def test_a_message_routed_to_a_skill_proposes_its_steps_without_a_decompose_call(git_repo: Path) -> None:
    approver = ScriptedApprover()
    engine, sink = make_engine(git_repo, {"router": [route("plan", "fix-with-test", "a bug to fix")]}, approver)
    outcome = await engine.handle_message("greet crashes on an empty name")
    assert isinstance(outcome, RunOutcome) and outcome.status == "rejected"
    assert [(e.route, e.skill) for e in routed(sink)] == [("plan", "fix-with-test")]
    assert "Routed to the skill 'fix-with-test': a bug to fix" in notices(sink)
    [asked] = approver.asked
    assert asked.tasks is not None and asked.tasks[0]["tool_hint"] == "grep_files"
    assert seen(engine) == ["router"]


async def test_an_unknown_skill_goes_to_chat_with_a_notice_and_is_answered(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"router": [route("plan", "deploy-to-mars")],
                                          "chat": [{"text": "Answered."}]})
    result = await engine.handle_message("ship it")
    assert isinstance(result, TurnResult) and result.text == "Answered."
    assert [(e.route, e.skill) for e in routed(sink)] == [("chat", None)]
    assert ("The router named the skill 'deploy-to-mars', which does not exist; the message goes to the "
            "conversation agent.") in notices(sink)
    assert not any(isinstance(e, T.TaskPlanProposed) for e in sink.events)


async def test_a_garbage_router_reply_goes_to_chat_with_a_notice_and_the_message_is_answered(
        git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"router": [{"text": "Plan it, definitely."}],
                                          "chat": [{"text": "Here is the answer."}]})
    result = await engine.handle_message("what does greet do?")
    assert isinstance(result, TurnResult) and result.text == "Here is the answer."
    [notice] = [n for n in notices(sink) if "router" in n]
    assert notice.startswith("The router's answer could not be read (unparsable JSON")
    assert notice.endswith("; the message goes to the conversation agent.")
    assert engine.history[0].text == "what does greet do?", "the message is kept"


async def test_a_failed_routing_call_ends_the_message_as_a_failed_turn_without_a_chat_call(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"router": [route("chat")],
                                          "chat": [{"text": "one"}, {"text": "two"}]})
    assert isinstance(await engine.handle_message("first"), TurnResult)
    second = await engine.handle_message("second")  # the script has no router turn left: the call fails
    assert second is None
    [failed] = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert failed.error == "script" and "has no turn left for agent 'router'" in failed.message
    assert failed.turn == 2
    assert [e.route for e in routed(sink)] == ["chat"], "the failed message was not routed"
    assert seen(engine) == ["router", "chat", "router"]
    assert [m.text for m in engine.history if m.role == "user"] == ["first"]


async def test_routing_chat_in_the_config_makes_no_router_call(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"router": [route("plan")], "chat": [{"text": "hi"}]}, routing="chat")
    result = await engine.handle_message("do several things")
    assert isinstance(result, TurnResult) and result.text == "hi"
    assert seen(engine) == ["chat"]
    assert [(e.route, e.reason) for e in routed(sink)] == [("chat", "agent.routing is chat")]
    assert not any(n.startswith("Routed") for n in notices(sink))


async def test_a_script_without_router_turns_routes_to_chat_and_reports_no_tokens(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"chat": [{"text": "hello"}]})
    result = await engine.handle_message("hello?")
    assert isinstance(result, TurnResult) and result.text == "hello"
    assert seen(engine) == ["router", "chat"]
    assert [e.reason for e in routed(sink)] == ["no router turns in the script"]
    assert len([e for e in sink.events if isinstance(e, UsageRecorded)]) == 1, "only the chat call used tokens"


async def test_cancelling_while_routing_says_nothing_was_sent(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"router": [route("chat", reason=" ".join(["slow"] * 200))],
                                          "chat": [{"text": "never"}]})
    engine.config.provider.chunk_delay = 0.05
    work = asyncio.create_task(engine.handle_message("hello"))
    await until(lambda: engine.model.built is not None and "router" in engine.model.built.agents_seen,  # type: ignore
                "the routing call to start")
    work.cancel()
    with pytest.raises(asyncio.CancelledError):
        await work
    assert notices(sink) == [ROUTING_CANCELLED]
    assert engine.history == [] and seen(engine) == ["router"]
