"""The request rules: each one refuses a body the real API refuses and passes one it accepts;
the fake servers and the scripted provider refuse what breaks them, as the real API does."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from ljtui.core.providers import anthropic_wire, openai_wire
from ljtui.core.providers.anthropic import AnthropicClient
from ljtui.core.providers.base import (
    ChatRequest, Message, ProviderError, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock,
)
from ljtui.core.providers.openai_compat import OpenAICompatClient
from ljtui.core.providers.openai_rules import openai_problems
from ljtui.core.providers.request_rules import (
    DEFAULT_OUTPUT_LIMIT, anthropic_problems, output_limit,
)
from ljtui.core.providers.scripted import Script, ScriptedClient, ScriptedTurn
from tests.fakes import anthropic_api, openai_api
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.server import FakeSSEServer

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def user(*content: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(content) if content else "hi"}


def assistant(*content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(content)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(tool_id: str = "toolu_1", name: str = "read_file") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"path": "a"}}


def result(tool_id: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": list(messages), **extra}


def only(problems: list[str], fragment: str) -> None:
    assert len(problems) == 1 and fragment in problems[0], problems


ROUND_TRIP = (user(), assistant(text("Reading."), use()), user(result(), text("and then?")))


def test_a_valid_tool_round_trip_has_no_problem() -> None:
    assert anthropic_problems(body(*ROUND_TRIP, tools=[{"name": "read_file", "input_schema": SCHEMA}])) == []


# Anthropic: messages


def test_messages_must_be_a_non_empty_list() -> None:
    only(anthropic_problems(body()), "at least one message")
    assert anthropic_problems(body(user())) == []


def test_the_first_message_is_the_users() -> None:
    only(anthropic_problems(body(assistant(text("Hello")), user())), "first message must use the user role")
    assert anthropic_problems(body(user(), assistant(text("Hello")), user())) == []


def test_roles_are_user_and_assistant() -> None:
    only(anthropic_problems(body(user(), {"role": "system", "content": "x"})), "must be 'user' or 'assistant'")


def test_consecutive_turns_of_one_role_are_combined_not_refused() -> None:
    assert anthropic_problems(body(user(), user(text("more")), assistant(text("a")), assistant(text("b")),
                                   user())) == []


def test_every_tool_use_is_answered_in_the_next_message() -> None:
    only(anthropic_problems(body(user(), assistant(use()), user(text("never mind")))),
         "tool_use ids were found without tool_result blocks immediately after: toolu_1")
    only(anthropic_problems(body(user(), assistant(use()))), "without tool_result blocks")
    assert anthropic_problems(body(user(), assistant(use()), user(result()))) == []


def test_a_tool_result_answers_a_tool_use_of_the_message_right_before() -> None:
    late = body(user(), assistant(use()), user(result()), assistant(text("done")), user(result()))
    only(anthropic_problems(late), "unexpected tool_use_id found in tool_result blocks: toolu_1")
    only(anthropic_problems(body(user(result("toolu_9")))), "unexpected tool_use_id")
    assert anthropic_problems(body(user(), assistant(use("a"), use("b")), user(result("b"), result("a")))) == []


def test_tool_results_come_first_in_their_message() -> None:
    only(anthropic_problems(body(user(), assistant(use()), user(text("here:"), result()))),
         "tool_result blocks must come first")
    assert anthropic_problems(body(*ROUND_TRIP)) == []


def test_tool_use_ids_are_unique_and_well_formed() -> None:
    twice = body(user(), assistant(use()), user(result()), assistant(use()), user(result()))
    only(anthropic_problems(twice), "tool_use ids must be unique")
    only(anthropic_problems(body(user(), assistant(use("call:1")), user(result("call_1")))),
         "tool_use.id: 'call:1' does not match")
    assert anthropic_problems(body(user(), assistant(use("call-1_A")), user(result("call-1_A")))) == []


def test_tool_blocks_belong_to_their_role() -> None:
    problems = anthropic_problems(body(user(use()), assistant(result())))
    assert any("tool_use blocks are only allowed in assistant" in p for p in problems)
    assert any("tool_result blocks are only allowed in user" in p for p in problems)


@pytest.mark.parametrize("blank", ["", "  \n\t"])
def test_text_blocks_hold_visible_text(blank: str) -> None:
    only(anthropic_problems(body(user(text(blank)))), "text content blocks must contain non-whitespace text")
    only(anthropic_problems(body(user(text("hi"), text(blank)))), "non-whitespace text")
    only(anthropic_problems(body(user(), assistant(text(blank)), user())), "non-whitespace text")
    assert anthropic_problems(body(user(text(" hi ")))) == []


def test_no_message_but_a_final_assistant_one_is_empty() -> None:
    only(anthropic_problems(body({"role": "user", "content": []})), "non-empty content")
    only(anthropic_problems(body({"role": "user", "content": "  "})), "non-whitespace text")
    assert anthropic_problems(body(user(), {"role": "assistant", "content": []})) == []


def test_a_failed_tools_result_has_content() -> None:
    failed = {**result(), "is_error": True, "content": ""}
    only(anthropic_problems(body(user(), assistant(use()), user(failed))), "content cannot be empty if `is_error`")
    assert anthropic_problems(body(user(), assistant(use()), user({**failed, "content": "boom"}))) == []
    assert anthropic_problems(body(user(), assistant(use()), user({**result(), "content": ""}))) == []


def test_a_prefill_does_not_end_with_whitespace() -> None:
    only(anthropic_problems(body(user(), assistant(text("The answer is ")))), "trailing whitespace")
    only(anthropic_problems(body(user(), {"role": "assistant", "content": "{\n"})), "trailing whitespace")
    assert anthropic_problems(body(user(), assistant(text("The answer is")))) == []
    assert anthropic_problems(body(user(), assistant(text("ends with space ")), user())) == []


# Anthropic: the rest of the body


def test_system_text_blocks_hold_visible_text() -> None:
    only(anthropic_problems(body(user(), system=[text("rules"), text(" ")])), "system.1")
    assert anthropic_problems(body(user(), system=[text("rules")])) == []
    assert anthropic_problems(body(user(), system="rules")) == []


def _marked(block: dict[str, Any]) -> dict[str, Any]:
    return {**block, "cache_control": {"type": "ephemeral"}}


def test_at_most_four_cache_breakpoints_in_system_tools_and_messages() -> None:
    tools = [_marked({"name": "a", "input_schema": SCHEMA}), _marked({"name": "b", "input_schema": SCHEMA})]
    five = body(user(_marked(text("x")), _marked(text("y"))), system=[_marked(text("s"))], tools=tools)
    only(anthropic_problems(five), "A maximum of 4 blocks with cache_control may be provided. Found 5.")
    four = copy.deepcopy(five)
    del four["messages"][0]["content"][0]["cache_control"]
    assert anthropic_problems(four) == []


@pytest.mark.parametrize("name", ["read file", "", "x" * 65, "lire_fichié", "a.b"])
def test_tool_names_match_the_pattern(name: str) -> None:
    only(anthropic_problems(body(user(), tools=[{"name": name, "input_schema": SCHEMA}])), "does not match")


def test_tool_names_are_unique_and_schemas_are_objects() -> None:
    twice = [{"name": "read-file_2", "input_schema": SCHEMA}, {"name": "read-file_2", "input_schema": SCHEMA}]
    only(anthropic_problems(body(user(), tools=twice)), "tool names must be unique")
    for schema in ({}, {"type": "array"}, None):
        only(anthropic_problems(body(user(), tools=[{"name": "t", "input_schema": schema}])), "type 'object'")
    assert anthropic_problems(body(user(), tools=[{"name": "x" * 64, "input_schema": {"type": "object"}}])) == []


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "100", None])
def test_max_tokens_is_a_positive_integer(value: Any) -> None:
    only(anthropic_problems({**body(user()), "max_tokens": value}), "max_tokens: must be a positive integer")


def test_max_tokens_is_within_the_models_output_limit() -> None:
    assert output_limit("claude-3-5-haiku-20241022") == 8_192
    assert output_limit("claude-opus-4-1-20250805") == 32_000 and output_limit("claude-opus-4-6") == 128_000
    assert output_limit("some-future-model") == DEFAULT_OUTPUT_LIMIT
    only(anthropic_problems({**body(user()), "model": "claude-3-5-haiku-20241022", "max_tokens": 8_193}),
         "max_tokens: 8193 > 8192")
    assert anthropic_problems({**body(user()), "model": "claude-3-5-haiku-20241022", "max_tokens": 8_192}) == []


# OpenAI chat completions


def call(call_id: str = "call_1", name: str = "read_file") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def chat(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "local-test", "max_tokens": 100, "stream": True, "messages": list(messages), **extra}


SYSTEM = {"role": "system", "content": "rules"}
USER = {"role": "user", "content": "hi"}


def answer(call_id: str = "call_1") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def calling(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def test_openai_a_valid_round_trip_has_no_problem() -> None:
    fn = {"type": "function", "function": {"name": "read_file", "parameters": SCHEMA}}
    assert openai_problems(chat(SYSTEM, USER, calling(call("a"), call("b")), answer("b"), answer("a"), USER,
                                tools=[fn])) == []


def test_openai_every_call_is_answered_right_after_it() -> None:
    only(openai_problems(chat(USER, calling(call()), USER)), "not answered: call_1")
    only(openai_problems(chat(USER, calling(call("a"), call("b")), answer("a"))), "not answered: b")
    assert openai_problems(chat(USER, calling(call()), answer())) == []


def test_openai_a_tool_message_answers_a_preceding_call() -> None:
    only(openai_problems(chat(USER, answer())), "must be a response to a preceding message with 'tool_calls'")
    late = chat(USER, calling(call()), answer(), {"role": "assistant", "content": "done"}, answer())
    only(openai_problems(late), "must be a response to a preceding message")
    only(openai_problems(chat(USER, calling(call()), answer("call_2"), answer())), "'call_2'")
    assert openai_problems(chat(USER, calling(call()), answer(), USER)) == []


def test_openai_roles_are_the_four_known_ones() -> None:
    only(openai_problems(chat(USER, {"role": "function", "content": "x"})), "must be one of system, user")
    only(openai_problems(chat()), "at least one message")
    assert openai_problems(chat(SYSTEM, USER, {"role": "assistant", "content": "hello"})) == []


def test_openai_an_assistant_message_has_content_or_calls() -> None:
    only(openai_problems(chat(USER, {"role": "assistant", "content": None})), "needs 'content' or 'tool_calls'")


@pytest.mark.parametrize("name", ["read file", "", "x" * 65])
def test_openai_function_names_match_the_pattern(name: str) -> None:
    tool = {"type": "function", "function": {"name": name, "parameters": SCHEMA}}
    only(openai_problems(chat(USER, tools=[tool])), "does not match")
    only(openai_problems(chat(USER, calling(call(name=name)), answer())), "does not match")


def test_openai_parameters_are_object_schemas_and_names_unique() -> None:
    arr = {"type": "function", "function": {"name": "t", "parameters": {"type": "array"}}}
    only(openai_problems(chat(USER, tools=[arr])), "type 'object'")
    same = {"type": "function", "function": {"name": "t", "parameters": SCHEMA}}
    only(openai_problems(chat(USER, tools=[same, same])), "tool names must be unique")
    assert openai_problems(chat(USER, tools=[same])) == []


# The wire modules keep to the rules whatever the history holds


def request(*messages: Message, **extra: Any) -> ChatRequest:
    return ChatRequest("You are a test.", messages, (ToolSpec("read_file", "Read.", SCHEMA),), **extra)


def test_the_anthropic_wire_leaves_out_blank_text_and_puts_tool_results_first() -> None:
    history = request(
        Message.user("hi"),
        Message("assistant", (TextBlock("  \n"), ToolUseBlock("call:1", "read_file", {"path": "a"}))),
        Message("user", (TextBlock("here it is"), ToolResultBlock("call:1", "ok"))),
        Message("assistant", (TextBlock(" "), ToolUseBlock("toolu_2", "read_file", {}))),
        Message("user", (ToolResultBlock("toolu_2", "", is_error=True), TextBlock("thanks"))),
        Message("assistant", (TextBlock("The answer is "),)),
        system_tail="  ",
    )
    params = anthropic_wire.build_params(history, "claude-sonnet-4-5")
    assert anthropic_problems(params) == []
    messages = params["messages"]
    assert [b["type"] for b in messages[1]["content"]] == ["tool_use"]
    assert [b["type"] for b in messages[2]["content"]] == ["tool_result", "text"]
    assert messages[1]["content"][0]["id"] == messages[2]["content"][0]["tool_use_id"] != "call:1"
    assert messages[4]["content"][0]["content"] == anthropic_wire.EMPTY_TEXT
    empty = anthropic_wire.message_to_wire(Message("assistant", (TextBlock(""),)))
    assert empty["content"] == [{"type": "text", "text": anthropic_wire.EMPTY_TEXT}]
    assert messages[-1]["content"][-1]["text"] == "The answer is"


def test_the_anthropic_wire_sends_a_system_tail_without_a_system_prompt() -> None:
    params = anthropic_wire.build_params(
        ChatRequest("", (Message.user("hi"),), system_tail="# Summary"), "claude-test")
    assert params["system"] == [{"type": "text", "text": "# Summary"}] and anthropic_problems(params) == []


def test_the_openai_wire_never_sends_an_empty_assistant_message() -> None:
    history = request(Message.user("hi"), Message("assistant", (TextBlock(""),)), Message.user("again"))
    params = openai_wire.build_params(history, "local-test")
    assert openai_problems(params) == [] and params["messages"][2]["content"] == anthropic_wire.EMPTY_TEXT


# End to end: the real SDKs meet the fake servers; the scripted provider refuses as the API would


BAD_HISTORY = (Message("assistant", (TextBlock("I speak first."),)), Message.user("hi"))


async def test_the_fake_messages_api_answers_a_bad_request_400_and_records_it(tmp_path: Path) -> None:
    with FakeSSEServer(require_key=FAKE_KEY, check_requests=False) as server:
        server.queue(anthropic_api.text_reply("never sent"))
        client = AnthropicClient(fast_provider("anthropic", server.url), api_key=FAKE_KEY, base_url=server.url)
        with pytest.raises(ProviderError) as caught:
            async for _ in client.stream(request(*BAD_HISTORY)):
                pass
        await client.aclose()
    assert caught.value.status == 400 and caught.value.kind == "bad_request"
    assert "first message must use the user role" in caught.value.message
    [violation] = server.violations
    assert violation.path == "/v1/messages" and violation.number == 1
    assert violation.problems == ("messages.0.role: the first message must use the user role",)


async def test_the_fake_chat_completions_server_answers_a_bad_request_400_and_records_it() -> None:
    spec = ToolSpec("read file", "A name the server refuses.", SCHEMA)
    with FakeSSEServer(require_key=FAKE_KEY, check_requests=False) as server:
        base = server.url + "/v1"
        client = OpenAICompatClient(fast_provider("openai-compatible", base), api_key=FAKE_KEY, base_url=base)
        with pytest.raises(ProviderError) as caught:
            async for _ in client.stream(ChatRequest("rules", (Message.user("hi"),), (spec,))):
                pass
        await client.aclose()
    assert caught.value.status == 400 and "'read file' does not match" in caught.value.message
    [violation] = server.violations
    assert violation.path == "/v1/chat/completions" and "tools.0.name" in violation.problems[0]


def test_leaving_the_fake_server_fails_the_test_that_sent_a_bad_request() -> None:
    import httpx2

    server = FakeSSEServer()
    with pytest.raises(AssertionError, match="(?s)request 1 to /v1/messages:.*first message must use the user"):
        with server:
            reply = httpx2.post(server.url + "/v1/messages",
                                json=body(assistant(text("Hello")), user()), timeout=5)
            assert reply.status_code == 400
            assert reply.json()["error"]["type"] == "invalid_request_error"
    assert len(server.violations) == 1


def test_a_valid_request_and_other_paths_are_never_violations() -> None:
    import httpx2

    with FakeSSEServer() as server:
        server.queue(openai_api.text_reply("hello"), anthropic_api.text_reply("hello"))
        assert httpx2.post(server.url + "/v1/chat/completions", json=chat(USER), timeout=5).status_code == 200
        assert httpx2.post(server.url + "/v1/messages", json=body(user()), timeout=5).status_code == 200
        assert httpx2.get(server.url + "/v1/models", timeout=5).status_code == 404  # not a model call
    assert [p.path for p in server.probes] == ["/v1/models"] and len(server.requests) == 2
    assert server.violations == []


async def test_the_scripted_provider_refuses_a_request_the_api_would_refuse() -> None:
    client = ScriptedClient(Script(Path("test.yaml"), [ScriptedTurn("hello")]))
    with pytest.raises(ProviderError) as caught:
        async for _ in client.stream(request(*BAD_HISTORY)):
            pass
    assert caught.value.kind == "invalid_request" and caught.value.status == 400
    assert "messages.0.role: the first message must use the user role" in caught.value.message
    assert client.played == 0  # the turn is still there for a valid request
    replies = [d async for d in client.stream(request(Message.user("hi")))]
    assert replies and client.played == 1


async def test_the_scripted_provider_checks_the_body_the_anthropic_provider_sends() -> None:
    unanswered = request(Message.user("hi"), Message("assistant", (ToolUseBlock("toolu_1", "read_file", {}),)),
                         Message.user("and?"))
    client = ScriptedClient(Script(Path("test.yaml"), [ScriptedTurn("hello")]))
    with pytest.raises(ProviderError, match="without tool_result blocks immediately after: toolu_1"):
        async for _ in client.stream(unanswered):
            pass

