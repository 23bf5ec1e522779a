"""The Anthropic API's reply cut off at ``max_tokens`` inside a tool_use block (MODEL-1).

The API closes the cut block (``content_block_stop``) before it says why the message stopped
(``message_delta``), so the call is judged at the end of the message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.events import Notice, ToolCallFinished, TurnFailed, UsageRecorded
from tests.core.providers.helpers import make_rig, read_tools
from tests.fakes import anthropic_api as api
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.server import SSE, FakeSSEServer, Reply


def cut_reply(stop: str) -> Reply:
    """Two read_file calls; the second's input stops at ``{"path": "set``; the message stops for ``stop``."""
    events = api.message_events(tool_uses=(("toolu_1", "read_file", {"path": "README.md"}),
                                           ("toolu_2", "read_file", {"path": "setup.py"})), output_tokens=40)
    last_piece = max(i for i, e in enumerate(events) if e.data.get("type") == "content_block_delta")
    events[last_piece - 1] = SSE({"type": "content_block_delta", "index": 1,
                                  "delta": {"type": "input_json_delta", "partial_json": '{"path": "set'}},
                                 event="content_block_delta")
    del events[last_piece]
    delta = next(i for i, e in enumerate(events) if e.data.get("type") == "message_delta")
    events[delta] = SSE({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                         "usage": {"output_tokens": 40}}, event="message_delta")
    return Reply(events=tuple(events))


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)


async def test_a_tool_use_cut_at_max_tokens_is_refused_and_the_complete_one_runs(
    fake_anthropic: FakeSSEServer, tmp_path: Path, key: None,
) -> None:
    fake_anthropic.queue(cut_reply("max_tokens"), api.text_reply("Read it."))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, max_tokens=40), tmp_path, tools=read_tools())

    result = await rig.engine.run_turn("read both")

    assert result is not None and result.text == "Read it."
    first, cut = rig.of(ToolCallFinished)
    assert first.ok and not cut.ok
    answers = [b for m in fake_anthropic.requests[1].json["messages"] for b in m["content"]
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert answers[0]["content"] == "contents of README.md"
    assert "cut off at its token limit (max_tokens)" in str(answers[1]["content"])
    assert any("provider.max_tokens = 40" in n.message for n in rig.of(Notice))
    await rig.engine.aclose()


async def test_a_tool_use_that_is_not_json_without_a_cut_still_breaks_the_stream_and_its_tokens_count(
    fake_anthropic: FakeSSEServer, tmp_path: Path, key: None,
) -> None:
    fake_anthropic.queue(*[cut_reply("tool_use")] * 3)
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, max_retries=0), tmp_path, tools=read_tools())

    assert await rig.engine.run_turn("read both") is None

    [failed] = rig.of(TurnFailed)
    assert failed.error == "bad_stream" and "tool 'read_file' arguments are not valid JSON" in failed.message
    assert [u.call.input_tokens for u in rig.of(UsageRecorded)] == [10] * (len(fake_anthropic.requests))
    await rig.engine.aclose()
