"""Which MCP servers a session may start: the user's ``mcp.servers`` and a trusted repository's ``.mcp.json``.

The user's config file names servers under ``mcp.servers``::

    mcp:
      servers:
        time: {command: mcp-server-time, args: ["--local-timezone", "UTC"]}
        docs: {url: "https://example.com/mcp", headers: {Authorization: "Bearer …"}}

A repository may commit ``.mcp.json`` in the format Claude Code reads
(``{"mcpServers": {NAME: {"command", "args", "env"} | {"type": "http", "url", "headers"}}}``).
It is untrusted input like every file of the repository: it is read without
following a link, at most :data:`MAX_MCP_JSON_BYTES`, and each server is
checked as the user's are. Its servers start only once the user trusts the
repository (trust is bound to the file's bytes, :mod:`ljtui.core.trust_content`);
until then they are listed with the notice that trust would start them.
A user's server of the same name wins.

A server's name becomes part of its tools' names (``mcp__<server>__<tool>``),
so it is short and plain: :data:`SERVER_NAME`.
"""

from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ljtui.core.statedir import read_regular

MCP_JSON = ".mcp.json"
MAX_MCP_JSON_BYTES = 256 * 1024
"""A committed ``.mcp.json`` larger than this is not read."""
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,24}")
"""What a server's name may be: it is spelled into tool names, which the model APIs limit to 64 such characters."""
MAX_SERVERS = 32
"""More servers than this in one file are refused (each is a process or a connection)."""
USER_SCOPE = {"scope": "user"}
"""Config-field metadata: only the user's own config file, the environment or a flag may set it."""
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@dataclass
class McpServerConfig:
    """One server: a command that speaks MCP on its stdin and stdout, or a streamable-HTTP ``url``.

    Attributes:
        command: the program to start (``stdio``).
        args: its arguments.
        env: variables passed to it beyond the sandbox's bare environment (a credential only this way).
        cwd: where it starts (default: the repository).
        url: the endpoint of a streamable-HTTP server.
        headers: HTTP headers sent to it (say, a token).
        network: the sandbox lets a command server reach the network.
    """

    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    network: bool = False
    """A command server gets the network in its sandbox (off otherwise, as for ``bash``); only the user's own
    config may turn it on, never a repository's ``.mcp.json``."""

    @property
    def transport(self) -> str:
        """``stdio`` or ``http``."""
        return "stdio" if self.command is not None else "http"


@dataclass
class McpConfig:
    """The ``mcp`` section: the user's servers and how their calls are asked about and bounded."""

    servers: dict[str, McpServerConfig] = field(default_factory=dict, metadata=USER_SCOPE)
    """The user's servers by name (see the module's docstring)."""
    allow_read_only: bool = field(default=False, metadata=USER_SCOPE)
    """A tool its server marks ``readOnlyHint`` runs without asking (a server's own word: off by default)."""
    start_timeout: float = field(default=20.0, metadata={**USER_SCOPE, "min": 0.1, "max": 600})
    """Longest wait for a server to start and list its tools, in seconds."""
    call_timeout: float = field(default=60.0, metadata={**USER_SCOPE, "min": 0.1, "max": 3600})
    """Longest wait for one tool call, in seconds."""


def server_problem(name: str, server: McpServerConfig) -> str | None:
    """Why server ``name`` cannot be used as configured, or None."""
    if not SERVER_NAME.fullmatch(name):
        return f"server name {name!r} must be 1 to 24 letters, digits, '_' or '-'"
    if (server.command is None) == (server.url is None):
        return f"server {name!r} needs exactly one of 'command' (stdio) or 'url' (streamable HTTP)"
    if server.command is not None:
        if not server.command.strip():
            return f"server {name!r} has an empty 'command'"
        if server.headers:
            return f"server {name!r} runs a command: 'headers' are for a 'url' server"
        if server.cwd is not None and not os.path.isabs(os.path.expanduser(server.cwd)):
            return f"server {name!r}: 'cwd' must be absolute or start with ~/ (got {server.cwd!r})"
        return None
    if server.args or server.env or server.cwd is not None or server.network:
        return f"server {name!r} has a 'url': 'args', 'env', 'cwd' and 'network' are for a 'command' server"
    if not re.match(r"https?://[^/\s]+", server.url or ""):
        return f"server {name!r}: 'url' must start with http:// or https:// (got {server.url!r})"
    return None


