"""The registry of tools the conversation agent may call.

A tool is a name, a JSON schema and an async function. Calls with unknown
names or bad arguments become tool errors sent back to the model, never
exceptions in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from ljtui.core.providers.base import ToolSpec


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


ToolFn = Callable[[dict[str, Any]], Awaitable[ToolResult]]


class ToolError(Exception):
    """A tool refused its input; the message goes back to the model."""


@dataclass(frozen=True)
class Tool:
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

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(t.spec for t in self._tools.values())

    async def call(self, name: str, arguments: Any) -> ToolResult:
        """Run one tool call; every failure is a ``ToolResult`` with ``ok=False``."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            msg = f"unknown tool '{name}' (available: {known})"
            return ToolResult(False, msg, msg)
        if not isinstance(arguments, dict):
            msg = f"{name}: arguments must be a JSON object"
            return ToolResult(False, msg, msg)
        try:
            return await tool.run(arguments)
        except ToolError as exc:
            return ToolResult(False, f"error: {exc}", f"{name}: {exc}")
