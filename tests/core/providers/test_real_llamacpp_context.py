"""The model's context window in a session (MODEL-2), on what a real llama.cpp server sent (recorded): its
``/props`` says 8,192 tokens, so compression starts in time; its 400 for a prompt over the window is a context
overflow, answered by summarising and sending once more, never by "send the message again"."""

from __future__ import annotations

import json
from pathlib import Path

from ljtui.core.events import ContextCompressed, ContextWindowKnown, Notice, TurnFailed, TurnFinished
from tests.core.providers.helpers import make_rig
from tests.fakes import openai_api as api
from tests.fakes.fixtures import fast_provider
from tests.fakes.recorded import STREAMS, recording
from tests.fakes.server import FakeSSEServer, RecordedRequest, Reply

OVERFLOW = recording("llamacpp_context_overflow")
PROPS = json.loads((STREAMS / "llamacpp_props.json").read_text(encoding="utf-8"))


def llamacpp_props(request: RecordedRequest) -> Reply:
    """llama.cpp's answers to what a client asks it besides chat: its recorded ``/props``, 404 elsewhere."""
    if request.path == "/props":
        return Reply(body=PROPS)
    return Reply(status=404, body={"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})


def cfg_for(server: FakeSSEServer, **overrides: object):
    return fast_provider("openai-compatible", server.url + "/v1", model="smollm2", **overrides)


def test_the_recording_is_llamacpps_refusal_of_a_prompt_over_its_window() -> None:
    assert OVERFLOW.status == 400
    assert json.loads(OVERFLOW.body)["error"]["message"] == (
        "request (9025 tokens) exceeds the available context size (8192 tokens), try increasing it")


async def test_an_overflow_is_answered_by_summarising_and_sending_once_more(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    fake_openai.queue(api.text_reply("The first answer."), api.text_reply("The second answer."), OVERFLOW.reply(),
                      api.text_reply("Summary of the first exchange."), api.text_reply("The third answer."))
    rig = make_rig(cfg_for(fake_openai), tmp_path)
    assert await rig.engine.run_turn("a first question") is not None
    assert await rig.engine.run_turn("a second question") is not None

    result = await rig.engine.run_turn("a third question")

    assert result is not None and result.text == "The third answer."
    assert not rig.of(TurnFailed)
    assert [(w.tokens, w.source) for w in rig.of(ContextWindowKnown)] == [(8192, "the server's error")]
    assert len(rig.of(ContextCompressed)) == 1
    assert any("more than the model's context window holds" in n.message for n in rig.of(Notice))
    last = fake_openai.requests[-1].json["messages"]
    assert "Summary of the first exchange." in last[0]["content"]
    assert last[-1] == {"role": "user", "content": "a third question"}
    assert "a first question" not in json.dumps(last)
    await rig.engine.aclose()


async def test_an_overflow_with_nothing_to_summarise_fails_saying_what_to_do(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    fake_openai.queue(OVERFLOW.reply())
    rig = make_rig(cfg_for(fake_openai), tmp_path)

    assert await rig.engine.run_turn("the quick brown fox " * 2250) is None

    [failed] = rig.of(TurnFailed)
    assert failed.error == "context_overflow" and failed.status == 400
    assert failed.message.startswith(
        "the OpenAI-compatible server refused the request (HTTP 400): the prompt is more than the model's context "
        "window of 8,192 tokens holds: request (9025 tokens) exceeds the available context size (8192 tokens)")
    assert "There is nothing older to summarise: send a shorter message" in failed.message
    assert "llama-server -c N" in failed.message and "provider.context_window" in failed.message
    assert "send the message again" not in failed.message
    assert len(fake_openai.requests) == 1
    await rig.engine.aclose()


async def test_a_session_on_an_8k_server_compresses_before_the_prompt_reaches_the_window(tmp_path: Path) -> None:
    with FakeSSEServer(llamacpp_props, require_key=None) as server:
        server.queue(api.text_reply("I read it."), api.text_reply("Noted."), api.text_reply("Summary: a long paste."),
                     api.text_reply("Short answer."))
        rig = make_rig(cfg_for(server), tmp_path)
        assert await rig.engine.run_turn("x" * 24_000) is not None
        assert await rig.engine.run_turn("a second question") is not None

        result = await rig.engine.run_turn("and now?")

        assert result is not None and result.text == "Short answer."
        [known] = rig.of(ContextWindowKnown)
        assert (known.tokens, known.source) == (8192, "llama.cpp /props n_ctx")
        [compressed] = rig.of(ContextCompressed)
        assert compressed.tokens_before > 0.7 * 8192 > compressed.tokens_after
        assert [p.path for p in server.probes] == ["/props"]
        assert "x" * 24_000 not in json.dumps(server.requests[-1].json)
        await rig.engine.aclose()


async def test_the_same_session_with_a_window_set_larger_does_not_compress(tmp_path: Path) -> None:
    with FakeSSEServer(llamacpp_props, require_key=None) as server:
        server.queue(api.text_reply("I read it."), api.text_reply("Noted."), api.text_reply("Short answer."))
        rig = make_rig(cfg_for(server, context_window=128_000), tmp_path)
        assert await rig.engine.run_turn("x" * 24_000) is not None
        assert await rig.engine.run_turn("a second question") is not None

        assert await rig.engine.run_turn("and now?") is not None

        assert not rig.of(ContextCompressed) and server.probes == []
        assert [(w.tokens, w.source) for w in rig.of(ContextWindowKnown)] == [(128_000, "provider.context_window")]
        await rig.engine.aclose()


async def test_a_server_on_this_machine_is_asked_its_window_even_for_a_model_with_a_published_one(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    fake_openai.queue(api.text_reply("ok"))
    rig = make_rig(fast_provider("openai-compatible", fake_openai.url.replace("127.0.0.1", "localhost") + "/v1",
                                 model="gpt-4o"), tmp_path)

    assert await rig.engine.run_turn("hi") is not None
    assert [p.path for p in fake_openai.probes][:1] == ["/props"], "a local server is asked"
    assert rig.of(TurnFinished)
    assert [(w.tokens, w.source) for w in rig.of(ContextWindowKnown)] == [(128_000, "published limit of gpt-4o")]
    await rig.engine.aclose()


async def test_a_chat_call_announces_the_size_of_the_prompt_the_model_reads_first(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    from ljtui.core.events import ModelCallStarted

    fake_openai.queue(api.text_reply("ok"))
    rig = make_rig(cfg_for(fake_openai), tmp_path)

    assert await rig.engine.run_turn("x" * 4000) is not None

    [started] = rig.of(ModelCallStarted)
    sent = json.dumps(fake_openai.requests[0].json["messages"]) + json.dumps(fake_openai.requests[0].json.get("tools"))
    assert 1000 <= started.prompt_tokens and abs(started.prompt_tokens - len(sent) / 4) < len(sent) / 8
    await rig.engine.aclose()


async def test_a_server_reading_a_long_prompt_sends_keep_alives_and_is_never_timed_out_or_asked_again(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    from ljtui.core.events import ModelCallRetried

    reading = recording("llamacpp_long_prompt")
    alive = [t for t, piece in zip(reading.times, reading.pieces) if piece == b":\n\n"]
    assert len(alive) == 4 and alive[0] > 29 and reading.times[len(alive)] > 130, "137 s of reading, a ':' each 30 s"
    fake_openai.queue(reading.reply(pace=0.01))
    rig = make_rig(cfg_for(fake_openai, timeout=0.6), tmp_path)

    result = await rig.engine.run_turn("summarise this")

    assert result is not None and result.text
    assert len(fake_openai.requests) == 1 and not rig.of(ModelCallRetried) and not rig.of(TurnFailed)
    await rig.engine.aclose()


async def test_the_same_silence_without_its_keep_alives_is_a_silent_server(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    from ljtui.core.events import ModelCallRetried

    reading = recording("llamacpp_long_prompt")
    paced = reading.reply(pace=0.01)
    kept = [(piece, wait) for piece, wait in zip(paced.raw, paced.raw_delays) if piece != b":\n\n"]
    first_data_after = sum(paced.raw_delays[:5])
    silent = Reply(raw=tuple(p for p, _ in kept), raw_delays=(first_data_after, *(w for _, w in kept[1:])))
    fake_openai.queue(silent, silent)
    rig = make_rig(cfg_for(fake_openai, timeout=0.6), tmp_path)

    assert await rig.engine.run_turn("summarise this") is None

    assert rig.of(ModelCallRetried) and rig.of(TurnFailed)[0].error == "timeout"
    await rig.engine.aclose()
