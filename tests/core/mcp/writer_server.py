"""An MCP server whose tools write a marker file where they are told, or connect to a local port: what the
sandbox lets it do."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("writer")


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


server.run("stdio")
