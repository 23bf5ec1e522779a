"""One request that loops through many tool calls stays within the budget, and every request stays valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, AsyncIterator

from ljtui.core.agent import compression as C
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import ContextCompressed, TurnFailed
from ljtui.core.ports import ListSink
from ljtui.core.providers.anthropic_wire import build_params
from ljtui.core.providers.base import (
    ChatRequest, Delta, ProviderError, StreamEnd, TextDelta, ToolCall, ToolResultBlock, ToolSpec,
)
from ljtui.core.providers.scripted import refuse_invalid
from ljtui.core.tools import Tool, ToolRegistry, ToolResult

CALLS = 40
RESULT_CHARS = 50_000
SUMMARY = "SUMMARY: the blobs read so far were all of x."


class LoopingModel:
    """A model that reads one blob per reply, ``calls`` times, then answers; it summarises when asked.

    Each request is refused as the Messages API would refuse it, when it breaks the API's rules.
    """

    provider = "scripted"
    model = "claude-test"

    def __init__(self, calls: int, fail_after: int | None = None) -> None:
        self.calls = calls
        self.fail_after = fail_after
        self.made = 0
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Delta]:
        refuse_invalid(request, self.model)
        self.requests.append(request)
        if request.system == C.SUMMARY_SYSTEM:
            yield TextDelta(SUMMARY)
        elif self.fail_after is not None and self.made >= self.fail_after:
            raise ProviderError("server", "the model failed")
        elif self.made < self.calls:
            self.made += 1
            yield ToolCall(f"toolu_{self.made}", "read_blob", {"n": self.made})
            yield StreamEnd("tool_use")
            return
        else:
            yield TextDelta("Read them all.")
        yield StreamEnd("end_turn")

    async def aclose(self) -> None:
        return None


async def read_blob(args: dict[str, Any], ctx: object) -> ToolResult:
    return ToolResult(True, f"blob {args['n']}\n" + "x" * RESULT_CHARS, f"read blob {args['n']}")


def engine_with(tmp_path: Path, model: LoopingModel) -> tuple[Engine, ListSink]:
    config = Config()
    config.agent.max_iterations = CALLS + 5
    sink = ListSink()
    tools = ToolRegistry([Tool(ToolSpec("read_blob", "Read blob n", {"type": "object", "properties": {
        "n": {"type": "integer"}}}), read_blob)])
    engine = Engine(config, sink, repo_root=tmp_path, clock=FixedClock(), client_factory=lambda cfg: model,
                    tools=tools)
    return engine, sink


def tokens(request: ChatRequest) -> int:
    return C.estimate_tokens(request.system + request.system_tail, request.messages, request.tools)


def wire_chars(request: ChatRequest) -> int:
    return len(json.dumps(build_params(request, "claude-test")))


async def test_a_forty_call_request_is_compressed_inside_itself_and_stays_within_the_budget(tmp_path: Path) -> None:
    model = LoopingModel(CALLS)
    engine, sink = engine_with(tmp_path, model)
    result = await engine.run_turn("Read blobs 1 to 40 and tell me what they hold.")
    assert result is not None and result.text == "Read them all."
    budget = engine.config.agent.compress_at_tokens
    one_result = RESULT_CHARS // C.CHARS_PER_TOKEN
    turns = [r for r in model.requests if r.system != C.SUMMARY_SYSTEM]
    assert len(turns) == CALLS + 1
    assert max(tokens(r) for r in model.requests) <= budget + one_result
    assert max(wire_chars(r) for r in model.requests) < (budget + one_result) * C.CHARS_PER_TOKEN
    compressions = [e for e in sink.events if isinstance(e, ContextCompressed)]
    assert len(compressions) >= 5
    for request in turns:
        first = request.messages[0]
        assert first.role == "user" and first.text == "Read blobs 1 to 40 and tell me what they hold.", \
            "the request stays first, verbatim"
    last = turns[-1]
    assert last.system == turns[0].system, "the instructions and project context are never summarised"
    assert last.system_tail.startswith("# Summary of the earlier conversation\n\n" + SUMMARY)
    pending = last.messages[-1].content[0]
    assert isinstance(pending, ToolResultBlock) and pending.tool_use_id == f"toolu_{CALLS}", \
        "the last exchange is kept, ending with the pending result"


async def test_the_summariser_reads_each_long_result_cut_so_its_own_request_is_bounded(tmp_path: Path) -> None:
    model = LoopingModel(CALLS)
    engine, _ = engine_with(tmp_path, model)
    await engine.run_turn("Read blobs 1 to 40.")
    summarising = [r for r in model.requests if r.system == C.SUMMARY_SYSTEM]
    assert summarising
    for request in summarising:
        assert len(request.messages) == 1 and request.tools == ()
        assert "characters left out" in request.messages[0].text
        assert tokens(request) < C.SUMMARY_TRANSCRIPT_CHARS // C.CHARS_PER_TOKEN + 5_000


async def test_a_request_that_fails_after_compressing_inside_itself_is_forgotten_whole(tmp_path: Path) -> None:
    model = LoopingModel(0)
    engine, sink = engine_with(tmp_path, model)
    assert await engine.run_turn("An earlier question.") is not None
    model.calls, model.fail_after = CALLS, 20
    assert await engine.run_turn("Read blobs 1 to 40.") is None
    assert any(isinstance(e, ContextCompressed) for e in sink.events), "it compressed before failing"
    assert [e.error for e in sink.events if isinstance(e, TurnFailed)] == ["server"]
    assert all(m.text != "Read blobs 1 to 40." for m in engine.history), "no message of the failed request is left"
    assert not any(isinstance(b, ToolResultBlock) for m in engine.history for b in m.content)
    model.calls, model.fail_after, model.made = 0, None, 0
    again = await engine.run_turn("Try again.")
    assert again is not None, "the next request is valid"


async def test_a_session_compressed_inside_a_request_resumes_to_the_same_history(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    first, _ = engine_with(tmp_path, LoopingModel(CALLS))
    assert await first.run_turn("Read blobs 1 to 40.") is not None
    session_id, history, summary = first.session_log.id, list(first.history), first.chat.summary
    await first.aclose()
    second, sink = engine_with(tmp_path, LoopingModel(0))
    assert second.resume(session_id) is True
    assert second.history == history and second.chat.summary == summary == SUMMARY
    assert await second.run_turn("And now?") is not None, "the resumed history is a valid request"
    await second.aclose()
