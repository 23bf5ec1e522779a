"""Reading the router's reply: every outcome, and the request it is asked with."""

from __future__ import annotations

import json

from ljtui.core.providers import scripted
from ljtui.core.tasks.route import (
    CHAT, MAX_REASON_CHARS, PLAN, ROUTER_AGENT, ROUTER_MAX_TOKENS, Route, parse_route, routed_line, router_request,
)

SKILLS = ("fix-with-test", "rename-symbol")


def reply(route: object = "chat", skill: object = None, reason: object = "why") -> str:
    return json.dumps({"route": route, "skill": skill, "reason": reason})


def test_chat_and_plan_are_taken_as_given() -> None:
    assert parse_route(reply("chat"), SKILLS) == Route(CHAT, None, "why")
    assert parse_route(reply("plan", reason="three files and a test"), SKILLS) == Route(
        PLAN, None, "three files and a test")


def test_a_known_skill_is_a_plan_whatever_the_route_said() -> None:
    assert parse_route(reply("chat", "fix-with-test"), SKILLS) == Route(PLAN, "fix-with-test", "why")
    assert parse_route(reply("plan", "/rename-symbol"), SKILLS).skill == "rename-symbol"


def test_an_unknown_skill_goes_to_chat_saying_so() -> None:
    found = parse_route(reply("plan", "deploy-to-mars"), SKILLS)
    assert (found.route, found.skill) == (CHAT, None)
    assert found.problem == "the router named the skill 'deploy-to-mars', which does not exist"


def test_a_reply_in_prose_or_a_fence_is_read() -> None:
    text = f"Sure.\n```json\n{reply('plan')}\n```\nThat is my answer."
    assert parse_route(text, SKILLS).route == PLAN


def test_garbage_and_wrong_shapes_go_to_chat_with_the_reason() -> None:
    for text, problem in [
        ("I think you should plan this.", "could not be read (unparsable JSON"),
        ('{"tasks": []}', "could not be read (wrong shape"),
        (reply("maybe"), "\"route\" is 'maybe', not chat or plan"),
        (reply("plan", 7), "\"skill\" is a int"),
    ]:
        found = parse_route(text, SKILLS)
        assert (found.route, found.skill) == (CHAT, None), text
        assert problem in found.problem, (text, found.problem)


def test_the_reason_is_one_clean_bounded_line() -> None:
    found = parse_route(reply("plan", reason="a\x00b\n" + "x" * 1000), SKILLS)
    assert "\x00" not in found.reason and "\n" not in found.reason and len(found.reason) == MAX_REASON_CHARS
    assert parse_route(reply("plan", reason=["not", "text"]), SKILLS).reason == ""


def test_the_request_has_no_tools_a_small_reply_and_the_skill_listing() -> None:
    request = router_request("add a CLI flag", "fix-with-test: fix a bug with a failing test first")
    assert request.tools == () and request.max_tokens == ROUTER_MAX_TOKENS and request.agent == ROUTER_AGENT
    assert "fix-with-test: fix a bug with a failing test first" in request.system
    assert '{"route": "chat" | "plan"' in request.system
    assert [m.content[0].text for m in request.messages] == ["add a CLI flag"]  # type: ignore[union-attr]
    assert "(none)" in router_request("x", "").system


def test_only_a_plan_gets_a_conversation_line() -> None:
    assert routed_line(Route(CHAT, None, "a question")) == ""
    assert routed_line(Route(PLAN, None, "several steps")) == "Routed to a task plan: several steps"
    assert routed_line(Route(PLAN, "fix-with-test", "")) == "Routed to the skill 'fix-with-test'."


def test_the_scripted_default_answer_is_a_chat_route() -> None:
    assert scripted.ROUTER_AGENT == ROUTER_AGENT
    found = parse_route(scripted.DEFAULT_ROUTE, SKILLS)
    assert found == Route(CHAT, None, "no router turns in the script")
