"""An MCP server's tools as ljtui tools: ``mcp__<server>__<tool>``, asked about, bounded, plain text.

Each tool the server lists joins the registry under
``mcp__<server>__<tool>`` with its own input schema, checked as the model
APIs check ljtui's own (:func:`tool_problem`): a tool whose name or schema
an API would refuse is left out, and the notice names it.

Every call asks first through the session's
:class:`~ljtui.core.agent.permissions.Permissions` (the Approver port), and
the dialog shows the server, the tool and the arguments; "allow for the
session" covers that one tool. A tool its server marks ``readOnlyHint``
runs unasked only when the user's ``mcp.allow_read_only`` says so: the hint
is the server's word, not ljtui's.

What comes back is text for the model: text parts as they are, any other
part named by its kind and size, cut to :data:`MAX_RESULT_CHARS` (its head
and tail kept, the cut said), and what the guard of git's settings found
while the server ran, when it found something. The session's history
redacts the configured secrets from it like every tool result.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ljtui.core.agent.shell import HeadTail
from ljtui.core.mcp.client import McpServer, McpUnavailable
from ljtui.core.mcp.values import McpResult, McpTool
from ljtui.core.providers.base import ToolSpec
from ljtui.core.providers.request_rules import TOOL_NAME, schema_object
from ljtui.core.tools import Tool, ToolContext, ToolError, ToolResult, require

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Permissions
    from ljtui.core.gitguard.guard import GuardReport

PREFIX = "mcp__"
MAX_RESULT_CHARS = 30_000
"""Most characters of one result the model reads; the rest is cut from the middle."""
RESULT_TAIL_CHARS = 6_000
"""Of those, how many come from the result's end."""
MAX_SCHEMA_CHARS = 32_000
"""A tool whose input schema is larger than this (as JSON) is left out: it would crowd every request."""
MAX_DESCRIPTION_CHARS = 2_000
"""A longer tool description is cut."""
MAX_SHOWN_ARGUMENT_LINES = 40
"""Most lines of the arguments the permission dialog shows."""


def tool_name(server: str, tool: str) -> str:
    """The registry name of ``tool`` of ``server``."""
    return f"{PREFIX}{server}__{tool}"


def tool_problem(server: str, tool: McpTool) -> str | None:
    """Why a listed tool cannot be offered to the model, or None."""
    name = tool_name(server, tool.name)
    if not TOOL_NAME.match(name):
        return (f"{server}: tool {tool.name[:80]!r} is left out: its name {name[:80]!r} is not 1-64 letters, digits, "
                "'_' or '-'")
    if not schema_object(tool.input_schema):
        return f"{server}: tool {tool.name!r} is left out: its input schema is not a JSON schema of type 'object'"
    try:
        size = len(json.dumps(tool.input_schema))
    except (TypeError, ValueError):
        return f"{server}: tool {tool.name!r} is left out: its input schema is not plain JSON"
    if size > MAX_SCHEMA_CHARS:
        return (f"{server}: tool {tool.name!r} is left out: its input schema is {size:,} characters "
                f"(over {MAX_SCHEMA_CHARS:,})")
    return None


@dataclass(frozen=True)
class ServerTools:
    """The tools made of one server's list, and a notice line for each one left out."""

    tools: tuple[Tool, ...]
    left_out: tuple[str, ...]


AfterCall = Callable[[], Awaitable["GuardReport | None"]]
"""Run after each call: the guard's check of git's settings while the server runs (its report, if any)."""


