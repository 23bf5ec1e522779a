"""The one module that calls the official ``mcp`` SDK: its 1.x line and its 2.x line through the same ljtui code.

ljtui drives the SDK's ``ClientSession`` over transports it controls (its
sandboxed stdio transport, :mod:`ljtui.core.mcp.stdio`, and the SDK's
streamable-HTTP transport over an HTTP client of ljtui's that follows no
redirect). The session speaks the protocol's handshake (``initialize``),
which servers of both lines answer. What the two lines spell differently is
kept here, one class per line:

* a session's and a call's timeout: a ``timedelta`` (1.x), seconds (2.x);
* an error answer: ``McpError`` (1.x), ``MCPError`` (2.x); a request that
  timed out has code 408 (1.x), -32001 (2.x);
* one wire message: a root model (1.x), a type adapter (2.x), dumped
  without ``None`` fields (1.x) or without unset ones (2.x), as each line's
  own stdio transport does;
* a listed tool and a call's result: read through their wire JSON, which
  the specification fixes, into :mod:`ljtui.core.mcp.values`;
* streamable HTTP: over ``httpx`` yielding three values (1.x), over
  ``httpx2`` yielding two (2.x).

The SDK is imported on first use (``import mcp`` takes about half a second).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from ljtui.core.mcp.values import McpResult, McpTool

CONNECTION_CLOSED = -32000
"""The code both lines give the requests in flight when the server's streams close (it exited)."""
TIMED_OUT, CLOSED, ANSWERED, FAILED = "timed out", "closed", "answered", "failed"
"""What an exception from a session means: a request's read timeout ran out, the server's streams closed
under a request, the server answered with a JSON-RPC error (the server itself is fine), or anything else."""

Streams = tuple[Any, Any]
"""What a session reads messages (and transport errors) from, and writes messages to."""
TransportError = Callable[[Exception], None]
"""Told each error the transport put in the session's stream (a line that is not JSON-RPC, one too long)."""


class SdkUnsupported(Exception):
    """The installed ``mcp`` SDK belongs to a line ljtui does not speak.

    Attributes:
        version: the installed version.
    """

    def __init__(self, version: str) -> None:
        super().__init__(f"ljtui speaks the mcp SDK's 1.x and 2.x lines, and mcp {version} is installed")
        self.version = version


class _Line1:
    """The SDK's 1.x line."""

    major = 1
    timeout_code = 408

    def __init__(self) -> None:
        from mcp import ClientSession, types
        from mcp.shared.exceptions import McpError
        from mcp.shared.message import SessionMessage

        self.session_class, self.types, self.error, self.message = ClientSession, types, McpError, SessionMessage

    def seconds(self, value: float) -> Any:
        return timedelta(seconds=value)

    def decode(self, line: bytes) -> Any:
        return self.message(self.types.JSONRPCMessage.model_validate_json(line))

    def encode(self, message: Any) -> bytes:
        return message.message.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8")

    async def list_tools(self, session: Any, cursor: str | None) -> Any:
        return await session.list_tools(cursor)

    @asynccontextmanager
    async def http(self, url: str, headers: Mapping[str, str], connect: float, read: float,
                   refused: TransportError) -> AsyncIterator[Streams]:
        import httpx
        from mcp.client.streamable_http import streamable_http_client

        limits = httpx.Timeout(connect, read=read)
        async with httpx.AsyncClient(headers=dict(headers), timeout=limits, follow_redirects=False,
                                  event_hooks={"response": [_refusals(refused)]}) as client, \
                streamable_http_client(url, http_client=client) as (incoming, outgoing, _session_id):
            yield incoming, outgoing


class _Line2:
    """The SDK's 2.x line."""

    major = 2
    timeout_code = -32001

    def __init__(self) -> None:
        from mcp import ClientSession, types
        from mcp.shared.exceptions import MCPError
        from mcp.shared.message import SessionMessage

        self.session_class, self.types, self.error, self.message = ClientSession, types, MCPError, SessionMessage

    def seconds(self, value: float) -> Any:
        return value

    def decode(self, line: bytes) -> Any:
        return self.message(self.types.jsonrpc_message_adapter.validate_json(line, by_name=False))

    def encode(self, message: Any) -> bytes:
        return message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")

    async def list_tools(self, session: Any, cursor: str | None) -> Any:
        params = self.types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        return await session.list_tools(params=params)

    @asynccontextmanager
    async def http(self, url: str, headers: Mapping[str, str], connect: float, read: float,
                   refused: TransportError) -> AsyncIterator[Streams]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        limits = httpx2.Timeout(connect, read=read)
        async with httpx2.AsyncClient(headers=dict(headers), timeout=limits, follow_redirects=False,
                                  event_hooks={"response": [_refusals(refused)]}) as client, \
                streamable_http_client(url, http_client=client) as (incoming, outgoing):
            yield incoming, outgoing


_Line = _Line1 | _Line2


