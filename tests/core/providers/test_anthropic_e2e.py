"""The anthropic provider through the real SDK against a loopback Messages API."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.events import (
    ModelCallStarted, ToolCallFinished, ToolCallStarted, TurnFailed, TurnFinished, UsageRecorded,
)
from tests.core.providers.helpers import make_rig, read_tools
from tests.fakes import anthropic_api as api
from tests.fakes.fixtures import fast_provider
from tests.fakes.server import FakeSSEServer


async def test_text_streams_as_token_events_in_order(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.text_reply("Hello from the fake Messages API.", chunk=5))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    result = await rig.engine.run_turn("hi")

    assert result is not None and result.text == "Hello from the fake Messages API."
    assert rig.kinds() == ["turn_started", "context_window_known", "model_call_started"] + ["token_delta"] * 7 + [
        "usage_recorded", "turn_finished"]
    assert rig.streamed_text() == result.text
    [started] = rig.of(ModelCallStarted)
    assert (started.provider, started.model) == ("anthropic", "claude-test")
    request = fake_anthropic.requests[0]
    assert request.path == "/v1/messages" and request.json["stream"] is True
    assert request.json["messages"][-1]["content"][0]["text"] == "hi"
    await rig.engine.aclose()


async def test_tool_use_round_trip(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(
        api.tool_reply("Let me read it.", "toolu_01", "read_file", {"path": "app.py"}),
        api.text_reply("It greets people."),
    )
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path, tools=read_tools())

    result = await rig.engine.run_turn("what does app.py do?")

    assert result is not None and result.text == "Let me read it.It greets people."
    [call] = rig.of(ToolCallStarted)
    assert (call.call_id, call.name, call.input) == ("toolu_01", "read_file", {"path": "app.py"})
    assert rig.of(ToolCallFinished)[0].ok
    first, second = (r.json for r in fake_anthropic.requests)
    assert first["tools"][0]["name"] == "read_file" and "input_schema" in first["tools"][0]
    assistant, tool_result = second["messages"][-2:]
    assert assistant["role"] == "assistant"
    assert assistant["content"][1] == {"type": "tool_use", "id": "toolu_01", "name": "read_file",
                                       "input": {"path": "app.py"}}
    assert tool_result["content"][0]["type"] == "tool_result"
    assert tool_result["content"][0]["tool_use_id"] == "toolu_01"
    assert tool_result["content"][0]["content"] == "contents of app.py"
    assert rig.of(TurnFinished)[0].stop_reason == "end_turn"
    await rig.engine.aclose()


async def test_cache_breakpoints_on_system_tools_and_last_turn(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(
        api.tool_reply("", "toolu_01", "read_file", {"path": "a"}), api.text_reply("done"),
    )
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path, tools=read_tools())
    await rig.engine.run_turn("go")

    for request in (r.json for r in fake_anthropic.requests):
        assert request["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert request["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        *earlier, last = request["messages"]
        assert last["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert all("cache_control" not in b for m in earlier for b in m["content"])
    first, second = (r.json for r in fake_anthropic.requests)
    assert first["system"] == second["system"] and first["tools"] == second["tools"]
    await rig.engine.aclose()


async def test_usage_per_call_session_totals_and_cost(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(
        api.text_reply("one", input_tokens=100, output_tokens=20, cache_write=1000),
        api.text_reply("two", input_tokens=50, output_tokens=10, cache_read=1000),
    )
    prices = {"claude-test": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}}
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, prices=prices), tmp_path)

    await rig.engine.run_turn("first")
    await rig.engine.run_turn("second")

    first, second = rig.of(UsageRecorded)
    assert (first.call.input_tokens, first.call.output_tokens, first.call.cache_write_tokens) == (100, 20, 1000)
    assert second.call.cache_read_tokens == 1000
    assert second.session.input_tokens == 150 and second.session.output_tokens == 30
    assert first.cost_usd == (100 * 3.0 + 20 * 15.0 + 1000 * 3.75) / 1e6
    assert second.session_cost_usd == first.cost_usd + second.cost_usd
    assert rig.of(TurnFinished)[1].usage == second.call
    assert rig.engine.session_usage == second.session
    await rig.engine.aclose()


async def test_no_cost_without_a_price_for_the_model(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.text_reply("hi"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, prices={"other": {"input": 1, "output": 1}}),
                   tmp_path)
    await rig.engine.run_turn("x")
    [usage] = rig.of(UsageRecorded)
    assert usage.cost_usd is None and usage.session_cost_usd is None
    assert not rig.of(TurnFailed)
    await rig.engine.aclose()
