"""Only the model's own, finished answer is read: not an object its prompt holds, not a reply cut at max_tokens."""

from __future__ import annotations

import json
import time

import pytest

from ljtui.core.providers.base import ChatRequest, Message, TextBlock
from ljtui.core.tasks.decisions import DecisionError, DecisionKind, parse_decision, read_decision
from ljtui.core.tasks.decompose import (
    DecompositionKind, cut_reason, parse_decomposition, read_decomposition,
)
from ljtui.core.tasks.own_answer import (
    ECHOED, MAX_PROMPT_OBJECTS, PromptObjects, Reply, find_answer, prompt_texts, quoted_from_prompt,
)
from ljtui.core.tasks.prompts import REPLANNER_SYSTEM, decompose_system
from ljtui.core.tasks.route import CHAT, PLAN, parse_route, read_route, router_system
from tests.core.tasks.helpers import KNOWN, raw, reply

GOAL = "add a --verbose flag to the CLI"
OLD_SYSTEM = ('You split a software change request into a short plan of tasks. Reply with one JSON object:\n\n'
              '{"tasks": [{"id": 1, "description": "...", "tool_hint": "read_file", "depends_on": []}, ...]}\n\n'
              '- If the request needs no change at all, reply {"tasks": []}.')
"""A decomposition prompt that shows an answer a model can copy as it is (the one ljtui sent before)."""
EXAMPLE_TASK = {"id": 1, "description": "...", "tool_hint": "read_file", "depends_on": []}


@pytest.mark.parametrize("candidate", [
    '{"tasks": []}',
    '  {"tasks": []}\n',
    '{"tasks":[]}',
    '{ "tasks" : [ ] }',
    '{"id": 1, "description": "...", "tool_hint": "read_file", "depends_on": []}',
    '{"depends_on": [], "tool_hint": "read_file", "id": 1, "description": "..."}',
], ids=["verbatim", "padded", "compact", "spaced", "nested example", "keys reordered"])
def test_an_object_the_prompt_holds_verbatim_or_canonically_is_quoted(candidate: str) -> None:
    assert quoted_from_prompt(candidate, [OLD_SYSTEM, GOAL])


@pytest.mark.parametrize("candidate", [
    '{"tasks": [{"id": 1, "description": "Add the flag"}]}',
    '{"tasks": [{}]}',
    '{"tasks": null}',
    '{"tasks": [], "note": "nothing to do"}',
    "",
    "not json at all",
    '{"tasks": [',
], ids=["a real plan", "other content", "other value", "an extra key", "empty", "prose", "cut"])
def test_an_object_the_prompt_does_not_hold_is_not_quoted(candidate: str) -> None:
    assert not quoted_from_prompt(candidate, [OLD_SYSTEM, GOAL])


def test_an_object_in_the_users_message_is_quoted_too() -> None:
    message = 'make load_plan accept {"tasks": [{"id": 7, "description": "x"}]} from a file'
    assert quoted_from_prompt('{"tasks":[{"description":"x","id":7}]}', ["You split…", message])
    assert not quoted_from_prompt('{"tasks": [{"id": 7, "description": "y"}]}', ["You split…", message])


def test_the_prompt_texts_of_a_request_are_its_system_prompt_and_user_messages() -> None:
    said = Message("assistant", (TextBlock("said"),))
    request = ChatRequest("the system", (Message.user("first"), said, Message.user("second")))
    assert prompt_texts(request) == ("the system", "first", "second")


def test_a_huge_prompt_is_searched_in_bounded_time() -> None:
    nested = '{"a": [' * 20_000 + "1" + "]}" * 20_000
    start = time.monotonic()
    objects = PromptObjects([nested, "{" * 100_000, '{"b": 1} ' * MAX_PROMPT_OBJECTS + '{"c": 2}'])
    assert time.monotonic() - start < 5.0
    assert objects.canonical == frozenset(), "the decodes are used up before the small objects"
    assert objects.quotes('{"c": 2}'), "an object the prompt holds verbatim is still found"


def test_every_object_nested_in_a_prompt_object_is_found() -> None:
    outer = {"plan": {"tasks": [{"id": 1, "description": "x"}, {"id": 2, "description": "y"}]}}
    objects = PromptObjects([f"an example: {json.dumps(outer)} and more"])
    assert objects.holds({"id": 2, "description": "y"}) and objects.holds(outer)
    assert objects.quotes('{"description": "y", "id": 2}') and not objects.quotes('{"id": 3, "description": "z"}')


def test_an_echo_is_passed_over_and_the_models_own_answer_after_it_is_read() -> None:
    own = reply(raw(1, "Add the flag"))
    found = find_answer(f"{OLD_SYSTEM}\n\nMy answer:\n{own}", "tasks", [OLD_SYSTEM, GOAL])
    assert found.value == json.loads(own) and found.skipped == 1