def servers_problem(servers: dict[str, McpServerConfig]) -> str | None:
    """Why an ``mcp.servers`` mapping is unusable, or None (the config check)."""
    if len(servers) > MAX_SERVERS:
        return f"names {len(servers)} servers, at most {MAX_SERVERS}"
    return next(filter(None, (server_problem(name, server) for name, server in servers.items())), None)


@dataclass(frozen=True)
class RepoServers:
    """A repository's ``.mcp.json`` as read: its usable servers, and one line per problem (a bad server is left
    out, the rest are kept)."""

    servers: dict[str, McpServerConfig]
    problems: tuple[str, ...] = ()


def read_repo_servers(root: Path) -> RepoServers:
    """The servers of ``root/.mcp.json`` (none when there is no such file)."""
    try:
        data = read_regular(os.open(root / MCP_JSON, _OPEN_FLAGS), MAX_MCP_JSON_BYTES + 1)
    except FileNotFoundError:
        return RepoServers({})
    except OSError as exc:
        reason = "it is a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or type(exc).__name__)
        return RepoServers({}, (f"{MCP_JSON} cannot be read: {reason}",))
    if len(data) > MAX_MCP_JSON_BYTES:
        return RepoServers({}, (f"{MCP_JSON} is over {MAX_MCP_JSON_BYTES:,} bytes; not read",))
    return parse_mcp_json(data)


def parse_mcp_json(data: bytes) -> RepoServers:
    """The servers of a ``.mcp.json`` document (see the module's docstring)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return RepoServers({}, (f"{MCP_JSON} is not valid JSON: {exc}",))
    entries = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        return RepoServers({}, (f"{MCP_JSON} has no \"mcpServers\" object",))
    if len(entries) > MAX_SERVERS:
        return RepoServers({}, (f"{MCP_JSON} names {len(entries)} servers, at most {MAX_SERVERS}",))
    servers: dict[str, McpServerConfig] = {}
    problems: list[str] = []
    for name, entry in entries.items():
        server, problem = _repo_server(str(name), entry)
        if problem is not None:
            problems.append(f"{MCP_JSON}: {problem}; left out")
        elif server is not None:
            servers[str(name)] = server
    return RepoServers(servers, tuple(problems))


def _repo_server(name: str, entry: Any) -> tuple[McpServerConfig | None, str | None]:
    from ljtui.core.config_values import coerce

    if not isinstance(entry, dict):
        return None, f"server {name!r} must be an object"
    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if kind not in ("stdio", "http"):
        return None, f"server {name!r} has type {kind!r}; ljtui speaks stdio and streamable HTTP (\"http\")"
    fields = {k: v for k, v in entry.items() if k != "type"}
    if "cwd" in fields:
        return None, f"server {name!r} sets 'cwd': a repository's server starts in the repository"
    if "network" in fields:
        return None, f"server {name!r} sets 'network': only your own config may give a server the network"
    try:
        server = coerce(fields, McpServerConfig)
    except ValueError as exc:
        return None, f"server {name!r} {exc}"
    if (kind == "http") != (server.url is not None):
        return None, f"server {name!r} of type {kind!r} needs {'a url' if kind == 'http' else 'a command'}"
    return server, server_problem(name, server)


def trust_lines(root: Path) -> list[str]:
    """What trusting the repository would start from its ``.mcp.json``, one line each (shown safely)."""
    from ljtui.core.display import shown_line

    lines = []
    for name, server in read_repo_servers(root).servers.items():
        what = " ".join([server.command, *server.args]) if server.command is not None else f"at {server.url}"
        lines.append(f"start the MCP server {name} ({MCP_JSON}): {shown_line(what[:200])}")
    return lines

