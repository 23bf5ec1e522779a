"""Provider-neutral requests in the Anthropic Messages API shape (pure functions).

Prompt caching: the cache prefix is tools, then system, then messages. Three
``cache_control`` breakpoints mark its stable parts: the last tool, the
system prompt, and the last block of the newest message, which becomes the
stable history the next call in the turn (or the next turn) reads back.
"""

from __future__ import annotations

from typing import Any

from ljtui.core.providers.base import (
    Block, ChatRequest, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock,
)

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
"""The cache_control value of a breakpoint."""

MAX_CACHE_BREAKPOINTS = 4
"""The API's limit on breakpoints in one request; we use at most three."""


def block_to_wire(block: Block) -> dict[str, Any] | None:
    """One content block as the API expects it, or None for an empty text block."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        wire: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": block.content}
        if block.is_error:
            wire["is_error"] = True
        return wire
    raise TypeError(f"unknown block type {type(block).__name__}")


def message_to_wire(message: Message) -> dict[str, Any]:
    """One message as the API expects it."""
    blocks = [w for w in (block_to_wire(b) for b in message.content) if w is not None]
    if not blocks:
        blocks = [{"type": "text", "text": "(empty)"}]
    return {"role": message.role, "content": blocks}


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    """One tool definition as the API expects it."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def _with_breakpoint(block: dict[str, Any]) -> dict[str, Any]:
    return {**block, "cache_control": EPHEMERAL}


def build_params(request: ChatRequest, model: str) -> dict[str, Any]:
    """Keyword arguments for ``messages.stream`` with cache breakpoints set."""
    params: dict[str, Any] = {"model": model, "max_tokens": request.max_tokens}
    if request.system:
        params["system"] = [_with_breakpoint({"type": "text", "text": request.system})]
        if request.system_tail:
            params["system"].append({"type": "text", "text": request.system_tail})
    if request.tools:
        tools = [tool_to_wire(t) for t in request.tools]
        tools[-1] = _with_breakpoint(tools[-1])
        params["tools"] = tools
    messages = [message_to_wire(m) for m in request.messages]
    if messages:
        last = messages[-1]
        last["content"] = [*last["content"][:-1], _with_breakpoint(last["content"][-1])]
    params["messages"] = messages
    return params


def strip_cache_control(value: Any) -> Any:
    """``value`` without any ``cache_control`` keys (breakpoints mark, not change, the prefix)."""
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value
