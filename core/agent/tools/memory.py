"""The memory tool: ``save_memory`` (AGENT-5).

Memory goes into the system prompt of every later session in the
repository, so one call steered by a hostile file would speak to all of
them: the tool asks the user first, through the session's
:class:`~ljtui.core.agent.permissions.Permissions` (allow once, for the
session, or deny, as for a write), showing the exact text to be saved. A
denial is a tool result the model reads; without a terminal the answer is
*deny* unless the run's policy allows the tool.

Once allowed, it appends an entry headed by the time and by which session
and agent saved it to ``.agent/memory.md`` through the session's
:class:`~ljtui.core.agent.memory.MemoryStore` (the context's ``memory``, or
the repository's own store when the session has none); the next session
loads it into the system prompt, as notes, when the store says it may.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.agent.memory import MAX_ENTRY_CHARS, MEMORY_PATH, MemoryStore, entry_problem
from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.display import shown
from ljtui.core.tools import Tool, ToolContext, ToolResult, require
from ljtui.core.agent.tools.specs.memory import SAVE_MEMORY, TOOL_NAME

MAX_TEXT_CHARS = 4 * MAX_ENTRY_CHARS
"""Longest argument accepted before the store's own, clearer, entry limit applies."""
ASK_TITLE = f"Save this note to {MEMORY_PATH}? Every later session here reads it"
"""The question: what is saved, and why it matters."""



def store_for(ctx: ToolContext) -> MemoryStore:
    """The session's memory store, or the repository's own for the user's environment."""
    store = ctx.services.memory
    return store if isinstance(store, MemoryStore) else MemoryStore.for_repo(ctx.root)


def source_of(ctx: ToolContext) -> str:
    """Who saves the note, for the entry's heading: the session id (when the session has a log) and the agent."""
    session_id = ctx.services.session_id
    session = session_id() if session_id is not None else None
    parts = [f"session {session}" if isinstance(session, str) and session else "", ctx.agent]
    return ", ".join(p for p in parts if p)


def question_lines(text: str) -> list[str]:
    """The exact text to be saved, every control and invisible character made visible."""
    return shown(text.strip(), exact=True).splitlines()


async def save_memory(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    text = text_arg(args, "text", max_chars=MAX_TEXT_CHARS) or ""
    problem = entry_problem(text)
    if problem is not None:
        return failed(problem)
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool=TOOL_NAME, subject=MEMORY_PATH, title=ASK_TITLE,
                                       lines=question_lines(text), turn=ctx.turn, call_id=ctx.call_id,
                                       agent=ctx.agent)
    if not answer.allowed:
        return failed(answer.reason)
    result = await asyncio.to_thread(store_for(ctx).append, text, source=source_of(ctx))
    if not result.ok:
        return failed(result.message)
    return ToolResult(True, result.message, "saved to memory" if result.will_load else "saved to memory (not loaded)")


TOOLS = (Tool(SAVE_MEMORY, save_memory),)
