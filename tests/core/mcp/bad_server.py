"""An MCP server for the failure cases, run as ``python bad_server.py MODE [MARKER_DIR]``.

Modes: ``ok`` (a well-behaved server with ``echo`` and ``big``), ``crash`` (exits before answering), ``hang``
(never answers), ``garbage`` (answers with a line that is not JSON-RPC), ``huge`` (sends a line with no end),
``stubborn`` (ignores SIGTERM and starts a child that ignores it too; both write their pids to MARKER_DIR),
``slow_call`` (its tool never returns), ``die_on_call`` (exits during a call), ``bad_schema`` (lists ``fine``,
which echoes its text, beside ``listy``, whose input schema is not an object, and ``has space``, a name the model
APIs refuse).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1]
MARKERS = sys.argv[2] if len(sys.argv) > 2 else None


def main() -> None:
    if MODE == "crash":
        print("cannot start: missing config", file=sys.stderr, flush=True)
        sys.exit(3)
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "garbage":
        sys.stdin.readline()
        print("this is not json-rpc", flush=True)
        time.sleep(3600)
    if MODE == "huge":
        sys.stdin.readline()
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        ignore = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
        child = subprocess.Popen([sys.executable, "-c", ignore])
        assert MARKERS is not None
        with open(os.path.join(MARKERS, "pids"), "w") as out:
            out.write(f"{os.getpid()} {child.pid}\n")
    if MODE == "bad_schema":
        serve_bad_schema()
        return
    serve()


def serve() -> None:
    from mcp.server.fastmcp import FastMCP
    from mcp.types import ToolAnnotations

    server = FastMCP("bad")

    @server.tool(description="Read something; changes nothing.", annotations=ToolAnnotations(readOnlyHint=True))
    def peek() -> str:
        return "peeked"

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="A result of n characters.")
    def big(n: int) -> str:
        return "y" * n

    @server.tool(description="Never returns.")
    def slow() -> str:
        time.sleep(3600)
        return "late"

    @server.tool(description="Exits the server.")
    def die() -> str:
        os._exit(7)

    server.run("stdio")


def serve_bad_schema() -> None:
    """The low-level server API, since FastMCP makes every schema an object: one good tool, two an API refuses."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    server = Server("bad_schema")
    text_schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(name="fine", description="Echo the text back.", inputSchema=text_schema),
            types.Tool(name="listy", description="Its schema is an array.", inputSchema={"type": "array"}),
            types.Tool(name="has space", description="Its name has a space.", inputSchema=text_schema),
        ]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, object]) -> list[types.TextContent]:
        return [types.TextContent(type="text", text=str(arguments.get("text", "")))]

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


main()
