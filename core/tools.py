"""Tools an agent may call: the result type, the registry, and what a call can reach.

A tool is a name, a JSON schema and an async function of its arguments and a
:class:`ToolContext`. Calls with unknown names or bad arguments become tool
errors sent back to the model, never exceptions in the engine: a tool that
raises anything but cancellation is reported as failed, naming the
exception type. A call whose arguments were refused before it got here
(nested too deeply, too large, past the reply's cap on calls: see
:mod:`ljtui.core.providers.arguments`) is answered with why, and no tool runs.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from ljtui.core.providers.arguments import RefusedArguments
from ljtui.core.providers.base import ToolSpec

if TYPE_CHECKING:
    from ljtui.core.config import Config
    from ljtui.core.events import Event

SUMMARY_CHARS = 160
"""Longest one-line summary of a failed call the registry writes."""


@dataclass(frozen=True)
class ToolResult:
    """What any tool call returns, for every agent (planner, chat, tasks).

    Attributes:
        ok: False for a refused or failed call.
        content: the text the model reads.
        summary: one line for the trace and the UI's folded tool line.
    """

    ok: bool
    content: str
    summary: str


class ToolError(Exception):
    """A tool refused its input; the message goes back to the model."""


@dataclass
class ToolContext:
    """What one tool call can reach: the repository, the session's services, and who is calling.

    Attributes:
        root: the repository root (real path).
        turn: the user message this call belongs to.
        call_id: the model's id for the call.
        agent: who called (``chat``, ``task <id>`` …).
        emit: reports an event (tool output as it streams, permission decisions).
        config: the session's configuration.
        services: the session's shared services by name (permissions, writer,
            reader, outline …), set up by the engine.
        cancelled: set when the user cancels the running turn.
    """

    root: Path
    turn: int
    call_id: str
    agent: str
    emit: Callable[[Event], None]
    config: Config
    services: dict[str, Any] = field(default_factory=dict)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)

    def service(self, name: str) -> Any:
        """A shared service; a missing one is a clear tool error."""
        try:
            return self.services[name]
        except KeyError:
            raise ToolError(f"this session has no {name}") from None


ToolFn = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Tool:
    """A tool: its spec (name, description, input schema) and what runs it."""

    spec: ToolSpec
    run: ToolFn


class ToolRegistry:
    """Tools by name, in a stable order (the tool list is a cache prefix)."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        self._tools[tool.spec.name] = tool

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if there is one."""
        return self._tools.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(t.spec for t in self._tools.values())

    async def call(self, name: str, arguments: Any, ctx: ToolContext) -> ToolResult:
        """Run one tool call; every failure is a ``ToolResult`` with ``ok=False``."""
        if isinstance(arguments, RefusedArguments):
            return ToolResult(False, f"error: {arguments.problem}", f"{name}: {arguments.problem}"[:SUMMARY_CHARS])
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            msg = f"unknown tool '{name}' (available: {known})"
            return ToolResult(False, msg, msg)
        if not isinstance(arguments, dict):
            msg = f"{name}: arguments must be a JSON object"
            return ToolResult(False, msg, msg)
        try:
            return await tool.run(arguments, ctx)
        except ToolError as exc:
            return ToolResult(False, f"error: {exc}", f"{name}: {exc}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool must never take the engine down
            msg = f"{name} failed: {type(exc).__name__}: {exc}"
            return ToolResult(False, f"error: {msg}", msg[:SUMMARY_CHARS])
