"""Every fault of the anthropic provider, through the real SDK: what the user sees."""

from __future__ import annotations

import time
from pathlib import Path

from ljtui.core.events import ModelCallRetried, ModelCallStarted, TurnFailed, TurnFinished
from tests.core.providers.helpers import make_rig
from tests.fakes import anthropic_api as api
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.server import FakeSSEServer

INTACT = "Your conversation is intact: send the message again to retry."
CANCEL_BOUND_S = 5.0
"""A cancelled turn ends this fast, though it was waiting 30 s to retry (generous for a loaded CI box)."""
OPEN_STREAM_BOUND_S = 10.0
"""A complete reply returns this fast, though the server keeps the stream open for 30 s."""


async def test_429_then_success_honours_retry_after(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.rate_limited(retry_after="0.3"), api.text_reply("fine now"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    start = time.monotonic()
    result = await rig.engine.run_turn("hi")

    assert time.monotonic() - start >= 0.3
    assert result is not None and result.text == "fine now"
    assert len(fake_anthropic.requests) == 2 and not rig.of(TurnFailed)
    assert fake_anthropic.requests[1].headers["x-stainless-retry-count"] == "1"
    [retried] = rig.of(ModelCallRetried)
    assert (retried.attempt, retried.max_retries, retried.error, retried.delay) == (1, 2, "rate_limit", 0.3)
    assert retried.message == "the Anthropic API is rate limiting requests (HTTP 429)"
    assert rig.kinds()[:6] == ["turn_started", "context_window_known", "model_call_started", "model_call_retried",
                               "model_call_started", "token_delta"]
    await rig.engine.aclose()


async def test_529_twice_then_success(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.overloaded(), api.overloaded(), api.text_reply("third time lucky"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    result = await rig.engine.run_turn("hi")

    assert result is not None and result.text == "third time lucky"
    assert len(fake_anthropic.requests) == 3
    assert rig.streamed_text() == "third time lucky"
    assert [(r.attempt, r.error) for r in rig.of(ModelCallRetried)] == [(1, "overloaded"), (2, "overloaded")]
    assert "is overloaded (HTTP 529)" in rig.of(ModelCallRetried)[0].message
    await rig.engine.aclose()


async def test_midstream_overloaded_is_retried_and_partial_reply_discarded(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(api.overloaded_midstream("Partial "), api.text_reply("Complete answer."))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    result = await rig.engine.run_turn("hi")

    assert result is not None and result.text == "Complete answer."
    [retried] = rig.of(ModelCallRetried)
    assert (retried.attempt, retried.max_retries, retried.error) == (1, 2, "overloaded")
    assert "overloaded in the middle of the reply" in retried.message
    kinds = rig.kinds()
    assert kinds.index("model_call_retried") < len(kinds) - kinds[::-1].index("model_call_started") - 1
    assert len(rig.of(ModelCallStarted)) == 2 and rig.sleeps == [0.01]
    assert rig.engine.history[-1].text == "Complete answer."
    await rig.engine.aclose()


async def test_retries_exhausted_one_clear_message_and_session_survives(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(api.text_reply("first answer"), *[api.overloaded()] * 3, api.text_reply("back again"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    await rig.engine.run_turn("first")

    assert await rig.engine.run_turn("second") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "overloaded" and failed.status == 529
    assert failed.message == (
        f"the Anthropic API is overloaded (HTTP 529); still failing after 2 retries. {INTACT}"
    )
    assert [m.text for m in rig.engine.history] == ["first", "first answer"]

    result = await rig.engine.run_turn("second")
    assert result is not None and result.text == "back again"
    sent = [m["content"][0]["text"] for m in fake_anthropic.requests[-1].json["messages"]]
    assert sent == ["first", "first answer", "second"]
    await rig.engine.aclose()


async def test_midstream_overloaded_every_time_gives_up_after_budget(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(*[api.overloaded_midstream()] * 3)
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    assert await rig.engine.run_turn("hi") is None

    assert [r.attempt for r in rig.of(ModelCallRetried)] == [1, 2]
    [failed] = rig.of(TurnFailed)
    assert failed.message == (
        "the Anthropic API became overloaded in the middle of the reply (overloaded_error); "
        f"still failing after 2 retries. {INTACT}"
    )
    assert rig.engine.history == []
    await rig.engine.aclose()


async def test_401_says_key_missing_or_wrong_without_printing_it(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    cfg = fast_provider("anthropic", fake_anthropic.url, api_key="sk-ant-test-WRONG-456")
    rig = make_rig(cfg, tmp_path)

    assert await rig.engine.run_turn("hi") is None

    [failed] = rig.of(TurnFailed)
    assert failed.error == "auth" and failed.status == 401
    assert "rejected the API key (HTTP 401): the key is missing or wrong" in failed.message
    assert "ANTHROPIC_API_KEY" in failed.message
    assert "WRONG-456" not in rig.json_lines() and FAKE_KEY not in rig.json_lines()
    assert len(fake_anthropic.requests) == 1, "auth errors are not retried"
    await rig.engine.aclose()


async def test_stream_cut_off_mid_message_is_an_error_not_a_hang(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(api.cut_off("This reply is cut off somewhere in the middle"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    assert await rig.engine.run_turn("hi") is None

    [failed] = rig.of(TurnFailed)
    assert failed.error == "bad_stream"
    assert failed.message.startswith("the Anthropic API stream broke off: the connection closed mid-reply")
    assert rig.streamed_text().startswith("This reply")
    assert not rig.of(TurnFinished) and rig.engine.history == []
    await rig.engine.aclose()


async def test_stream_ending_without_message_stop_is_an_error(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(api.truncated())
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert "the stream ended before the reply was complete" in failed.message
    await rig.engine.aclose()


async def test_malformed_event_is_an_error(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    from tests.fakes.server import SSE, Reply

    events = api.message_events("fine so far")[:3] + [SSE("{not json", event="content_block_delta")]
    fake_anthropic.queue(Reply(events=tuple(events)))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "bad_stream" and "malformed event" in failed.message
    await rig.engine.aclose()


async def test_server_that_never_answers_times_out(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.never_answers(), api.never_answers())
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, timeout=0.3, max_retries=1), tmp_path)

    start = time.monotonic()
    assert await rig.engine.run_turn("hi") is None

    assert time.monotonic() - start < 3
    [failed] = rig.of(TurnFailed)
    assert failed.error == "timeout"
    assert failed.message == (
        f"the Anthropic API sent nothing for 0.3s (provider.timeout); still failing after 1 retry. {INTACT}"
    )
    assert len(fake_anthropic.requests) == 2
    [retried] = rig.of(ModelCallRetried)
    assert (retried.error, retried.attempt, retried.max_retries) == ("timeout", 1, 1)
    assert retried.message == "the Anthropic API sent nothing for 0.3s (provider.timeout)"
    await rig.engine.aclose()


async def test_stream_that_stalls_mid_reply_times_out(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.stalled())
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, timeout=0.3), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "timeout"
    assert "stopped sending for 0.3s in the middle of the reply (provider.timeout)" in failed.message
    await rig.engine.aclose()


async def test_unreachable_server_is_a_connection_error(tmp_path: Path) -> None:
    with FakeSSEServer() as server:
        url = server.url
    rig = make_rig(fast_provider("anthropic", url, max_retries=1), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "connection"
    assert failed.message.startswith(f"cannot reach the Anthropic API at {url}; still failing after 1 retry")
    await rig.engine.aclose()


async def test_bad_request_quotes_the_server_reason(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    fake_anthropic.queue(api.status_reply(400, "invalid_request_error", "max_tokens: too large"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    assert await rig.engine.run_turn("hi") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "bad_request"
    assert "refused the request (HTTP 400): max_tokens: too large" in failed.message
    assert len(fake_anthropic.requests) == 1
    await rig.engine.aclose()


async def test_cancelling_during_an_sdk_retry_wait_leaves_nothing_running(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    import asyncio

    fake_anthropic.queue(api.rate_limited(retry_after="30"), api.text_reply("never reached"))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    turn = asyncio.ensure_future(rig.engine.run_turn("hi"))
    for _ in range(200):
        if rig.of(ModelCallRetried):
            break
        await asyncio.sleep(0.01)
    assert rig.of(ModelCallRetried)[0].delay == 30.0

    turn.cancel()
    start = time.monotonic()
    try:
        await turn
    except asyncio.CancelledError:
        pass
    assert time.monotonic() - start < CANCEL_BOUND_S  # far below the 30 s retry wait it cancelled
    await asyncio.sleep(0)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
    assert len(fake_anthropic.requests) == 1
    await rig.engine.aclose()


async def test_reply_complete_even_if_the_server_keeps_the_stream_open(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    from tests.fakes.server import Reply

    events = tuple(api.message_events("all here"))
    fake_anthropic.queue(Reply(events=events + events[-1:], stall_after=len(events)))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, timeout=0.3, call_timeout=60.0), tmp_path)
    start = time.monotonic()
    result = await rig.engine.run_turn("hi")
    assert result is not None and result.text == "all here"
    assert time.monotonic() - start < OPEN_STREAM_BOUND_S  # the stream stays open for 30 s; the reply did not wait
    await rig.engine.aclose()
