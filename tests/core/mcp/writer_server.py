"""An MCP server whose tools write a marker file where they are told, connect to a local port, or read a variable
of its environment: what the sandbox lets it do, and what it was given."""

from __future__ import annotations

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:  # the SDK's 1.x line
    from mcp.server.fastmcp import FastMCP as MCPServer

server = MCPServer("writer")


@server.tool(description="Write a marker file at path.")
def write(path: str) -> str:
    try:
        with open(path, "w") as out:
            out.write("marker")
    except OSError as exc:
        return f"refused: {type(exc).__name__}"
    return "written"


@server.tool(description="Connect to 127.0.0.1:port.")
def connect(port: int) -> str:
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError as exc:
        return f"refused: {type(exc).__name__}"
    return "connected"


@server.tool(description="The value of an environment variable (blank when unset).")
def getenv(name: str) -> str:
    import os

    return os.environ.get(name, "")


server.run("stdio")
