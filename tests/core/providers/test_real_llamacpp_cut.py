"""Replies a real llama.cpp server cut off at ``max_tokens``, replayed byte for byte (MODEL-1).

The recordings (``tests/fixtures/real_streams/llamacpp_*.json``) are SmolLM2 135M on llama.cpp's own server;
each test checks first that the recording shows what it is about.
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.events import ModelCallStarted, Notice, ToolCallFinished, TurnFailed, TurnFinished, UsageRecorded
from tests.core.providers.helpers import make_rig, read_tools
from tests.fakes import openai_api as api
from tests.fakes.fixtures import fast_provider
from tests.fakes.recorded import recording
from tests.fakes.server import FakeSSEServer

CUT_CALL = recording("llamacpp_tool_call_cut")
TEXT_CUT = recording("llamacpp_text_cut")
EMPTY_CUT = recording("llamacpp_empty_cut")


def cfg_for(server: FakeSSEServer, **overrides: object):
    return fast_provider("openai-compatible", server.url + "/v1", **overrides)


async def test_a_reply_cut_inside_its_second_call_runs_the_first_and_tells_the_model_the_second_was_cut(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    assert CUT_CALL.finish_reason() == "length"
    assert CUT_CALL.arguments() == ['{"path": "README.md"}', '{"path": "setup.']
    fake_openai.queue(CUT_CALL.reply(), api.text_reply("README.md is short."))
    rig = make_rig(cfg_for(fake_openai, max_tokens=55), tmp_path, tools=read_tools())

    result = await rig.engine.run_turn("read README.md and setup.py")

    assert result is not None and result.text == "README.md is short."
    assert not rig.of(TurnFailed)
    first, cut = rig.of(ToolCallFinished)
    assert first.ok and first.name == "read_file"
    assert not cut.ok and "max_tokens" in cut.summary
    answers = [m for m in fake_openai.requests[1].json["messages"] if m["role"] == "tool"]
    assert answers[0]["content"] == "contents of README.md"
    assert "cut off at its token limit (max_tokens)" in answers[1]["content"]
    assert "incomplete" in answers[1]["content"] and "shorter" in answers[1]["content"]
    [notice] = [n for n in rig.of(Notice) if "cut off" in n.message]
    assert notice.level == "warning"
    assert notice.message == ("The model's reply was cut off at its token limit (provider.max_tokens = 55): the "
                              "read_file call was incomplete and did not run (the model is told why); the 1 "
                              "complete call before it run.")
    assert "send the message again" not in rig.json_lines()
    await rig.engine.aclose()


async def test_the_tokens_of_the_cut_reply_are_recorded(fake_openai: FakeSSEServer, tmp_path: Path) -> None:
    usage = CUT_CALL.usage()
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (371, 55)
    fake_openai.queue(CUT_CALL.reply(), api.text_reply("ok", prompt_tokens=400, completion_tokens=2))
    rig = make_rig(cfg_for(fake_openai, max_tokens=55), tmp_path, tools=read_tools())

    await rig.engine.run_turn("read README.md and setup.py")

    cut = rig.of(UsageRecorded)[0].call
    assert (cut.input_tokens + cut.cache_read_tokens, cut.output_tokens) == (371, 55)
    await rig.engine.aclose()


async def test_a_text_reply_cut_at_max_tokens_is_kept_and_said_to_be_cut(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    assert TEXT_CUT.finish_reason() == "length"
    fake_openai.queue(TEXT_CUT.reply())
    rig = make_rig(cfg_for(fake_openai, max_tokens=24), tmp_path)

    result = await rig.engine.run_turn("what is a binary search tree?")

    assert result is not None and result.text.startswith("A binary search tree is a data structure")
    [finished] = rig.of(TurnFinished)
    assert finished.stop_reason == "max_tokens"
    [notice] = rig.of(Notice)
    assert notice.level == "warning" and notice.message == (
        "The model's reply was cut off at its token limit (provider.max_tokens = 24); what it wrote is kept. "
        "Raise provider.max_tokens for longer replies.")
    await rig.engine.aclose()


async def test_an_empty_reply_cut_at_max_tokens_fails_the_turn_with_its_reason_and_its_tokens(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    assert EMPTY_CUT.finish_reason() == "length" and EMPTY_CUT.arguments() == []
    fake_openai.queue(EMPTY_CUT.reply())
    rig = make_rig(cfg_for(fake_openai, max_tokens=3), tmp_path, tools=read_tools())

    result = await rig.engine.run_turn("read README.md and setup.py")

    assert result is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "max_tokens"
    assert failed.message == ("the model's reply was cut off at its token limit (provider.max_tokens = 3) before "
                              "it wrote anything complete: raise provider.max_tokens, or ask for something shorter")
    [spent] = rig.of(UsageRecorded)
    assert spent.call.output_tokens == 3
    assert len(rig.of(ModelCallStarted)) == 1, "a cut-off reply is not sent again unchanged"
    await rig.engine.aclose()
