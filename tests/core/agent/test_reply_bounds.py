"""Bounds on one model reply, with a scripted model and the real tools: arguments too deep, too many calls,
and one denial answering the rest of the reply's questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ljtui.core.agent.model_calls import CAP_KEY
from ljtui.core.agent.permissions import Permission, Permissions
from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import PermissionDecided, ToolCallFinished, ToolCallStarted, TurnFinished
from ljtui.core.ports import ListSink
from ljtui.core.providers.anthropic_wire import build_params
from ljtui.core.providers.arguments import MAX_ARGUMENT_DEPTH
from ljtui.core.providers.base import ChatRequest, ToolResultBlock, ToolUseBlock
from ljtui.core.tools import Tool, ToolRegistry, ToolResult
from tests.core.providers.helpers import READ_SPEC

DEEP = 100_000
SECRET = "sk-test-0123456789"
"""A provider key, so every value the engine emits or keeps is walked for it."""
AFTER = "I read the results."


DEEP_MARK = "DEEP-LIST"
"""Stands in the script for a list nested :data:`DEEP` levels, which ``json.dumps`` cannot write."""


def write_script(folder: Path, *replies: dict[str, Any]) -> Path:
    """A script of ``replies`` then :data:`AFTER`, written as JSON (which is YAML)."""
    path = folder / "script.json"
    text = json.dumps({"turns": [*replies, {"text": AFTER}]})
    path.write_text(text.replace(json.dumps(DEEP_MARK), "[" * DEEP + "]" * DEEP), encoding="utf-8")
    return path


def make_engine(root: Path, script: Path, *, tools: ToolRegistry | None = None,
                approver: ScriptedApprover | None = None, **agent: object) -> tuple[Engine, ListSink]:
    config = Config()
    config.provider.name, config.provider.script, config.provider.api_key = "scripted", str(script), SECRET
    for key, value in agent.items():
        setattr(config.agent, key, value)
    sink = ListSink()
    return Engine(config, sink, repo_root=root, tools=tools, approver=approver), sink


def recording_tools(ran: list[dict[str, Any]]) -> ToolRegistry:
    async def read(args: dict[str, Any], ctx: object) -> ToolResult:
        ran.append(args)
        return ToolResult(True, f"read {args.get('path')}", "read")

    return ToolRegistry([Tool(READ_SPEC, read)])


def of(sink: ListSink, kind: type) -> list[Any]:
    return [e for e in sink.events if isinstance(e, kind)]


def results(engine: Engine) -> list[ToolResultBlock]:
    return [b for m in engine.history for b in m.content if isinstance(b, ToolResultBlock)]


def assert_valid_next_request(engine: Engine) -> None:
    """Every tool use has its result, in order, and the history serialises as a request."""
    for ask, answer in zip(engine.history, engine.history[1:]):
        uses = [b.id for b in ask.content if isinstance(b, ToolUseBlock)]
        if uses:
            assert [b.tool_use_id for b in answer.content if isinstance(b, ToolResultBlock)] == uses
    json.dumps(build_params(ChatRequest("sys", tuple(engine.history)), "m"))


async def test_arguments_nested_a_hundred_thousand_deep_are_a_tool_error_and_the_turn_goes_on(tmp_path: Path) -> None:
    deep_value: Any = []
    for _ in range(MAX_ARGUMENT_DEPTH - 1):
        deep_value = [deep_value]  # with the object around it, one level past the bound
    script = write_script(tmp_path, {"text": "Reading.", "tool_calls": [
        {"name": "read_file", "input": {"path": DEEP_MARK}},
        {"name": "read_file", "input": {"path": deep_value}},
        {"name": "read_file", "input": {"path": "app.py"}},
    ]})
    ran: list[dict[str, Any]] = []
    engine, sink = make_engine(tmp_path, script, tools=recording_tools(ran))

    result = await engine.run_turn("read it")

    assert result is not None and result.text == "Reading." + AFTER
    assert ran == [{"path": "app.py"}]
    first, second, third = of(sink, ToolCallFinished)
    for refused in (first, second):
        assert not refused.ok and "arguments nested more than 64 levels" in refused.summary
    assert third.ok
    assert [e.input for e in of(sink, ToolCallStarted)] == [{}, {}, {"path": "app.py"}]
    assert [r.is_error for r in results(engine)] == [True, True, False]
    assert results(engine)[0].content.startswith("error: arguments nested more than 64 levels")
    assert of(sink, TurnFinished)[0].stop_reason == "end_turn"
    assert_valid_next_request(engine)
    await engine.aclose()


async def test_calls_past_the_cap_are_refused_each_with_a_result_saying_so(tmp_path: Path) -> None:
    calls = [{"name": "read_file", "input": {"path": f"f{n}"}} for n in range(1000)]
    script = write_script(tmp_path, {"tool_calls": calls})
    ran: list[dict[str, Any]] = []
    engine, sink = make_engine(tmp_path, script, tools=recording_tools(ran))

    result = await engine.run_turn("read them all")

    assert result is not None and result.text == AFTER
    assert ran == [{"path": f"f{n}"} for n in range(25)]
    blocks = results(engine)
    assert len(blocks) == 1000 and not any(b.is_error for b in blocks[:25])
    assert all(b.is_error for b in blocks[25:])
    refusal = blocks[25].content
    assert f"this reply made 1000 tool calls and at most 25 run per reply ({CAP_KEY})" in refusal
    assert "the last 975 were refused" in refusal and {b.content for b in blocks[25:]} == {refusal}
    assert_valid_next_request(engine)
    await engine.aclose()


async def test_the_cap_follows_the_setting(tmp_path: Path) -> None:
    script = write_script(tmp_path, {"tool_calls": [{"name": "read_file", "input": {"path": "a"}}] * 4})
    ran: list[dict[str, Any]] = []
    engine, _ = make_engine(tmp_path, script, tools=recording_tools(ran), max_tool_calls_per_reply=3)
    await engine.run_turn("go")
    assert len(ran) == 3 and "the last 1 were refused" in results(engine)[3].content
    await engine.aclose()


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "input": {"command": command}}


async def test_one_denial_denies_the_rest_of_the_reply_without_asking(tmp_path: Path) -> None:
    script = write_script(tmp_path, {"tool_calls": [bash(f"echo {n} > out{n}.txt") for n in range(5)]})
    approver = ScriptedApprover({"permission": ["deny"]})
    engine, sink = make_engine(tmp_path, script, approver=approver, layer="off")  # every command asks

    result = await engine.run_turn("write five files")

    assert result is not None and result.text == AFTER
    assert len(approver.asked) == 1
    blocks = results(engine)
    assert len(blocks) == 5 and all(b.is_error for b in blocks)
    assert "the user denied this bash call" in blocks[0].content
    for later in blocks[1:]:
        assert "denied with the earlier call of this reply" in later.content
    assert list(tmp_path.glob("out*.txt")) == []
    assert [(d.decision, d.scope) for d in of(sink, PermissionDecided)] == [("deny", "once")] + [("deny", "reply")] * 4
    assert_valid_next_request(engine)
    await engine.aclose()


async def test_after_a_denial_calls_that_need_no_question_still_run_and_the_next_reply_asks_again(
    tmp_path: Path,
) -> None:
    (tmp_path / "app.py").write_text("print('hi')\n", encoding="utf-8")
    script = write_script(
        tmp_path,
        {"tool_calls": [bash("echo one"), {"name": "read_file", "input": {"path": "app.py"}},
                        {"name": "write_file", "input": {"path": "notes.txt", "content": "kept\n"}},
                        bash("echo two")]},
        {"tool_calls": [bash("echo three")]},
    )
    approver = ScriptedApprover({"permission": ["deny", "deny"]})
    engine, sink = make_engine(tmp_path, script, approver=approver, allow_tools=["write_file"], layer="off")

    result = await engine.run_turn("look around")

    assert result is not None and result.text == AFTER
    assert [r.title for r in approver.asked] == ["Run this command?"] * 2, "one question per reply"
    first, read, write, second, third = results(engine)
    assert first.is_error and not read.is_error and "print('hi')" in read.content
    assert not write.is_error and (tmp_path / "notes.txt").read_text(encoding="utf-8") == "kept\n"
    assert "denied with the earlier call of this reply" in second.content
    assert "the user denied this bash call" in third.content
    decided = [(d.tool, d.decision, d.scope) for d in of(sink, PermissionDecided)]
    assert decided == [("bash", "deny", "once"), ("write_file", "allow", "policy"), ("bash", "deny", "reply"),
                       ("bash", "deny", "once")]
    await engine.aclose()


async def test_a_denial_answers_only_its_own_agents_reply() -> None:
    approver = ScriptedApprover({"permission": ["deny", "once"]})
    permissions = Permissions(approver.decide, lambda event: None)
    permissions.reply_started("task 1", ["a1", "a2"])
    permissions.reply_started("task 2", ["b1"])

    async def ask(agent: str, call_id: str) -> Permission:
        return await permissions.request(tool="write_file", subject="x.txt", title="Write x.txt?", lines=(), turn=1,
                                         call_id=call_id, agent=agent)

    denied, beside, after = await ask("task 1", "a1"), await ask("task 2", "b1"), await ask("task 1", "a2")
    assert (denied.allowed, denied.scope) == (False, "once")
    assert (beside.allowed, beside.scope) == (True, "once"), "the other task's reply is still asked"
    assert (after.allowed, after.scope) == (False, "reply") and len(approver.asked) == 2
    assert after.reason.startswith("denied with the earlier call of this reply: the user denied that write_file")
    unknown = await ask("task 1", "not-in-the-reply")
    assert unknown.scope == "once" and len(approver.asked) == 3, "a call outside the reply is asked"
