"""A session's MCP servers: which may start, their tools in the registry, their state, and stopping them all.

The servers are the user's ``mcp.servers`` and, only while the repository
is trusted, those of its ``.mcp.json`` (a user's server of the same name
wins). An untrusted repository's servers are listed as held, with the
notice that trusting the repository would start them; they never start.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ljtui.core.mcp.client import FAILED, McpServer, McpUnavailable, ServerEnvironment
from ljtui.core.mcp.config import MCP_JSON, McpConfig, McpServerConfig, read_repo_servers
from ljtui.core.mcp.tools import AfterCall, server_tools

if TYPE_CHECKING:
    from ljtui.core.tools import ToolRegistry

USER, REPOSITORY = "user config", MCP_JSON
"""Where a server was named."""
HELD = "held"
"""The state of a server an untrusted repository names: listed, never started."""


@dataclass(frozen=True)
class ServerRow:
    """One line of ``/mcp`` and ``ljtui mcp list``."""

    name: str
    origin: str
    transport: str
    state: str
    tools: tuple[str, ...]
    problem: str | None


class McpHub:
    """The session's servers (see the module's docstring)."""

    def __init__(self, settings: McpConfig, root: Path, where: ServerEnvironment, *, trusted: bool,
                 after_call: AfterCall | None = None) -> None:
        self._settings = settings
        self._after_call = after_call
        self.notices: list[str] = []
        """Lines to show once: servers left out, held servers, tools left out."""
        configs: dict[str, tuple[McpServerConfig, str]] = {}
        self.held: dict[str, McpServerConfig] = {}
        repo = read_repo_servers(root)
        self.notices.extend(repo.problems)
        for name, config in repo.servers.items():
            if trusted:
                configs[name] = (config, REPOSITORY)
            elif name not in settings.servers:
                self.held[name] = config
        if self.held:
            names = ", ".join(sorted(self.held))
            self.notices.append(f"{MCP_JSON} names MCP servers ({names}) that start only once you trust this "
                                "repository (`ljtui trust`)")
        for name, config in settings.servers.items():
            configs[name] = (config, USER)
        self.servers = {name: McpServer(name, config, where, start_timeout=settings.start_timeout,
                                        call_timeout=settings.call_timeout) for name, (config, _) in configs.items()}
        self._origins = {name: origin for name, (_, origin) in configs.items()}

    async def start(self, registry: ToolRegistry) -> list[str]:
        """Start every server side by side and add its tools to ``registry``; a notice line for each server that
        failed and each tool left out."""
        said: list[str] = []

        async def one(server: McpServer) -> None:
            try:
                listed = await server.ensure_started()
            except McpUnavailable as exc:
                said.append(f"MCP server {exc}")
                return
            made = server_tools(server, listed, allow_read_only=self._settings.allow_read_only,
                                after_call=self._after_call)
            for tool in made.tools:
                registry.add(tool)
            said.extend(f"MCP {line}" for line in made.left_out)

        await asyncio.gather(*(one(server) for server in self.servers.values()))
        return said

    def rows(self) -> list[ServerRow]:
        """Every server, held ones too, by name."""
        rows = [ServerRow(name, self._origins[name], server.config.transport, server.state,
                          tuple(t.name for t in server.tools) if server.state != FAILED else (), server.problem)
                for name, server in self.servers.items()]
        rows += [ServerRow(name, REPOSITORY, config.transport, HELD, (), "the repository is not trusted")
                 for name, config in self.held.items()]
        return sorted(rows, key=lambda row: row.name)

    @property
    def local(self) -> bool:
        """Whether a server of the session is a program ljtui starts (not a URL)."""
        return any(server.config.command is not None for server in self.servers.values())

    async def stop(self) -> None:
        """Stop every server and all they started."""
        await asyncio.gather(*(server.stop() for server in self.servers.values()))


NO_SERVERS = ("No MCP servers: name them under mcp.servers in your own config file, or trust a repository whose "
              ".mcp.json names them.")


def row_lines(rows: list[ServerRow]) -> list[str]:
    """``/mcp`` and ``ljtui mcp list``: one line per server, then its tools or why it is down."""
    if not rows:
        return [NO_SERVERS]
    lines = []
    for row in rows:
        lines.append(f"{row.name} · {row.transport} · {row.state} · from {row.origin}")
        if row.tools:
            lines.append(f"  {len(row.tools)} tool{'s' if len(row.tools) != 1 else ''}: {', '.join(row.tools)}")
        elif row.problem:
            lines.extend(f"  {line}" for line in row.problem.splitlines())
    return lines

