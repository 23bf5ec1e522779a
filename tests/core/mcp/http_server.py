"""A streamable-HTTP MCP server on 127.0.0.1, run as ``python http_server.py PORT_FILE TOKEN``.

It binds a free port itself and writes it to PORT_FILE (no port is shared between tests), and answers only
requests that carry ``Authorization: Bearer TOKEN``.
"""

from __future__ import annotations

import os
import socket
import sys

import uvicorn
from starlette.responses import PlainTextResponse

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:  # the SDK's 1.x line
    from mcp.server.fastmcp import FastMCP as MCPServer

PORT_FILE, TOKEN = sys.argv[1], sys.argv[2]

server = MCPServer("web")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


app = server.streamable_http_app()


async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
    if scope["type"] == "http" and (b"authorization", f"Bearer {TOKEN}".encode()) not in scope["headers"]:
        await PlainTextResponse("no token", status_code=401)(scope, receive, send)
        return
    await app(scope, receive, send)


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(128)  # before the port is told: a client connecting at once waits in the backlog, never refused
with open(PORT_FILE + ".tmp", "w") as out:
    out.write(str(listener.getsockname()[1]))
os.replace(PORT_FILE + ".tmp", PORT_FILE)
uvicorn.Server(uvicorn.Config(guarded, log_level="warning", lifespan="on")).run(sockets=[listener])
