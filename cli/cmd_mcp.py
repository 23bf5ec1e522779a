"""``ljtui mcp list``: the MCP servers this repository's sessions would use, each started to list its tools.

Every server named in the user's config (``mcp.servers``) and, in a trusted
repository, in its ``.mcp.json`` is started as a session would start it (in
the sandbox, without credentials but its own ``env``), asked for its tools,
and stopped. An untrusted repository's servers are listed as ``held`` and
never started. ``--json`` prints a list of ``{name, origin, transport,
state, tools, problem}``.

Exit status: 0 listed (every server ready, or none configured); 1 a server
could not start (it is listed with why); 2 a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ljtui.cli.output import echo, json_text

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
PROG = "ljtui mcp"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``mcp`` command."""
    parser = subparsers.add_parser(
        "mcp", help="the MCP servers sessions here would use: their state and tools",
        description="List the MCP servers of your config and (once trusted) of the repository's .mcp.json; each "
                    "is started in the sandbox to list its tools, then stopped.")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    listing = commands.add_parser("list", help="each server, its state and its tools")
    listing.add_argument("--json", action="store_true",
                         help="print a JSON list of {name, origin, transport, state, tools, problem}")
    listing.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                         help="repository whose servers to list (default: the one holding the current directory)")
    listing.set_defaults(func=run_list)


def run_list(args: argparse.Namespace) -> int:
    """List the servers; see the module docstring for the exit status."""
    from ljtui.cli.main import repo_root_arg
    from ljtui.cli.session import headless_engine
    from ljtui.core.approval import DenyAll
    from ljtui.core.mcp.hub import row_lines
    from ljtui.core.ports import ListSink

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_USAGE
    sink = ListSink()
    engine = headless_engine(PROG, root, sink, DenyAll())

    async def listed() -> list:  # type: ignore[type-arg]
        try:
            await engine.start_mcp()
            return engine.mcp.rows()
        finally:
            await engine.aclose()

    rows = asyncio.run(listed())
    if args.json:
        print(json_text([{"name": r.name, "origin": r.origin, "transport": r.transport, "state": r.state,
                          "tools": list(r.tools), "problem": r.problem} for r in rows], indent=1))
    else:
        for line in row_lines(rows):
            echo(line)
    for event in sink.events:
        message = getattr(event, "message", None)
        if getattr(event, "level", "") == "warning" and message:
            echo(f"{PROG}: {message}", sys.stderr)
    return EXIT_FAILED if any(r.state == "failed" for r in rows) else EXIT_OK