def server_tools(server: McpServer, listed: list[McpTool], *, allow_read_only: bool,
                 after_call: AfterCall | None = None) -> ServerTools:
    """ljtui tools for ``listed`` (see the module's docstring); ``after_call`` runs after every call."""
    tools: list[Tool] = []
    left_out: list[str] = []
    seen: set[str] = set()
    for tool in listed:
        problem = tool_problem(server.name, tool)
        if problem is None and tool.name in seen:
            problem = f"{server.name}: tool {tool.name!r} is listed twice; the second is left out"
        if problem is not None:
            left_out.append(problem)
            continue
        seen.add(tool.name)
        description = (tool.description or tool.title or tool.name)[:MAX_DESCRIPTION_CHARS]
        spec = ToolSpec(tool_name(server.name, tool.name), f"[MCP server {server.name}] {description}",
                        dict(tool.input_schema))
        tools.append(Tool(spec, _caller(server, tool.name, unasked=tool.read_only and allow_read_only,
                                        after_call=after_call)))
    return ServerTools(tuple(tools), tuple(left_out))


def _caller(server: McpServer, tool: str, *, unasked: bool,  # type: ignore[no-untyped-def]
            after_call: AfterCall | None):
    name = tool_name(server.name, tool)

    async def call(arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not unasked:
            permissions: Permissions = require(ctx.services.permissions, "permissions")
            answer = await permissions.request(tool=name, subject=f"{server.name}/{tool}",
                                               title=f"Call {tool} on the MCP server {server.name}?",
                                               lines=_shown(server.name, tool, arguments), turn=ctx.turn,
                                               call_id=ctx.call_id, agent=ctx.agent)
            if not answer.allowed:
                return ToolResult(False, f"error: {answer.reason}", answer.reason.splitlines()[0][:160])
        try:
            result = await server.call(tool, arguments)
        except McpUnavailable as exc:
            report = await after_call() if after_call is not None else None
            raise ToolError(str(exc) + (f"\n{report.for_model()}" if report is not None else "")) from None
        report = await after_call() if after_call is not None else None
        text = result_text(result) + (f"\n[{report.for_model()}]" if report is not None else "")
        first = text.splitlines()[0][:120] if text.strip() else "(no output)"
        if result.is_error:
            return ToolResult(False, f"error: {text}", f"{name}: {first}")
        return ToolResult(True, text, f"{name}: {first}")

    call.__qualname__ = call.__name__ = name
    return call


def _shown(server: str, tool: str, arguments: dict[str, Any]) -> list[str]:
    """What the permission dialog shows: server, tool, and the arguments as indented JSON (cut when long)."""
    lines = json.dumps(arguments, indent=2, ensure_ascii=False, default=str).splitlines()
    cut = len(lines) - MAX_SHOWN_ARGUMENT_LINES
    shown = lines[:MAX_SHOWN_ARGUMENT_LINES] + ([f"… {cut} more lines"] if cut > 0 else [])
    return [f"server: {server}", f"tool: {tool}", "arguments:", *shown]


def result_text(result: McpResult) -> str:
    """The model's text of a result: each part in order, cut to :data:`MAX_RESULT_CHARS`."""
    kept = HeadTail(MAX_RESULT_CHARS - RESULT_TAIL_CHARS, RESULT_TAIL_CHARS)
    parts = result.parts
    if not parts and result.structured is not None:
        kept.add(json.dumps(result.structured, ensure_ascii=False, default=str))
    for index, part in enumerate(parts):
        if index:
            kept.add("\n")
        kept.add(_part_text(part))
    head, tail, cut = kept.parts()
    if cut <= 0:
        return head + tail
    return f"{head}\n[… {cut:,} characters of the result cut …]\n{tail}"


def _part_text(part: Mapping[str, Any]) -> str:
    """One content block (its wire form) as text: text as it is, anything else named by its kind and size."""
    kind = part.get("type")
    if kind == "text":
        return str(part.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind} {part.get('mimeType', '?')}, {len(str(part.get('data', ''))) * 3 // 4:,} bytes: not shown]"
    if kind == "resource":
        resource = part.get("resource")
        resource = resource if isinstance(resource, Mapping) else {}
        text = resource.get("text")
        uri = resource.get("uri", "?")
        return f"[resource {uri}]\n{text}" if isinstance(text, str) else f"[resource {uri}: binary]"
    if kind == "resource_link":
        return f"[resource link {part.get('uri', '?')}]"
    return f"[{kind or 'unknown'} part: not shown]"
