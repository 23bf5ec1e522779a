"""The openai-compatible provider through the real SDK against a loopback server."""

from __future__ import annotations

import time
from pathlib import Path

from ljtui.core.events import ModelCallRetried, ToolCallStarted, TurnFailed, UsageRecorded
from ljtui.core.providers import make_client
from ljtui.core.providers.base import ChatRequest, Message, StreamEnd
from tests.core.providers.helpers import make_rig, read_tools
from tests.fakes import openai_api as api
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.server import SSE, FakeSSEServer, Reply

INTACT = "Your conversation is intact: send the message again to retry."


def cfg_for(server: FakeSSEServer, **overrides: object):
    return fast_provider("openai-compatible", server.url + "/v1", **overrides)


async def test_text_streams_with_usage_and_cached_tokens(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.text_reply("Hello from a local model.", prompt_tokens=40, cached_tokens=30))
    rig = make_rig(cfg_for(fake_openai), tmp_path)

    result = await rig.engine.run_turn("hi")

    assert result is not None and result.text == "Hello from a local model."
    assert rig.kinds().count("token_delta") == 7
    [usage] = rig.of(UsageRecorded)
    assert (usage.call.input_tokens, usage.call.cache_read_tokens, usage.call.output_tokens) == (10, 30, 6)
    request = fake_openai.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.json["stream_options"] == {"include_usage": True}
    assert request.json["messages"][0]["role"] == "system"
    await rig.engine.aclose()


async def test_tool_call_round_trip(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(
        api.tool_reply("Reading.", "call_abc", "read_file", {"path": "app.py"}),
        api.text_reply("It greets."),
    )
    rig = make_rig(cfg_for(fake_openai), tmp_path, tools=read_tools())

    result = await rig.engine.run_turn("explain app.py")

    assert result is not None and result.text == "Reading.It greets."
    [call] = rig.of(ToolCallStarted)
    assert (call.call_id, call.name, call.input) == ("call_abc", "read_file", {"path": "app.py"})
    first, second = (r.json for r in fake_openai.requests)
    assert first["tools"][0] == {"type": "function", "function": {
        "name": "read_file", "description": "Read a file of the repository.",
        "parameters": read_tools().specs[0].input_schema}}
    assistant, tool = second["messages"][-2:]
    assert assistant["tool_calls"][0]["function"] == {"name": "read_file", "arguments": '{"path":"app.py"}'}
    assert tool == {"role": "tool", "tool_call_id": "call_abc", "content": "contents of app.py"}
    await rig.engine.aclose()


async def test_429_then_success(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.status_reply(429, "slow down"), api.text_reply("ok"))
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    result = await rig.engine.run_turn("hi")
    assert result is not None and result.text == "ok" and len(fake_openai.requests) == 2
    [retried] = rig.of(ModelCallRetried)
    assert retried.message == "the OpenAI-compatible server is rate limiting requests (HTTP 429)"
    await rig.engine.aclose()


async def test_503_twice_then_success(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.status_reply(503, "busy"), api.status_reply(503, "busy"), api.text_reply("ok"))
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    result = await rig.engine.run_turn("hi")
    assert result is not None and result.text == "ok" and len(fake_openai.requests) == 3
    await rig.engine.aclose()


async def test_midstream_overloaded_then_success(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.overloaded_midstream("Part"), api.text_reply("Whole."))
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    result = await rig.engine.run_turn("hi")
    assert result is not None and result.text == "Whole."
    [retried] = rig.of(ModelCallRetried)
    assert retried.error == "overloaded" and retried.attempt == 1
    await rig.engine.aclose()


async def test_server_errors_exhausted(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(*[api.status_reply(500, "model crashed")] * 3)
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.status == 500 and failed.message == (
        "the OpenAI-compatible server had a server error (HTTP 500): model crashed; "
        f"still failing after 2 retries. {INTACT}"
    )
    await rig.engine.aclose()


async def test_401_even_when_the_server_echoes_the_key(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.require_key = "the-right-key-000"
    fake_openai.unauthorized = lambda: api.status_reply(401, f"Incorrect API key provided: {FAKE_KEY}")
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "auth" and "the key is missing or wrong" in failed.message
    assert "OPENAI_API_KEY" in failed.message and FAKE_KEY not in rig.json_lines()
    await rig.engine.aclose()


async def test_stream_cut_off(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.cut_off())
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "bad_stream" and "connection closed mid-reply" in failed.message
    await rig.engine.aclose()


async def test_stream_without_finish_reason_is_an_error(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.truncated())
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    assert "ended before the reply was complete" in rig.of(TurnFailed)[0].message
    await rig.engine.aclose()


async def test_invalid_tool_arguments_are_an_error(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    start = {"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}}
    events = (
        api._chunk({"tool_calls": [start]}),
        api._chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{oops"}}]}),
        api._chunk({}, finish="tool_calls"),
        SSE("[DONE]"),
    )
    fake_openai.queue(Reply(events=events))
    rig = make_rig(cfg_for(fake_openai), tmp_path, tools=read_tools())
    assert await rig.engine.run_turn("hi") is None
    assert "tool 'read_file' arguments are not valid JSON" in rig.of(TurnFailed)[0].message
    await rig.engine.aclose()


async def test_server_that_never_answers_times_out(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    fake_openai.queue(api.never_answers())
    rig = make_rig(cfg_for(fake_openai, timeout=0.3, max_retries=0), tmp_path)
    start = time.monotonic()
    assert await rig.engine.run_turn("hi") is None
    assert time.monotonic() - start < 2
    assert rig.of(TurnFailed)[0].message == (
        f"the OpenAI-compatible server sent nothing for 0.3s (provider.timeout). {INTACT}"
    )
    await rig.engine.aclose()


async def test_keyless_local_server_gets_a_placeholder_key(tmp_path: Path) -> None:
    with FakeSSEServer() as server:
        server.queue(api.text_reply("hi"))
        client = make_client(fast_provider("openai-compatible", server.url + "/v1", api_key=None), env={})
        deltas = [d async for d in client.stream(ChatRequest("", (Message.user("hi"),)))]
        await client.aclose()
    assert deltas[-1] == StreamEnd("end_turn")
    assert server.requests[0].headers["authorization"] == "Bearer no-key"


async def test_complete_reply_from_a_server_that_never_closes_the_stream(
    fake_openai: FakeSSEServer, tmp_path: Path
) -> None:
    events = api.completion_events("done", usage=False)[:-1]
    fake_openai.queue(Reply(events=tuple(events) + (SSE({"choices": []}),), stall_after=len(events)))
    rig = make_rig(cfg_for(fake_openai, timeout=0.3), tmp_path)
    result = await rig.engine.run_turn("hi")
    assert result is not None and result.text == "done"
    await rig.engine.aclose()
