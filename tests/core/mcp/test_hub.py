"""A session's MCP servers: the user's, a trusted repository's, an untrusted one's held; started, listed, stopped."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.childenv import child_env
from ljtui.core.mcp.client import READY, STOPPED, ServerEnvironment
from ljtui.core.mcp.config import McpConfig, McpServerConfig
from ljtui.core.mcp.hub import HELD, REPOSITORY, USER, McpHub
from ljtui.core.tools import ToolRegistry
from tests.core.mcp.test_client import BAD_SERVER
from tests.core.mcp.test_tools import context


def hub(root: Path, *, trusted: bool, **servers: McpServerConfig) -> McpHub:
    return McpHub(McpConfig(servers=dict(servers)), root, ServerEnvironment(root, None, child_env()), trusted=trusted)


def commit_mcp_json(root: Path, servers: dict[str, object]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def test_an_untrusted_repositorys_servers_are_held_with_the_notice_and_never_made(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    commit_mcp_json(tmp_path, {"evil": {"command": "touch", "args": [str(marker)]}})
    held = hub(tmp_path, trusted=False)
    assert held.servers == {}
    assert held.notices == [".mcp.json names MCP servers (evil) that start only once you trust this repository "
                            "(`ljtui trust`)"]
    [row] = held.rows()
    assert (row.name, row.origin, row.state) == ("evil", REPOSITORY, HELD)
    assert not marker.exists()


def test_a_trusted_repositorys_servers_join_the_users_and_a_users_server_of_the_same_name_wins(
        tmp_path: Path) -> None:
    commit_mcp_json(tmp_path, {"shared": {"command": "repo-version"}, "repo_only": {"command": "srv"}})
    both = hub(tmp_path, trusted=True, shared=McpServerConfig(command="user-version"))
    assert both.servers["shared"].config.command == "user-version"
    assert [(r.name, r.origin, r.state) for r in both.rows()] == [("repo_only", REPOSITORY, STOPPED),
                                                                  ("shared", USER, STOPPED)]
    untrusted = hub(tmp_path, trusted=False, shared=McpServerConfig(command="user-version"))
    assert [(r.name, r.state) for r in untrusted.rows()] == [("repo_only", HELD), ("shared", STOPPED)]


async def test_starting_adds_every_working_servers_tools_and_names_the_server_that_failed(tmp_path: Path) -> None:
    command = shutil.which("mcp-server-time")
    assert command is not None
    servers = hub(tmp_path, trusted=False, time=McpServerConfig(command=command),
                  broken=McpServerConfig(command=sys.executable, args=[BAD_SERVER, "crash"]))
    registry = ToolRegistry()
    try:
        said = await servers.start(registry)
        rows = {row.name: row for row in servers.rows()}
    finally:
        await servers.stop()
    assert "mcp__time__get_current_time" in registry.names and not any("broken" in n for n in registry.names)
    [failure] = said
    assert failure.startswith("MCP server broken could not start") and "missing config" in failure
    assert rows["time"].state == READY and "get_current_time" in rows["time"].tools
    assert rows["broken"].state == "failed" and rows["broken"].tools == ()
    assert {server.state for server in servers.servers.values()} <= {STOPPED, "failed"}


async def test_a_real_servers_tools_with_a_bad_schema_or_name_are_left_out_and_named_the_rest_still_work(
        tmp_path: Path) -> None:
    servers = hub(tmp_path, trusted=False, odd=McpServerConfig(command=sys.executable, args=[BAD_SERVER, "bad_schema"]))
    registry = ToolRegistry()
    try:
        said = await servers.start(registry)
        result = await registry.call("mcp__odd__fine", {"text": "still here"},
                                     context(tmp_path, ScriptedApprover({"permission": ["once"]}), []))
        rows = {row.name: row for row in servers.rows()}
    finally:
        await servers.stop()
    assert [name for name in registry.names if name.startswith("mcp__")] == ["mcp__odd__fine"]
    assert sorted(said) == [
        "MCP odd: tool 'has space' is left out: its name 'mcp__odd__has space' is not 1-64 letters, digits, '_' or '-'",
        "MCP odd: tool 'wide' is left out: its input schema is 58,724 characters (over 32,000)",
    ]
    assert result.ok and result.content == "still here"
    assert rows["odd"].state == READY


async def test_a_tool_whose_schema_is_not_an_object_is_left_out_on_the_sdks_1x_line_and_refused_whole_on_2x(
        tmp_path: Path) -> None:
    from ljtui.core.mcp.sdk import sdk

    servers = hub(tmp_path, trusted=False, odd=McpServerConfig(command=sys.executable, args=[BAD_SERVER, "non_object"]))
    registry = ToolRegistry()
    try:
        said = await servers.start(registry)
    finally:
        await servers.stop()
    if sdk().major == 1:
        assert said == ["MCP odd: tool 'listy' is left out: its input schema is not a JSON schema of type 'object'"]
        assert [name for name in registry.names if name.startswith("mcp__")] == ["mcp__odd__fine"]
    else:
        assert said == ["MCP server odd could not start: its answer (ListToolsResult) does not follow the MCP "
                        "specification: tools.1.inputSchema.type: Input should be 'object'"]
        assert not any(name.startswith("mcp__") for name in registry.names)