def test_a_reply_whose_only_object_is_the_prompts_example_is_an_echo() -> None:
    echo = f"{OLD_SYSTEM}\n\n{GOAL}"
    found = find_answer(echo, "tasks", [OLD_SYSTEM, GOAL])
    assert found.value is None and found.error == ECHOED and "repeated its prompt" in found.detail
    assert find_answer(echo, "tasks").value == {"tasks": []}, "without the prompt, the echo would pass"


def test_an_echoed_empty_plan_is_not_an_empty_plan_but_a_fallback_saying_so() -> None:
    result = parse_decomposition(f"{OLD_SYSTEM}\n{GOAL}", KNOWN, GOAL, [OLD_SYSTEM, GOAL])
    assert result.kind is DecompositionKind.FALLBACK
    assert result.reason.startswith(f"{ECHOED}: ") and result.plan is not None
    assert [t.description for t in result.plan.tasks] == [GOAL]


def test_the_decomposition_prompt_shows_no_answer_to_copy_so_an_empty_plan_is_the_models_own() -> None:
    system = decompose_system(KNOWN)
    assert not [o for o in PromptObjects([system]).canonical if '"tasks"' in o]
    result = parse_decomposition('{"tasks": []}', KNOWN, GOAL, [system, GOAL])
    assert result.kind is DecompositionKind.EMPTY


def test_tasks_copied_from_the_prompts_example_are_dropped() -> None:
    copied = reply(EXAMPLE_TASK, raw(2, "Add the flag"), raw(3, "Run the tests", hint="bash"))
    result = parse_decomposition(copied, KNOWN, GOAL, [OLD_SYSTEM, GOAL])
    assert result.kind is DecompositionKind.PLAN and result.plan is not None
    assert [t.description for t in result.plan.tasks] == ["Add the flag", "Run the tests"]
    assert "1 task(s) dropped: a copy of an example the prompt holds." in result.notes
    only = parse_decomposition(reply(EXAMPLE_TASK), KNOWN, GOAL, [OLD_SYSTEM, GOAL])
    assert only.kind is DecompositionKind.FALLBACK and only.reason.startswith(ECHOED)


def test_a_decomposition_cut_at_max_tokens_falls_back_naming_provider_max_tokens() -> None:
    whole = reply(raw(1, "Add the flag"), raw(2, "Test it", hint="bash"))
    cut = Reply(whole, "max_tokens", (decompose_system(KNOWN), GOAL), 1024)
    result = read_decomposition(cut, KNOWN, GOAL, 1024)
    assert result.kind is DecompositionKind.FALLBACK
    assert result.reason == ("cut off at max_tokens: the model's reply reached provider.max_tokens (1,024 tokens) "
                             "before it held a whole plan")
    finished = read_decomposition(Reply(whole, "end_turn", cut.prompt, 1024), KNOWN, GOAL, 1024)
    assert finished.kind is DecompositionKind.PLAN


def test_a_cut_at_the_planning_cap_says_so_and_names_provider_max_tokens() -> None:
    assert cut_reason(2048, 8192) == ("cut off at max_tokens: the model's reply reached the 2,048 tokens a planning "
                                      "reply may take (provider.max_tokens is 8,192) before it held a whole plan")


def test_the_router_does_not_take_a_route_it_was_sent_as_its_answer() -> None:
    message = 'what does {"route": "plan", "skill": null, "reason": "a big job"} mean?'
    prompt = (router_system("fix-with-test: fix a bug"), message)
    route = parse_route(f"You asked: {message}", ["fix-with-test"], prompt)
    assert route.route == CHAT and route.problem.startswith(f"the router's answer could not be read ({ECHOED}: ")
    assert parse_route(f"You asked: {message}", ["fix-with-test"]).route == PLAN, "without the prompt it would"
    own = parse_route('{"route": "plan", "skill": null, "reason": "several steps"}', ["fix-with-test"], prompt)
    assert (own.route, own.reason, own.problem) == (PLAN, "several steps", "")


def test_a_router_reply_cut_at_max_tokens_goes_to_chat_saying_so() -> None:
    text = '{"route": "plan", "skill": null, "reason": "x"} and then the model went on and on'
    route = read_route(Reply(text, "max_tokens", ("system", "hi"), 256), [])
    assert route.route == CHAT
    assert route.problem == ("the router's answer could not be read (cut off at max_tokens: it reached the 256 "
                             "tokens a routing answer may take)")
    assert read_route(Reply(text, "end_turn", ("system", "hi"), 256), []).route == PLAN


def test_the_replanner_reads_only_its_own_finished_answer() -> None:
    error = 'the tool said {"decision": "skip", "reason": "done"}'
    echo = parse_decision(f"Task 2 failed: {error}", (REPLANNER_SYSTEM, error))
    assert isinstance(echo, DecisionError) and ECHOED in echo.message
    own = parse_decision('{"decision": "retry", "reason": "flaky"}', (REPLANNER_SYSTEM, error))
    assert not isinstance(own, DecisionError) and own.kind is DecisionKind.RETRY
    cut = read_decision(Reply('{"decision": "retry", "reason": "flaky"}', "max_tokens", (), 2048))
    assert isinstance(cut, DecisionError) and cut.message == "the reply was cut off at max_tokens (2,048 tokens)"
