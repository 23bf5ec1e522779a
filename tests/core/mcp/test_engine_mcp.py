"""A scripted session that uses MCP servers from PyPI through the engine: started, asked about, stopped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.engine import Engine
from ljtui.core.events import Notice, PermissionRequested, ToolCallFinished
from ljtui.core.mcp.client import READY, STOPPED
from ljtui.core.mcp.config import McpServerConfig
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ToolResultBlock
from tests.core.test_engine import scripted_config


def script(tmp_path: Path, calls: list[dict[str, object]]) -> Path:
    path = tmp_path / "script.yaml"
    turns = [{"text": "Checking.", "tool_calls": [call]} for call in calls] + [{"text": "Done."}]
    path.write_text(yaml.safe_dump({"turns": turns}))
    return path


async def test_a_scripted_turn_calls_mcp_server_time_and_mcp_server_git_after_asking(git_repo: Path,
                                                                                     tmp_path: Path) -> None:
    time_command, git_command = shutil.which("mcp-server-time"), shutil.which("mcp-server-git")
    assert time_command is not None and git_command is not None, "both servers are in the test extras"
    config = scripted_config(script(tmp_path, [
        {"name": "mcp__time__get_current_time", "input": {"timezone": "UTC"}},
        {"name": "mcp__git__git_status", "input": {"repo_path": str(git_repo)}},
    ]))
    config.mcp.servers = {"time": McpServerConfig(command=time_command, args=["--local-timezone", "UTC"]),
                          "git": McpServerConfig(command=git_command, args=["--repository", str(git_repo)])}
    sink = ListSink()
    approver = ScriptedApprover({"permission": ["once", "once"]})
    engine = Engine(config, sink, repo_root=git_repo, approver=approver)
    try:
        await engine.start_mcp()
        assert {row.name: row.state for row in engine.mcp.rows()} == {"git": READY, "time": READY}
        assert any(isinstance(e, Notice) and e.message.startswith("MCP: ") and "from " in e.message
                   for e in sink.events)
        result = await engine.run_turn("what time is it, and is the tree clean?")
    finally:
        await engine.aclose()
    assert result is not None and result.text.endswith("Done.")
    asked = [e.tool for e in sink.events if isinstance(e, PermissionRequested)]
    assert asked == ["mcp__time__get_current_time", "mcp__git__git_status"]
    finished = [e for e in sink.events if isinstance(e, ToolCallFinished)]
    assert [e.ok for e in finished] == [True, True], [e.summary for e in finished]
    results = [b for m in engine.history for b in m.content if isinstance(b, ToolResultBlock)]
    assert '"timezone": "UTC"' in str(results[0].content)
    assert "On branch" in str(results[1].content) or "nothing to commit" in str(results[1].content)
    assert {row.state for row in engine.mcp.rows()} == {STOPPED}, "closing the session stops every server"


async def test_an_untrusted_repositorys_mcp_json_starts_nothing_and_says_so(git_repo: Path, tmp_path: Path,
                                                                            monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    marker = tmp_path / "started"
    (git_repo / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "evil": {"command": "touch", "args": [str(marker)]}}}))
    sink = ListSink()
    engine = Engine(scripted_config(script(tmp_path, [])), sink, repo_root=git_repo)
    try:
        await engine.start_mcp()
    finally:
        await engine.aclose()
    assert not marker.exists() and not any(name.startswith("mcp__") for name in engine.tools.names)
    notices = [e.message for e in sink.events if isinstance(e, Notice)]
    assert ".mcp.json names MCP servers (evil) that start only once you trust this repository (`ljtui trust`)" \
        in notices


async def test_a_result_holding_the_api_key_reaches_the_history_redacted(git_repo: Path, tmp_path: Path) -> None:
    import sys

    from tests.core.mcp.test_client import BAD_SERVER

    secret = "sk-ant-test-0123456789abcdef"
    config = scripted_config(script(tmp_path, [{"name": "mcp__bad__echo", "input": {"text": f"key={secret}"}}]))
    config.provider.api_key = secret
    config.mcp.servers = {"bad": McpServerConfig(command=sys.executable, args=[BAD_SERVER, "ok"])}
    sink = ListSink()
    engine = Engine(config, sink, repo_root=git_repo, approver=ScriptedApprover({"permission": ["once"]}))
    try:
        await engine.start_mcp()
        await engine.run_turn("echo it")
    finally:
        await engine.aclose()
    [result] = [b for m in engine.history for b in m.content if isinstance(b, ToolResultBlock)]
    assert "key=" in str(result.content) and secret not in str(result.content)
    assert all(secret not in repr(event) for event in sink.events)


async def test_a_session_whose_sandbox_does_not_confine_still_starts_its_servers_through_it(git_repo: Path,
                                                                                           tmp_path: Path) -> None:
    import sys

    from tests.core.mcp.test_client import WRITER_SERVER, text_of

    config = scripted_config(script(tmp_path, []))
    config.agent.sandbox.backend = "none"
    config.mcp.servers = {"w": McpServerConfig(command=sys.executable, args=[WRITER_SERVER])}
    engine = Engine(config, ListSink(), repo_root=git_repo)
    try:
        await engine.start_mcp()
        assert engine.mcp.hub is not None and not engine.sandbox.confined
        private = str(engine.sandbox.tmp_dir)
        given = text_of(await engine.mcp.hub.servers["w"].call("getenv", {"name": "TMPDIR"}))
    finally:
        await engine.aclose()
    assert given == private, "the session's private temp dir, which only the sandbox's confinement gives"
