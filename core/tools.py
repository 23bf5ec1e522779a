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
class ToolOutcome:
    """What a tool returns: content for the model, a line for the user."""

    content: str
    summary: str
    ok: bool = True


ToolFn = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]


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

    async def call(self, name: str, arguments: Any) -> ToolOutcome:
        """Run one tool call; every failure is a ``ToolOutcome(ok=False)``."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            msg = f"unknown tool '{name}' (available: {known})"
            return ToolOutcome(msg, msg, ok=False)
        if not isinstance(arguments, dict):
            msg = f"{name}: arguments must be a JSON object"
            return ToolOutcome(msg, msg, ok=False)
        try:
            return await tool.run(arguments)
        except ToolError as exc:
            return ToolOutcome(f"error: {exc}", f"{name}: {exc}", ok=False)
