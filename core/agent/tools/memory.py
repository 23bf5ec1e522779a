"""The memory tool: ``save_memory`` (AGENT-5).

It appends a dated entry to ``.agent/memory.md`` through the session's
:class:`~ljtui.core.agent.memory.MemoryStore` (the ``memory`` service, or
the repository's own store when the session has none); the next session
loads it into the system prompt when the store says it may.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.agent.memory import MAX_ENTRY_CHARS, MemoryStore
from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.providers.base import ToolSpec
from ljtui.core.tools import Tool, ToolContext, ToolResult

MEMORY = "memory"
"""The service name of the session's :class:`MemoryStore`."""
MAX_TEXT_CHARS = 4 * MAX_ENTRY_CHARS
"""Longest argument accepted before the store's own, clearer, entry limit applies."""

SAVE_MEMORY = ToolSpec(
    "save_memory",
    "Save a short note for future sessions in this repository (user preferences, project facts, decisions). "
    f"It is appended, dated, to .agent/memory.md and loaded into the next session's system prompt. At most "
    f"{MAX_ENTRY_CHARS} characters; save facts, not conversation.",
    {"type": "object", "properties": {"text": {"type": "string", "description": "the note to remember"}},
     "required": ["text"], "additionalProperties": False},
)


def store_for(ctx: ToolContext) -> MemoryStore:
    """The session's memory store, or the repository's own for the user's environment."""
    store = ctx.services.get(MEMORY)
    return store if isinstance(store, MemoryStore) else MemoryStore.for_repo(ctx.root)


async def save_memory(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    text = text_arg(args, "text", max_chars=MAX_TEXT_CHARS) or ""
    result = await asyncio.to_thread(store_for(ctx).append, text)
    if not result.ok:
        return failed(result.message)
    return ToolResult(True, result.message, "saved to memory" if result.will_load else "saved to memory (not loaded)")


TOOLS = (Tool(SAVE_MEMORY, save_memory),)
