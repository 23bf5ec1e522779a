"""One MCP server as ljtui holds it: started on demand, its tools listed, its calls bounded, stopped whole.

An :class:`McpServer` owns one connection through the official SDK's
session (:mod:`ljtui.core.mcp.sdk`, which speaks the SDK's 1.x and 2.x
lines alike), over :mod:`ljtui.core.mcp.stdio` (a command) or the SDK's
streamable-HTTP transport (a ``url``). The SDK's transports are task groups
that must be entered and left in one task, so each connection lives in a
task of its own; calls reach its session from any task.

Every wait is bounded: starting (initialize plus the tool list) by
``mcp.start_timeout``, each call by ``mcp.call_timeout``. A server that
crashes, hangs or speaks garbage becomes :class:`McpUnavailable` with the
reason and the last lines of its stderr; the next call starts it again,
once: after a second failure it stays down for the session, saying so.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ljtui.core.mcp import sdk
from ljtui.core.mcp.config import McpServerConfig
from ljtui.core.mcp.program import ProgramNotFound
from ljtui.core.mcp.stdio import StderrTail, confined_stdio
from ljtui.core.mcp.values import McpResult, McpTool

if TYPE_CHECKING:
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
    """Where a session's servers start: the repository, the session's sandbox, and the base environment without
    keys or credentials.

    Attributes:
        root: the repository (a stdio server's working folder unless it names one).
        sandbox: the session's sandbox; every stdio server starts through it, confined or not (``None``: the
            session has no sandbox object, and servers start directly).
        base_env: the environment every server starts from (its own ``env`` goes on top).
    """

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
        self.tools: list[McpTool] = []
        self._session: sdk.Session | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._failures = 0
        self._stderr = StderrTail()
        self._transport_error: Exception | None = None
        """The last error the transport handed the session (a line that is not JSON-RPC, one too long)."""
        self._lock = asyncio.Lock()

    async def ensure_started(self) -> list[McpTool]:
        """Start the server if it is not running (and may be started again); its tools.

        Raises:
            McpUnavailable: it could not start, within ``start_timeout``.
        """
        async with self._lock:
            if self.state == READY and self._task is not None and not self._task.done():
                return self.tools
            if self._failures > RESTARTS:
                raise McpUnavailable(f"{self.problem}\nnot started again this session")
            await self._start()
            return self.tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> McpResult:
        """Call ``tool``; a failure of the connection (not of the tool) marks the server failed.

        Raises:
            McpUnavailable: the server is down, or the call did not end within ``call_timeout``.
        """
        await self.ensure_started()
        session = self._session
        assert session is not None
        try:
            return await asyncio.wait_for(session.call_tool(tool, arguments, self._call_timeout),
                                          self._call_timeout + 1)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            kind = sdk.error_kind(exc)
            if isinstance(exc, TimeoutError) or kind == sdk.TIMED_OUT:
                raise await self._fail(f"{self.name}: {tool} did not answer within {self._call_timeout:g} s",
                                       stderr=False) from None
            if kind == sdk.ANSWERED:
                raise McpUnavailable(f"{self.name}: {tool}: {_reason(exc)}") from None
            raise await self._fail(f"{self.name}: the connection failed during {tool}: {self._why(exc)}") from None

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
        self.state, self.problem, self._stderr, self._transport_error = STARTING, None, StderrTail(), None
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(_retrieved)  # its failure may come after the start was given up
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._serve(ready, self._stop), name=f"mcp {self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self._start_timeout)
        except TimeoutError:
            seen = f"; {self._transport_error}" if self._transport_error is not None else ""
            raise await self._fail(f"{self.name} did not start within {self._start_timeout:g} s{seen}") from None
        except McpUnavailable as exc:
            raise await self._fail(str(exc)) from None
        self.state = READY

    async def _fail(self, reason: str, *, stderr: bool = True) -> McpUnavailable:
        """Stop the server and mark it failed; the error to raise (``stderr``: with the last lines of the
        server's)."""
        await self.stop()
        lines = self._stderr.lines if stderr else []
        said = "".join(f"\n  {line}" for line in lines)
        self.problem = f"{reason}{f'; the last lines of its stderr:{said}' if said else ''}"
        self.state, self._failures = FAILED, self._failures + 1
        return McpUnavailable(self.problem)

    async def _serve(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """The connection's task: open the transport and the session, list the tools, wait for the stop."""
        try:
            async with self._transport() as streams, \
                    sdk.open_session(streams, timeout=self._start_timeout,
                                     transport_error=self._transport_failed) as session:
                self.tools = await _list_tools(session)
                self._session, self._transport_error = session, None
                ready.set_result(None)
                await stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the SDK's task groups raise groups; each is a reason to give
            if not ready.done():
                ready.set_exception(McpUnavailable(f"{self.name} could not start: {self._why(exc)}"))
            elif self.state == READY:
                self.state, self.problem = FAILED, f"{self.name} stopped: {self._why(exc)}"
                self._failures += 1
        finally:
            self._session = None
            if not ready.done():
                ready.set_exception(McpUnavailable(f"{self.name} closed before it started"))

    def _transport_failed(self, error: Exception) -> None:
        self._transport_error = error

    def _why(self, exc: BaseException) -> str:
        """One line for why the connection failed: what the transport saw first, else the exception's words."""
        exc = _innermost(exc)
        if isinstance(exc, (ProgramNotFound, sdk.SdkUnsupported)):
            return str(exc)
        if self._transport_error is not None:
            return str(self._transport_error)
        if sdk.error_kind(exc) == sdk.CLOSED:
            return "it closed the connection"
        return sdk.explain(exc) or _reason(exc)

    def _transport(self):  # type: ignore[no-untyped-def]
        config, where = self.config, self._where
        if config.command is None:
            return sdk.http_streams(config.url or "", config.headers, connect=CONNECT_SECONDS,
                                    read=self._call_timeout, transport_error=self._transport_failed)
        cwd = Path(os.path.expanduser(config.cwd)) if config.cwd else where.root
        env = {**where.base_env, **config.env}
        confinement = None
        if where.sandbox is not None:
            confinement = where.sandbox.confinement(where.sandbox.rules(cwd, network=config.network or None))
        return confined_stdio([config.command, *config.args], cwd=cwd, env=env, confinement=confinement,
                              stderr=self._stderr)


async def _list_tools(session: sdk.Session) -> list[McpTool]:
    tools: list[McpTool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page, cursor = await session.list_tools(cursor)
        tools.extend(page)
        if not cursor or len(tools) >= MAX_TOOLS:
            break
    return tools[:MAX_TOOLS]


def _retrieved(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside the SDK's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    """One line for an exception, unwrapping the SDK's exception groups."""
    exc = _innermost(exc)
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
