"""One MCP server as ljtui holds it: started on demand, its tools listed, its calls bounded, stopped whole.

An :class:`McpServer` owns one connection through the official SDK's
:class:`~mcp.ClientSession`, over :mod:`ljtui.core.mcp.stdio` (a command) or
the SDK's streamable-HTTP transport (a ``url``). The SDK's transports are
task groups that must be entered and left in one task, so each connection
lives in a task of its own; calls reach its session from any task.

Every wait is bounded: starting (initialize plus the tool list) by
``mcp.start_timeout``, each call by ``mcp.call_timeout``. A server that
crashes, hangs or speaks garbage becomes :class:`McpUnavailable` with the
reason (and the tail of its stderr); the next call starts it again, once:
after a second failure it stays down for the session, saying so.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ljtui.core.mcp.config import McpServerConfig
from ljtui.core.mcp.stdio import StderrTail, confined_stdio

if TYPE_CHECKING:
    from mcp import ClientSession, types

    from ljtui.core.confine.session import CommandSandbox

MAX_TOOLS = 128
"""More tools than this from one server are not listed (each is part of every request's prompt)."""
MAX_LIST_PAGES = 16
"""A tool list longer than this many pages is cut there."""
CONNECT_SECONDS = 30.0
"""Longest wait to connect to (and send to) a streamable-HTTP server."""
RESTARTS = 1
"""How often a failed server is started again, on a later call, before it stays down for the session."""
STOPPED, STARTING, READY, FAILED = "stopped", "starting", "ready", "failed"


class McpUnavailable(Exception):
    """The server could not be started, or its connection failed; the message says why."""


@dataclass(frozen=True)
class ServerEnvironment:
    """Where a session's servers start: the repository, its sandbox (``None``: unconfined), and the base
    environment without keys or credentials."""

    root: Path
    sandbox: CommandSandbox | None
    base_env: dict[str, str]


class McpServer:
    """One configured server (see the module's docstring)."""

    def __init__(self, name: str, config: McpServerConfig, where: ServerEnvironment, *,
                 start_timeout: float, call_timeout: float) -> None:
        self.name = name
        self.config = config
        self._where = where
        self._start_timeout = start_timeout
        self._call_timeout = call_timeout
        self.state = STOPPED
        self.problem: str | None = None
        """Why the server is down (``None`` while it is not)."""
        self.tools: list[types.Tool] = []
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._failures = 0
        self._stderr = StderrTail()
        self._lock = asyncio.Lock()

    async def ensure_started(self) -> list[types.Tool]:
        """Start the server if it is not running (and may be started again); its tools.

        Raises:
            McpUnavailable: it could not start, within ``start_timeout``.
        """
        async with self._lock:
            if self.state == READY and self._task is not None and not self._task.done():
                return self.tools
            if self._failures > RESTARTS:
                raise McpUnavailable(f"{self.problem}; not started again this session")
            await self._start()
            return self.tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``tool``; a failure of the connection (not of the tool) marks the server failed.

        Raises:
            McpUnavailable: the server is down, or the call did not end within ``call_timeout``.
        """
        await self.ensure_started()
        session = self._session
        assert session is not None
        try:
            return await asyncio.wait_for(
                session.call_tool(tool, arguments, read_timeout_seconds=timedelta(seconds=self._call_timeout)),
                self._call_timeout + 1)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, TimeoutError) or _timed_out(exc):
                raise await self._fail(f"{self.name}: {tool} did not answer within {self._call_timeout:g} s",
                                       stderr=False) from None
            if _is_tool_error(exc):
                raise McpUnavailable(f"{self.name}: {tool}: {_reason(exc)}") from None
            raise await self._fail(f"{self.name}: the connection failed during {tool}: {_reason(exc)}") from None

    async def stop(self) -> None:
        """Stop the server (and all it started); a stopped server may be started again."""
        task, stop = self._task, self._stop
        self._task = self._stop = self._session = None
        if stop is not None:
            stop.set()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        if self.state != FAILED:
            self.state = STOPPED

    async def _start(self) -> None:
        await self.stop()
        self.state, self.problem, self._stderr = STARTING, None, StderrTail()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._serve(ready, self._stop), name=f"mcp {self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self._start_timeout)
        except TimeoutError:
            raise await self._fail(f"{self.name} did not start within {self._start_timeout:g} s") from None
        except McpUnavailable as exc:
            raise await self._fail(str(exc)) from None
        self.state = READY

    async def _fail(self, reason: str, *, stderr: bool = True) -> McpUnavailable:
        """Stop the server and mark it failed; the error to raise (``stderr``: with the tail of the server's)."""
        await self.stop()
        tail = self._stderr.text if stderr else ""
        self.problem = f"{reason}{f' (its stderr: {tail})' if tail else ''}"
        self.state, self._failures = FAILED, self._failures + 1
        return McpUnavailable(self.problem)

    async def _serve(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """The connection's task: open the transport and the session, list the tools, wait for the stop."""
        from mcp import ClientSession

        try:
            async with self._transport() as (incoming, outgoing), \
                    ClientSession(incoming, outgoing,
                                  read_timeout_seconds=timedelta(seconds=self._start_timeout)) as session:
                await session.initialize()
                self.tools = await _list_tools(session)
                self._session = session
                ready.set_result(None)
                await stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the SDK's task groups raise groups; each is a reason to give
            if not ready.done():
                why = "it closed the connection" if _closed(exc) else _reason(exc)
                ready.set_exception(McpUnavailable(f"{self.name} could not start: {why}"))
            elif self.state == READY:
                self.state, self.problem = FAILED, f"{self.name} stopped: {_reason(exc)}"
                self._failures += 1
        finally:
            self._session = None
            if not ready.done():
                ready.set_exception(McpUnavailable(f"{self.name} closed before it started"))

    def _transport(self):  # type: ignore[no-untyped-def]
        config, where = self.config, self._where
        if config.command is None:
            return _http(config.url or "", config.headers, self._call_timeout)
        cwd = Path(os.path.expanduser(config.cwd)) if config.cwd else where.root
        env = {**where.base_env, **config.env}
        confinement = None
        if where.sandbox is not None and where.sandbox.confined:
            confinement = where.sandbox.confinement(where.sandbox.rules(cwd, network=config.network or None))
        return confined_stdio([config.command, *config.args], cwd=cwd, env=env, confinement=confinement,
                              stderr=self._stderr)


@asynccontextmanager
async def _http(url: str, headers: dict[str, str], timeout: float) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's streamable-HTTP transport as a pair of streams, over a client of ours that sends ``headers``
    and follows no redirect (the transport keeps to the endpoint's origin itself)."""
    import httpx
    from mcp.client.streamable_http import streamable_http_client

    limits = httpx.Timeout(CONNECT_SECONDS, read=timeout)
    async with httpx.AsyncClient(headers=headers, timeout=limits, follow_redirects=False) as client, \
            streamable_http_client(url, http_client=client) as (incoming, outgoing, _session_id):
        yield incoming, outgoing


async def _list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page = await session.list_tools(cursor)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor or len(tools) >= MAX_TOOLS:
            break
    return tools[:MAX_TOOLS]


REQUEST_TIMEOUT = 408
"""The error code the SDK gives a request whose answer did not come within its read timeout."""
CONNECTION_CLOSED = -32000
"""The error code the SDK gives the requests in flight when the server's streams close (it exited)."""


def _timed_out(exc: BaseException) -> bool:
    from mcp.shared.exceptions import McpError

    return isinstance(exc, McpError) and exc.error.code == REQUEST_TIMEOUT


def _closed(exc: BaseException) -> bool:
    """The server's streams closed under a request (it exited)."""
    from mcp.shared.exceptions import McpError

    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return isinstance(exc, McpError) and exc.error.code == CONNECTION_CLOSED


def _is_tool_error(exc: BaseException) -> bool:
    """A JSON-RPC error answer to the call (unknown tool, bad arguments): the server itself is fine."""
    from mcp.shared.exceptions import McpError

    return isinstance(exc, McpError) and exc.error.code not in (REQUEST_TIMEOUT, CONNECTION_CLOSED)


def _reason(exc: BaseException) -> str:
    """One line for an exception, unwrapping the SDK's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
