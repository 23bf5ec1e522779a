"""A real MCP server whose tool writes a git hook: the change is shown, put back, and the model is told; a
server that leaves one behind when the session closes has it put back without a question."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.engine import Engine
from ljtui.core.events import Notice
from ljtui.core.gitguard.guard import KIND
from ljtui.core.mcp.config import McpServerConfig
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ToolResultBlock
from tests.core.mcp.test_client import WRITER_SERVER
from tests.core.test_engine import scripted_config


def session(git_repo: Path, tmp_path: Path, calls: list[dict[str, object]]) -> tuple[Engine, ListSink,
                                                                                      ScriptedApprover]:
    script = tmp_path / "script.yaml"
    turns = [{"text": "Writing.", "tool_calls": [call]} for call in calls] + [{"text": "Done."}]
    script.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    config = scripted_config(script)
    config.mcp.servers = {"w": McpServerConfig(command=sys.executable, args=[WRITER_SERVER])}
    sink = ListSink()
    approver = ScriptedApprover({"permission": ["once"] * len(calls)})
    return Engine(config, sink, repo_root=git_repo, approver=approver), sink, approver


async def test_a_hook_an_mcp_call_writes_is_put_back_and_the_model_told(git_repo: Path, tmp_path: Path) -> None:
    hook = git_repo / ".git" / "hooks" / "pre-commit"
    engine, sink, approver = session(git_repo, tmp_path, [{"name": "mcp__w__write", "input": {"path": str(hook)}}])
    try:
        await engine.start_mcp()
        await engine.run_turn("write the marker")
    finally:
        await engine.aclose()
    [result] = [b for m in engine.history for b in m.content if isinstance(b, ToolResultBlock)]
    assert "written" in str(result.content) and "they were reverted" in str(result.content)
    assert not hook.exists()
    [asked] = [r for r in approver.asked if r.kind == KIND]
    assert "They changed while the MCP servers ran:" in asked.lines
    assert any(isinstance(e, Notice) and e.message.startswith("Put back the git settings changed while the MCP "
                                                              "servers ran") for e in sink.events)


async def test_a_change_left_when_the_session_closes_is_put_back_unasked(git_repo: Path, tmp_path: Path) -> None:
    engine, sink, approver = session(git_repo, tmp_path, [])
    hook = git_repo / ".git" / "hooks" / "post-checkout"
    try:
        await engine.start_mcp()
        assert engine.mcp.hub is not None
        await engine.mcp.hub.servers["w"].call("write", {"path": str(hook)})  # not through a tool: no check after
        assert hook.exists()
    finally:
        await engine.aclose()
    assert not hook.exists()
    assert not [r for r in approver.asked if r.kind == KIND]
    assert any(isinstance(e, Notice) and "Put back the git settings" in e.message for e in sink.events)