@functools.cache
def sdk() -> _Line:
    """The installed SDK's line (imports it on first use).

    Raises:
        SdkUnsupported: neither 1.x nor 2.x is installed.
    """
    from importlib.metadata import version

    installed = version("mcp")
    lines: dict[str, type[_Line1] | type[_Line2]] = {"1": _Line1, "2": _Line2}
    chosen = lines.get(installed.split(".", 1)[0])
    if chosen is None:
        raise SdkUnsupported(installed)
    return chosen()


class Session:
    """An initialized session with one server: its tools, and calls to them.

    Args:
        session: the SDK's ``ClientSession``, entered and initialized.
        line: the SDK's line.
    """

    def __init__(self, session: Any, line: _Line) -> None:
        self._session = session
        self._line = line

    async def list_tools(self, cursor: str | None) -> tuple[list[McpTool], str | None]:
        """One page of the server's tools, and the cursor of the next (``None``: it was the last)."""
        page = _wire(await self._line.list_tools(self._session, cursor))
        listed = page.get("tools")
        tools = [McpTool.from_wire(tool) for tool in listed if isinstance(tool, Mapping)] if isinstance(listed, list) \
            else []
        following = page.get("nextCursor")
        return tools, following if isinstance(following, str) and following else None

    async def call_tool(self, name: str, arguments: dict[str, Any], timeout: float) -> McpResult:
        """Call ``name`` with ``arguments``; the server has ``timeout`` seconds to answer.

        Raises:
            Exception: the SDK's, for :func:`error_kind` to tell apart.
        """
        result = await self._session.call_tool(name, arguments, read_timeout_seconds=self._line.seconds(timeout))
        return McpResult.from_wire(_wire(result))


@asynccontextmanager
async def open_session(streams: Streams, *, timeout: float, transport_error: TransportError) -> AsyncIterator[Session]:
    """A session over ``streams``, initialized; each request waits at most ``timeout`` seconds for its answer.

    Raises:
        SdkUnsupported: the installed SDK is of a line ljtui does not speak.
        Exception: the SDK's, when the handshake fails (:func:`error_kind` tells them apart).
    """
    line = sdk()

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            transport_error(message)

    incoming, outgoing = streams
    async with line.session_class(incoming, outgoing, read_timeout_seconds=line.seconds(timeout),
                                  message_handler=on_message) as session:
        await session.initialize()
        yield Session(session, line)


def decode(line: bytes) -> Any:
    """The session's message for one line a server wrote.

    Raises:
        ValueError: the line is not a JSON-RPC message.
    """
    return sdk().decode(line)


def encode(message: Any) -> bytes:
    """One session message as the line to write to a server (without its newline)."""
    return sdk().encode(message)


def http_streams(url: str, headers: Mapping[str, str], *, connect: float, read: float,
                 transport_error: TransportError) -> Any:
    """The SDK's streamable-HTTP transport to ``url`` as a pair of streams, over an HTTP client of ljtui's that
    sends ``headers``, waits ``connect`` seconds to connect and ``read`` for an answer, and follows no redirect
    itself (the transport keeps to the endpoint's origin). Each message the server refuses with an HTTP error
    status is told to ``transport_error`` as :class:`HttpRefused` (2.x turns it into an error answer without the
    status)."""
    return sdk().http(url, headers, connect, read, transport_error)


class HttpRefused(Exception):
    """A streamable-HTTP server answered a message with an HTTP error status.

    Attributes:
        status: the status code.
    """

    def __init__(self, status: int, phrase: str) -> None:
        super().__init__(f"the server answered HTTP {status}{f' {phrase}' if phrase else ''}")
        self.status = status


def _refusals(refused: TransportError) -> Callable[[Any], Any]:
    """An HTTP client's response hook that tells ``refused`` each message (a POST) answered with an error status."""

    async def hook(response: Any) -> None:
        if response.status_code >= 400 and response.request.method == "POST":
            refused(HttpRefused(response.status_code, str(response.reason_phrase or "")))

    return hook


def error_kind(exc: BaseException) -> str:
    """What an exception from a session means: :data:`TIMED_OUT`, :data:`CLOSED`, :data:`ANSWERED` or
    :data:`FAILED` (the SDK's exception groups are looked into)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    try:
        line = sdk()
    except SdkUnsupported:
        return FAILED
    if not isinstance(exc, line.error):
        return FAILED
    code = exc.error.code
    return TIMED_OUT if code == line.timeout_code else CLOSED if code == CONNECTION_CLOSED else ANSWERED


def explain(exc: BaseException) -> str | None:
    """Words for an exception the SDK raises about a server's answer, or ``None`` for any other.

    The 2.x line checks each answer against the protocol's schema (an input schema must be an object): a listing
    with one tool that breaks it is refused whole. The first broken field is named.
    """
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return None
    problems = exc.errors()
    if not problems:
        return f"its answer ({exc.title}) does not follow the MCP specification"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (f"its answer ({exc.title}) does not follow the MCP specification: {where}: {first.get('msg', '')}"
            f"{more}")


def _wire(model: Any) -> dict[str, Any]:
    """A result of either line as its wire JSON."""
    data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data if isinstance(data, dict) else {}
