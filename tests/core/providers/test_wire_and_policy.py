"""Pure parts of the providers: wire shapes, fragments, backoff, prices, messages."""

from __future__ import annotations

import email.utils

import pytest

from ljtui.core.config import ProviderConfig, load_config
from ljtui.core.events import Usage
from ljtui.core.providers import anthropic_wire, openai_wire
from ljtui.core.providers.base import (
    ChatRequest, Message, TextBlock, ToolCall, ToolResultBlock, ToolSpec, ToolUseBlock,
)
from ljtui.core.providers.errors import kind_for_status, safe_endpoint, status_error
from ljtui.core.providers.pricing import cost_usd
from ljtui.core.providers.retry import MAX_RETRY_AFTER, RetryPolicy, parse_retry_after

SPEC = ToolSpec("grep", "Search.", {"type": "object"})
HISTORY = (
    Message.user("find it"),
    Message("assistant", (TextBlock(""), ToolUseBlock("t1", "grep", {"pattern": "x"}))),
    Message("user", (ToolResultBlock("t1", "no match", is_error=True),)),
)


def test_anthropic_params_mark_three_breakpoints_and_drop_empty_text() -> None:
    params = anthropic_wire.build_params(ChatRequest("sys", HISTORY, (SPEC,), 100), "m")
    assert params["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert params["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert params["messages"][1]["content"] == [
        {"type": "tool_use", "id": "t1", "name": "grep", "input": {"pattern": "x"}}]
    assert params["messages"][2]["content"] == [{
        "type": "tool_result", "tool_use_id": "t1", "content": "no match", "is_error": True,
        "cache_control": {"type": "ephemeral"}}]
    marks = str(params).count("cache_control")
    assert marks == 3 <= anthropic_wire.MAX_CACHE_BREAKPOINTS


def test_anthropic_history_serialises_the_same_whatever_comes_after() -> None:
    short = anthropic_wire.build_params(ChatRequest("s", HISTORY[:2], (SPEC,)), "m")
    long = anthropic_wire.build_params(ChatRequest("s", HISTORY, (SPEC,)), "m")
    stripped = anthropic_wire.strip_cache_control
    assert stripped(long["messages"][:2]) == stripped(short["messages"])


def test_openai_messages_map_tool_use_and_results() -> None:
    params = openai_wire.build_params(ChatRequest("sys", HISTORY, (SPEC,), 100), "m")
    assert params["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "find it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "grep", "arguments": '{"pattern":"x"}'}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "no match"},
    ]
    assert params["tools"][0]["function"]["parameters"] == {"type": "object"}
    assert params["stream_options"] == {"include_usage": True}


def test_tool_call_fragments_are_joined_by_index_even_when_interleaved() -> None:
    tools = openai_wire.ToolCallAssembler()
    tools.add(1, "b", "grep", None)
    tools.add(0, "a", "read", '{"pa')
    tools.add(1, None, None, '{"pattern": "x"}')
    tools.add(0, None, None, 'th": "f"}')
    assert tools.calls() == [ToolCall("a", "read", {"path": "f"}), ToolCall("b", "grep", {"pattern": "x"})]


def test_tool_call_without_arguments_gets_an_empty_object() -> None:
    tools = openai_wire.ToolCallAssembler()
    tools.add(0, "a", "status", None)
    assert tools.calls() == [ToolCall("a", "status", {})]


@pytest.mark.parametrize("raw", ["[1, 2]", '{"a": '])
def test_tool_call_arguments_must_be_a_json_object(raw: str) -> None:
    tools = openai_wire.ToolCallAssembler()
    tools.add(0, "a", "read", raw)
    with pytest.raises(ValueError, match="tool 'read' arguments"):
        tools.calls()


def test_backoff_doubles_up_to_the_cap_and_retry_after_wins() -> None:
    policy = RetryPolicy(max_retries=5, base_delay=0.5, max_delay=3.0)
    assert [policy.delay(n) for n in range(1, 5)] == [0.5, 1.0, 2.0, 3.0]
    assert policy.delay(1, retry_after=7.0) == 7.0
    assert policy.delay(1, retry_after=10_000) == MAX_RETRY_AFTER


