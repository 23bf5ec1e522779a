from __future__ import annotations

from pathlib import Path

from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import (
    ConversationCleared, ModelCallStarted, TokenDelta, ToolCallFinished, ToolCallStarted,
    TurnFailed, TurnFinished, TurnStarted, UsageRecorded, event_to_dict,
)
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ToolResultBlock, ToolSpec
from ljtui.core.tools import Tool, ToolError, ToolResult, ToolRegistry
from tests.fixtures import SCRIPTS


def scripted_config(script: Path | str, **agent: int) -> Config:
    cfg = Config()
    cfg.provider.name = "scripted"
    cfg.provider.script = str(script)
    for key, value in agent.items():
        setattr(cfg.agent, key, value)
    return cfg


async def test_run_turn_streams_reply_as_events(tmp_path: Path) -> None:
    sink = ListSink()
    engine = Engine(scripted_config(SCRIPTS / "hello.yaml"), sink, repo_root=tmp_path)
    result = await engine.run_turn("add retries")
    assert result is not None and result.stop_reason == "end_turn"
    kinds = [e.kind for e in sink.events]
    assert kinds[0] == "turn_started" and kinds[1] == "model_call_started" and kinds[-1] == "turn_finished"
    deltas = [e.text for e in sink.events if isinstance(e, TokenDelta)]
    assert len(deltas) > 5 and "".join(deltas) == result.text
    assert "**retry** helper" in result.text
    usage = [e for e in sink.events if isinstance(e, UsageRecorded)]
    assert usage and usage[-1].session == engine.session_usage
    assert [m.role for m in engine.history] == ["user", "assistant"]


async def test_tool_calls_are_executed_and_fed_back(tmp_path: Path) -> None:
    seen: list[dict] = []

    async def read_file(args: dict, ctx: object) -> ToolResult:
        seen.append(args)
        return ToolResult(True, "def greet(name): ...", f"read {args['path']}")

    tools = ToolRegistry([Tool(ToolSpec("read_file", "Read a file", {"type": "object"}), read_file)])
    sink = ListSink()
    engine = Engine(scripted_config(SCRIPTS / "tool_then_text.yaml"), sink, repo_root=tmp_path, tools=tools)
    result = await engine.run_turn("what is in app.py?")
    assert seen == [{"path": "app.py"}]
    assert result is not None and result.text == "Let me check the file.The file defines `greet`."
    started = [e for e in sink.events if isinstance(e, ToolCallStarted)]
    finished = [e for e in sink.events if isinstance(e, ToolCallFinished)]
    assert started[0].name == "read_file" and finished[0].ok and finished[0].summary == "read app.py"
    assert sum(isinstance(e, ModelCallStarted) for e in sink.events) == 2
    tool_result = engine.history[2].content[0]
    assert isinstance(tool_result, ToolResultBlock) and not tool_result.is_error


async def _missing(args: dict, ctx: object) -> ToolResult:
    raise ToolError("no such file")


async def test_unknown_tool_and_tool_error_go_back_to_model(tmp_path: Path) -> None:
    sink = ListSink()
    engine = Engine(scripted_config(SCRIPTS / "tool_then_text.yaml"), sink, repo_root=tmp_path,
                    tools=ToolRegistry([Tool(ToolSpec("read_file", "", {"type": "object"}), _missing)]))
    await engine.run_turn("go")
    [finished] = [e for e in sink.events if isinstance(e, ToolCallFinished)]
    assert not finished.ok and finished.summary == "read_file: no such file"
    block = engine.history[2].content[0]
    assert isinstance(block, ToolResultBlock) and block.is_error

    async def refuse(args: dict, ctx: object) -> ToolResult:
        raise ToolError("path must be a string")

    async def crash(args: dict, ctx: object) -> ToolResult:
        raise KeyError("boom")

    registry = ToolRegistry([Tool(ToolSpec("read_file", "", {}), refuse), Tool(ToolSpec("crash", "", {}), crash)])
    ctx = engine.tool_context(1, "call-1")
    outcome = await registry.call("read_file", {"path": 3}, ctx)
    assert not outcome.ok and outcome.summary == "read_file: path must be a string"
    assert not (await registry.call("read_file", ["not", "a", "dict"], ctx)).ok
    crashed = await registry.call("crash", {}, ctx)
    assert not crashed.ok and crashed.summary == "crash failed: KeyError: 'boom'"


