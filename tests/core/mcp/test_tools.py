"""An MCP server's tools in ljtui's registry: named, checked, asked about, bounded, plain text."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ljtui.core.agent.permissions import Permissions
from ljtui.core.approval import ScriptedApprover
from ljtui.core.childenv import child_env
from ljtui.core.config import Config
from ljtui.core.events import Event, PermissionDecided
from ljtui.core.mcp.client import McpServer, ServerEnvironment
from ljtui.core.mcp.config import McpServerConfig
from ljtui.core.mcp.tools import MAX_RESULT_CHARS, result_text, server_tools, tool_problem
from ljtui.core.mcp.values import McpResult, McpTool
from ljtui.core.tools import ToolContext, ToolRegistry, ToolServices
from tests.core.mcp.test_client import BAD_SERVER


def start(root: Path, command: str, *args: str, name: str = "bad") -> McpServer:
    return McpServer(name, McpServerConfig(command=command, args=list(args)),
                     ServerEnvironment(root, None, child_env()), start_timeout=20, call_timeout=20)


def context(root: Path, approver: ScriptedApprover, events: list[Event]) -> ToolContext:
    permissions = Permissions(approver.decide, events.append)
    return ToolContext(root, 1, "call-1", "chat", events.append, Config(), ToolServices(permissions=permissions))


async def test_mcp_server_time_is_called_through_the_registry_after_the_dialog(tmp_path: Path) -> None:
    command = shutil.which("mcp-server-time")
    assert command is not None
    server = start(tmp_path, command, "--local-timezone", "UTC", name="time")
    approver = ScriptedApprover({"permission": ["once"]})
    events: list[Event] = []
    try:
        made = server_tools(server, await server.ensure_started(), allow_read_only=False)
        registry = ToolRegistry(list(made.tools))
        assert "mcp__time__get_current_time" in registry.names and made.left_out == ()
        result = await registry.call("mcp__time__get_current_time", {"timezone": "Europe/Paris"},
                                     context(tmp_path, approver, events))
    finally:
        await server.stop()
    assert result.ok and '"timezone": "Europe/Paris"' in result.content
    [asked] = approver.asked
    assert asked.title == "Call get_current_time on the MCP server time?"
    assert list(asked.lines[:3]) == ["server: time", "tool: get_current_time", "arguments:"]
    assert '  "timezone": "Europe/Paris"' in asked.lines
    assert [c.id for c in asked.choices] == ["once", "session", "deny"]


async def test_a_denied_call_never_reaches_the_server_and_a_session_grant_covers_only_that_tool(
        tmp_path: Path) -> None:
    server = start(tmp_path, sys.executable, BAD_SERVER, "ok")
    approver = ScriptedApprover({"permission": ["deny", "session"]})
    events: list[Event] = []
    try:
        registry = ToolRegistry(list(server_tools(server, await server.ensure_started(),
                                                  allow_read_only=False).tools))
        ctx = context(tmp_path, approver, events)
        denied = await registry.call("mcp__bad__echo", {"text": "no"}, ctx)
        granted = await registry.call("mcp__bad__echo", {"text": "yes"}, ctx)
        again = await registry.call("mcp__bad__echo", {"text": "again"}, ctx)
        other = await registry.call("mcp__bad__big", {"n": 3}, ctx)
    finally:
        await server.stop()
    assert not denied.ok and granted.content == "yes" and again.content == "again"
    assert not other.ok, "the grant was for echo only; the approver had no answer left for big"
    decided = [(e.tool, e.decision, e.scope) for e in events if isinstance(e, PermissionDecided)]
    assert decided == [("mcp__bad__echo", "deny", "once"), ("mcp__bad__echo", "allow", "session"),
                       ("mcp__bad__echo", "allow", "session"), ("mcp__bad__big", "deny", "once")]


async def test_a_huge_result_is_cut_with_its_head_and_tail_and_the_cut_said(tmp_path: Path) -> None:
    server = start(tmp_path, sys.executable, BAD_SERVER, "ok")
    try:
        registry = ToolRegistry(list(server_tools(server, await server.ensure_started(),
                                                  allow_read_only=False).tools))
        result = await registry.call("mcp__bad__big", {"n": 200_000},
                                     context(tmp_path, ScriptedApprover({"permission": ["once"]}), []))
    finally:
        await server.stop()
    assert result.ok and len(result.content) < MAX_RESULT_CHARS + 100
    assert f"[… {200_000 - MAX_RESULT_CHARS:,} characters of the result cut …]" in result.content


def listed(name: str, schema: object) -> McpTool:
    return McpTool(name, "d", input_schema=schema)


def test_a_tool_whose_name_or_schema_an_api_would_refuse_is_left_out_naming_it() -> None:
    assert tool_problem("srv", listed("ok_tool", {"type": "object"})) is None
    assert "is not 1-64 letters" in (tool_problem("srv", listed("has space", {"type": "object"})) or "")
    assert "is not 1-64 letters" in (tool_problem("srv", listed("x" * 60, {"type": "object"})) or "")
    assert "not a JSON schema of type 'object'" in (tool_problem("srv", listed("t", {"type": "array"})) or "")
    assert "not a JSON schema of type 'object'" in (tool_problem("srv", listed("t", None)) or "")
    huge = {"type": "object", "properties": {f"p{n}": {"type": "string", "description": "x" * 100}
                                              for n in range(400)}}
    assert "input schema is" in (tool_problem("srv", listed("t", huge)) or "")


def test_result_parts_other_than_text_are_named_not_shown() -> None:
    result = McpResult.from_wire({"content": [
        {"type": "text", "text": "[bold]not markup[/bold]"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
        {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA"}},
        {"type": "resource_link", "uri": "file:///c", "name": "c"},
        {"type": "hologram"},
    ]})
    assert result_text(result).split("\n") == [
        "[bold]not markup[/bold]", "[image image/png, 3 bytes: not shown]", "[resource file:///a.txt]", "inside",
        "[resource file:///b.bin: binary]", "[resource link file:///c]", "[hologram part: not shown]"]


def test_a_result_with_only_structured_content_is_that_content_as_json() -> None:
    result = McpResult.from_wire({"content": [], "structuredContent": {"answer": 42}, "isError": True})
    assert result.is_error and result_text(result) == '{"answer": 42}'


async def test_a_read_only_tool_runs_unasked_only_when_the_users_config_allows_it(tmp_path: Path) -> None:
    asked: dict[bool, list[str]] = {}
    for allow in (False, True):
        server = start(tmp_path, sys.executable, BAD_SERVER, "ok")
        approver = ScriptedApprover({"permission": ["once", "once"]})
        try:
            registry = ToolRegistry(list(server_tools(server, await server.ensure_started(),
                                                      allow_read_only=allow).tools))
            ctx = context(tmp_path, approver, [])
            peeked = await registry.call("mcp__bad__peek", {}, ctx)
            echoed = await registry.call("mcp__bad__echo", {"text": "x"}, ctx)
        finally:
            await server.stop()
        assert peeked.ok and peeked.content == "peeked" and echoed.ok
        asked[allow] = [request.title for request in approver.asked]
    assert asked == {False: ["Call peek on the MCP server bad?", "Call echo on the MCP server bad?"],
                     True: ["Call echo on the MCP server bad?"]}
