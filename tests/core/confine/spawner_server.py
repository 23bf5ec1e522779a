"""An MCP server whose tool starts a double-forking ``setsid`` daemon (:mod:`tests.core.confine.daemon`) that writes a
marker file until it is killed: what a server's leftovers look like."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:  # the SDK's 1.x line
    from mcp.server.fastmcp import FastMCP as MCPServer

DAEMON = str(Path(__file__).with_name("daemon.py"))

server = MCPServer("spawner")


@server.tool(description="Start a daemon that appends to the marker file at path (ignoring SIGTERM if asked).")
def spawn(path: str, ignore_term: bool = False) -> str:
    argv = [sys.executable, DAEMON, path, *(["ignore-term"] if ignore_term else [])]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return "spawned" if done.returncode == 0 else f"failed: {done.stderr.decode(errors='replace')[-300:]}"


server.run("stdio")
