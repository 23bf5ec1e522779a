"""An MCP server for the failure cases, run as ``python bad_server.py MODE [MARKER_DIR]``.

Modes: ``ok`` (a well-behaved server with ``peek``, ``echo``, ``big``, ``slow`` and ``die``), ``crash`` (writes
seven lines to stderr and exits before answering), ``hang`` (never answers), ``garbage`` (answers with a line that
is not JSON-RPC), ``huge`` (sends a line with no end), ``stubborn`` (ignores SIGTERM and starts a child that ignores
it too; both keep a heartbeat file in MARKER_DIR, ``beat-server`` and ``beat-child``), ``crash_leaving_child``
(exits at once, leaving a child in a session of its own that holds its stderr open; the child's pid goes to
MARKER_DIR/child), ``bad_schema`` and
``non_object`` (tool lists written by hand: see :func:`serve_by_hand`). The SDK's own servers run on either of its
lines (1.x and 2.x).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

BEAT = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def beat(path):
    while True:
        with open(path, "w") as out:
            out.write(str(time.monotonic_ns()))
        time.sleep(0.05)
"""
"""A heartbeat that ignores SIGTERM: a file rewritten every 50 ms for as long as its process lives (seen from any
process namespace, unlike a process id)."""
MODE = sys.argv[1]
MARKERS = sys.argv[2] if len(sys.argv) > 2 else None


def main() -> None:
    if MODE == "crash_leaving_child":
        assert MARKERS is not None
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
        with open(os.path.join(MARKERS, "child"), "w") as out:
            out.write(str(child.pid))
        print("cannot start: the child keeps this stderr open", file=sys.stderr, flush=True)
        sys.exit(3)
    if MODE == "crash":
        for number in range(1, 7):
            print(f"starting step {number}", file=sys.stderr)
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
        assert MARKERS is not None
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen([sys.executable, "-c", f"{BEAT}\nbeat({os.path.join(MARKERS, 'beat-child')!r})"])
        namespace: dict[str, object] = {}
        exec(BEAT, namespace)
        beat = namespace["beat"]
        threading.Thread(target=beat, args=(os.path.join(MARKERS, "beat-server"),), daemon=True).start()
    if MODE in ("bad_schema", "non_object"):
        serve_by_hand()
        return
    serve()


def high_level_server(name: str):  # type: ignore[no-untyped-def]
    """The SDK's high-level server of the installed line: ``MCPServer`` (2.x), ``FastMCP`` (1.x)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        from mcp.server.fastmcp import FastMCP as MCPServer
    return MCPServer(name)


def serve() -> None:
    from mcp.types import ToolAnnotations

    server = high_level_server("bad")

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


def serve_by_hand() -> None:
    """JSON-RPC by hand, so the tool list can hold what the SDK's servers never send: ``bad_schema`` lists
    ``fine`` (it echoes its text) beside ``has space`` (a name the model APIs refuse) and ``wide`` (an input
    schema too large to offer); ``non_object`` lists ``fine`` beside ``listy``, whose input schema is not an
    object (which the MCP specification forbids)."""
    text_schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    wide_schema = {"type": "object", "properties": {f"p{n}": {"type": "string", "description": "x" * 100}
                                                    for n in range(400)}}
    tools = [{"name": "fine", "description": "Echo the text back.", "inputSchema": text_schema}]
    if MODE == "bad_schema":
        tools += [{"name": "has space", "description": "Its name has a space.", "inputSchema": text_schema},
                  {"name": "wide", "description": "Its schema is huge.", "inputSchema": wide_schema}]
    else:
        tools += [{"name": "listy", "description": "Its schema is an array.", "inputSchema": {"type": "array"}}]
    for line in sys.stdin:
        request = json.loads(line)
        method, ident = request.get("method"), request.get("id")
        if ident is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": MODE, "version": "1"}}
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            text = str(request["params"].get("arguments", {}).get("text", ""))
            result = {"content": [{"type": "text", "text": text}], "isError": False}
        else:
            result = {}
        print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


main()