def test_policy_comes_from_config_keys() -> None:
    cfg = load_config(overrides={"provider.max_retries": "3", "provider.retry_delay": 0.25}).config.provider
    assert RetryPolicy.from_config(cfg) == RetryPolicy(3, 0.25, 8.0)


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=lambda: 1_000_000) == 30.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


def test_cost_uses_cache_rates_or_falls_back_to_input() -> None:
    usage = Usage(1_000_000, 1_000_000, 1_000_000, 1_000_000)
    assert cost_usd(usage, {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}) == 22.05
    assert cost_usd(usage, {"input": 1, "output": 2}) == 5.0
    assert cost_usd(usage, None) is None


def test_price_table_is_checked_when_loaded() -> None:
    ok = load_config(overrides={"provider.prices": {"m": {"input": 1, "output": "2"}}})
    assert ok.config.provider.prices == {"m": {"input": 1.0, "output": 2.0}} and not ok.warnings
    for bad, problem in [({"m": {"input": 1}}, "needs both"), ({"m": {"input": 1, "output": 1, "cahce": 1}},
                         "unknown rate"), ({"m": {"input": -1, "output": 1}}, "negative"), ("cheap", "mapping")]:
        loaded = load_config(overrides={"provider.prices": bad})
        assert loaded.config.provider.prices == {} and problem in loaded.warnings[0]


@pytest.mark.parametrize(("status", "kind"), [
    (401, "auth"), (403, "auth"), (408, "timeout"), (429, "rate_limit"), (529, "overloaded"),
    (500, "server"), (503, "server"), (400, "bad_request"), (404, "bad_request"),
])
def test_status_kinds(status: int, kind: str) -> None:
    assert kind_for_status(status) == kind


def test_403_names_the_model_and_never_the_key() -> None:
    error = status_error("anthropic", 403, "key sk-secret-key-1 has no access", retries=0,
                         key_var="ANTHROPIC_API_KEY", model="claude-x", secrets=("sk-secret-key-1",))
    assert "lacks access to model claude-x" in error.message and "sk-secret" not in error.message


def test_safe_endpoint_hides_credentials_and_paths() -> None:
    assert safe_endpoint("https://user:pw@proxy.example:8443/v1?key=abc") == "https://proxy.example:8443"
    assert safe_endpoint(None) == "the default endpoint"


def test_api_key_is_not_in_the_config_repr() -> None:
    assert "sk-ant" not in repr(ProviderConfig(api_key="sk-ant-test-SECRET-123"))


async def test_retry_call_retries_only_retryable_errors_then_gives_up_clearly() -> None:
    from ljtui.core.providers.base import ProviderError
    from ljtui.core.providers.retry import retry_call

    policy = RetryPolicy(max_retries=2, base_delay=1.0, max_delay=4.0)
    waits: list[float] = []
    seen: list[tuple[int, str, float]] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    def failing(errors: list[ProviderError]):
        async def call() -> str:
            if errors:
                raise errors.pop(0)
            return "ok"
        return call

    busy = [ProviderError("overloaded", "busy", retryable=True, retry_after=3.0),
            ProviderError("overloaded", "busy", retryable=True)]
    assert await retry_call(failing(busy), policy, on_retry=lambda *a: seen.append((a[0], a[1].kind, a[2])),
                            sleep=sleep) == "ok"
    assert seen == [(1, "overloaded", 3.0), (2, "overloaded", 2.0)] and waits == [3.0, 2.0]

    with pytest.raises(ProviderError) as info:
        await retry_call(failing([ProviderError("overloaded", "busy", retryable=True)] * 3), policy,
                         on_retry=lambda *a: None, sleep=sleep)
    assert info.value.message == "busy; still failing after 2 retries"

    waits.clear()
    with pytest.raises(ProviderError) as info:
        await retry_call(failing([ProviderError("auth", "bad key")]), policy, on_retry=lambda *a: None, sleep=sleep)
    assert info.value.message == "bad key" and waits == []
