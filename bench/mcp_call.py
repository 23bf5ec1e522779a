"""Benchmark: one MCP tool call through ljtui against the same call made straight with the SDK, in one run.

Both sides talk to the same server, ``mcp-server-time`` from PyPI, started
once per side and warmed up by one call; then ``--calls`` calls of
``get_current_time`` are timed on each side:

* direct: the SDK's ``stdio_client`` and ``ClientSession.call_tool``, no
  sandbox, nothing around the call;
* ljtui: the registry's ``mcp__time__get_current_time`` with the session's
  permission check (granted for the session, as after "allow for the
  session"), the bounded stdio transport, the server in the sandbox and the
  result turned into the model's text.

Prints each side's median per call, ``ljtui per-call overhead: X ms`` and
``ljtui/direct ratio: X``.

Usage: ``python bench/mcp_call.py [--calls N]``
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CALLS = 200
ARGUMENTS = {"timezone": "UTC"}


async def direct(command: str, calls: int) -> list[float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    times = []
    async with stdio_client(StdioServerParameters(command=command, args=["--local-timezone", "UTC"])) as (r, w), \
            ClientSession(r, w) as session:
        await session.initialize()
        await session.call_tool("get_current_time", ARGUMENTS)
        for _ in range(calls):
            start = time.perf_counter()
            await session.call_tool("get_current_time", ARGUMENTS)
            times.append(time.perf_counter() - start)
    return times


async def through_ljtui(command: str, calls: int, root: Path) -> tuple[list[float], str]:
    from ljtui.core.agent.permissions import Permissions
    from ljtui.core.approval import ScriptedApprover
    from ljtui.core.childenv import child_env
    from ljtui.core.config import Config
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.mcp.client import McpServer, ServerEnvironment
    from ljtui.core.mcp.config import McpServerConfig
    from ljtui.core.mcp.tools import server_tools
    from ljtui.core.tools import ToolContext, ToolRegistry, ToolServices

    sandbox = CommandSandbox(root)
    confined = sandbox if await asyncio.to_thread(lambda: sandbox.confined) else None
    server = McpServer("time", McpServerConfig(command=command, args=["--local-timezone", "UTC"]),
                       ServerEnvironment(root, confined, child_env()), start_timeout=30, call_timeout=30)
    permissions = Permissions(ScriptedApprover({"permission": ["session"]}).decide, lambda event: None)
    ctx = ToolContext(root, 1, "bench", "chat", lambda event: None, Config(), ToolServices(permissions=permissions))
    times = []
    try:
        registry = ToolRegistry(list(server_tools(server, await server.ensure_started(), allow_read_only=False).tools))
        first = await registry.call("mcp__time__get_current_time", ARGUMENTS, ctx)
        assert first.ok, first.content
        for _ in range(calls):
            start = time.perf_counter()
            result = await registry.call("mcp__time__get_current_time", ARGUMENTS, ctx)
            times.append(time.perf_counter() - start)
            assert result.ok
    finally:
        await server.stop()
        sandbox.close()
    return times, sandbox.status.backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=DEFAULT_CALLS)
    args = parser.parse_args()
    command = shutil.which("mcp-server-time")
    if command is None:
        sys.exit("mcp-server-time is not installed (pip install '.[test]')")
    with tempfile.TemporaryDirectory(prefix="ljtui-mcp-bench-") as folder:
        plain = asyncio.run(direct(command, args.calls))
        ours, backend = asyncio.run(through_ljtui(command, args.calls, Path(folder)))
    base, mine = statistics.median(plain), statistics.median(ours)
    print(f"calls per side: {args.calls}; ljtui's server sandbox: {backend}")
    print(f"direct SDK call, median: {base * 1000:.2f} ms")
    print(f"ljtui tool call, median: {mine * 1000:.2f} ms")
    print(f"ljtui per-call overhead: {(mine - base) * 1000:.2f} ms")
    print(f"ljtui/direct ratio: {mine / base:.2f}")


if __name__ == "__main__":
    main()