async def test_failed_turn_keeps_previous_conversation(tmp_path: Path) -> None:
    sink = ListSink()
    engine = Engine(scripted_config(SCRIPTS / "hello.yaml"), sink, repo_root=tmp_path)
    await engine.run_turn("first")
    assert await engine.run_turn("second") is None
    failed = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert failed[0].error == "script" and "no turn left" in failed[0].message
    assert [m.text for m in engine.history if m.role == "user"] == ["first"]


async def test_missing_model_fails_with_setup_hint(tmp_path: Path) -> None:
    sink = ListSink()
    engine = Engine(Config(), sink, repo_root=tmp_path)
    assert await engine.run_turn("hello") is None
    [failed] = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert "no model is configured" in failed.message and "`ljtui doctor`" in failed.message
    assert engine.history == []


async def test_iteration_limit_stops_a_looping_model(tmp_path: Path) -> None:
    script = tmp_path / "loop.yaml"
    script.write_text("turns:\n" + "  - tool_calls: [{name: nothing, input: {}}]\n" * 5, encoding="utf-8")
    sink = ListSink()
    engine = Engine(scripted_config(script, max_iterations=3), sink, repo_root=tmp_path)
    assert await engine.run_turn("loop") is None
    assert sum(isinstance(e, ModelCallStarted) for e in sink.events) == 3
    assert "stopped after 3 model calls" in [e for e in sink.events if isinstance(e, TurnFailed)][0].message


async def test_clear_forgets_history(tmp_path: Path) -> None:
    sink = ListSink()
    engine = Engine(scripted_config(SCRIPTS / "hello.yaml"), sink, repo_root=tmp_path)
    await engine.run_turn("x")
    engine.clear()
    assert engine.history == [] and isinstance(sink.events[-1], ConversationCleared)


def test_events_serialise_with_kind() -> None:
    assert event_to_dict(TurnStarted(1, "hi")) == {"kind": "turn_started", "turn": 1, "text": "hi"}
    assert TurnFinished(1, "x", "end_turn").kind == "turn_finished"


async def test_clearing_asks_and_the_safe_answer_keeps_the_conversation(tmp_path: Path) -> None:
    from ljtui.core.agent.chat import KEPT, NOTHING_TO_CLEAR
    from ljtui.core.approval import Decision, ScriptedApprover
    from ljtui.core.events import Notice

    sink = ListSink()
    approver = ScriptedApprover({"clear": [Decision("yes")]})
    engine = Engine(scripted_config(SCRIPTS / "hello.yaml"), sink, repo_root=tmp_path, approver=ScriptedApprover())
    assert await engine.clear_asked() is False
    assert [e.message for e in sink.events if isinstance(e, Notice)][-1] == NOTHING_TO_CLEAR
    assert await engine.run_turn("hi") is not None
    assert await engine.clear_asked() is False, "nobody answered: the safe answer keeps it"
    assert engine.history and [e.message for e in sink.events if isinstance(e, Notice)][-1] == KEPT
    engine = Engine(scripted_config(SCRIPTS / "hello.yaml"), sink, repo_root=tmp_path, approver=approver)
    assert await engine.run_turn("hi") is not None
    assert await engine.clear_asked() is True
    assert engine.history == [] and isinstance(sink.events[-1], ConversationCleared)
    [asked] = approver.asked
    assert asked.safe == "no" and asked.lines[0].startswith("2 message(s) leave the model's context")
