"""Compression keeps the prompt under its budget: older messages summarised, the last four kept."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent import compression as C
from ljtui.core.agent.offer import Offer
from ljtui.core.agent.chat import NOTHING_TO_COMPACT
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import ContextCompressed, Notice, TokenDelta
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ChatRequest, Message, TextBlock, ToolResultBlock, ToolUseBlock
from ljtui.core.providers.scripted import Script, ScriptedClient, ScriptedToolCall, ScriptedTurn

LONG = "word " * 400  # about 500 tokens


class Recording(ScriptedClient):
    """The scripted model, remembering every request."""

    def __init__(self, turns: list[ScriptedTurn]) -> None:
        super().__init__(Script(Path("test.yaml"), turns, 0.0))
        self.requests: list[ChatRequest] = []

    def stream(self, request: ChatRequest):  # type: ignore[override]
        self.requests.append(request)
        return super().stream(request)


def engine_with(tmp_path: Path, turns: list[ScriptedTurn], threshold: int) -> tuple[Engine, Recording, ListSink]:
    """An engine that compresses once the history is more than ``threshold`` tokens
    (the system prompt and the tool schemas come on top)."""
    client = Recording(turns)
    config = Config()
    sink = ListSink()
    engine = Engine(config, sink, repo_root=tmp_path, clock=FixedClock(), client_factory=lambda cfg: client)
    offered = Offer(gate=False, playbooks=False).specs(engine.tools.specs, config)
    fixed = C.estimate_tokens(engine.context.build(), [], offered)
    config.agent.compress_at_tokens = fixed + threshold
    return engine, client, sink


async def test_a_long_conversation_is_summarised_keeping_the_last_four_and_the_instructions(tmp_path: Path) -> None:
    replies = [ScriptedTurn(f"reply {n} {LONG}", ()) for n in range(4)]
    summary = ScriptedTurn("SUMMARY: the user asked four things; replies 0-2 answered them.", ())
    engine, client, sink = engine_with(tmp_path, [*replies[:3], summary, replies[3]], threshold=2_800)
    for n in range(4):
        assert await engine.run_turn(f"question {n} {LONG}") is not None
    [compressed] = [e for e in sink.events if isinstance(e, ContextCompressed)]
    threshold = engine.config.agent.compress_at_tokens
    assert compressed.tokens_before > threshold > compressed.tokens_after and compressed.kept_messages == 3
    summarising = client.requests[3]
    assert summarising.tools == () and "question 0" in summarising.messages[0].text
    last = client.requests[4]
    assert last.system == client.requests[0].system  # the instructions are never summarised away
    assert last.system_tail.startswith("# Summary of the earlier conversation\n\nSUMMARY: the user asked")
    assert [m.text.split()[1] for m in last.messages if m.role == "user"] == ["2", "3"]
    assert len(engine.history) == 4 and "question 0" not in repr(engine.history)
    summary_text = "".join(e.text for e in sink.events if isinstance(e, TokenDelta))
    assert "SUMMARY" not in summary_text  # the summary is not streamed as a reply


async def test_compact_forces_a_summary_and_says_when_there_is_nothing_to_compact(tmp_path: Path) -> None:
    engine, client, sink = engine_with(tmp_path, [ScriptedTurn("one", ()), ScriptedTurn("two", ()),
                                                  ScriptedTurn("three", ()), ScriptedTurn("summary", ())], 10**6)
    assert not await engine.compact()
    assert [e.message for e in sink.events if isinstance(e, Notice)] == [NOTHING_TO_COMPACT]
    for n in range(3):
        await engine.run_turn(f"q{n}")
    assert await engine.compact()
    assert engine.summary == "summary" and len(engine.history) == 4


def test_the_cut_never_separates_a_tool_call_from_its_result() -> None:
    history = [
        Message.user("do it"),
        Message("assistant", (ToolUseBlock("t1", "read_file", {"path": "a"}),)),
        Message("user", (ToolResultBlock("t1", "content"),)),
        Message("assistant", (ToolUseBlock("t2", "read_file", {"path": "b"}),)),
        Message("user", (ToolResultBlock("t2", "content"),)),
        Message("assistant", (TextBlock("done"),)),
    ]
    parts = C.cut(history, keep=4)
    assert parts.kept[0] == history[0] and parts.older == ()  # no user text in the last 4: back to it
    longer = [Message.user("first"), Message("assistant", (TextBlock("ok"),)), *history]
    parts = C.cut(longer, keep=4)
    assert parts.kept[0].text == "do it" and len(parts.older) == 2


def test_estimate_counts_system_messages_and_tools() -> None:
    small = C.estimate_tokens("abcd", [Message.user("efgh")])
    assert small == C.estimate_tokens("abcd", [Message.user("efgh")], ()) and small >= 2
    assert C.estimate_tokens("", [Message.user("x" * 4000)]) >= 1000


async def test_compression_is_checked_inside_a_tool_loop_too(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(LONG * 3)
    read = ScriptedToolCall("read_file", {"path": "big.txt"})
    turns = [ScriptedTurn("let me read", (read,)), ScriptedTurn("SUMMARY", ()),
             ScriptedTurn("and again", (read,)), ScriptedTurn("SUMMARY 2", ()), ScriptedTurn("done", ())]
    engine, client, sink = engine_with(tmp_path, turns, threshold=1_200)
    engine.history = [Message.user("earlier " + LONG), Message("assistant", (TextBlock("earlier reply " + LONG),))]
    assert await engine.run_turn("read big.txt twice") is not None
    assert any(isinstance(e, ContextCompressed) for e in sink.events)
    assert client.requests[1].tools == ()  # the summarising call came between two calls of one message
    assert [bool(r.tools) for r in client.requests] == [True, False, True, False, True]
    last = client.requests[-1].messages
    assert last[0].text == "read big.txt twice" and len(last) == 3, "then inside the message: its first exchange"
