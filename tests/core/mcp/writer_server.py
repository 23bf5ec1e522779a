"""An MCP server with one tool that writes a marker file where it is told: what the sandbox lets it do."""

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


server.run("stdio")
