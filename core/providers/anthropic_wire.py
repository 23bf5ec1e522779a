"""Provider-neutral requests in the Anthropic Messages API shape (pure functions).

Prompt caching: the cache prefix is tools, then system, then messages. Three
``cache_control`` breakpoints mark its stable parts: the last tool, the
system prompt, and the last block of the newest message, which becomes the
stable history the next call in the turn (or the next turn) reads back.

The body keeps to the API's rules (:mod:`ljtui.core.providers.request_rules`)
whatever the history holds: text blocks without visible text are left out,
a message left without blocks (or a failed tool's empty result) says
``(empty)``, a user message's tool
results come before its text, tool-use ids from another provider are made
ones the API accepts, and a final assistant message ends without whitespace.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ljtui.core.providers.base import (
    Block, ChatRequest, ImageBlock, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock,
)
from ljtui.core.providers.request_rules import MAX_CACHE_BREAKPOINTS, TOOL_USE_ID

__all__ = ["EMPTY_TEXT", "EPHEMERAL", "MAX_CACHE_BREAKPOINTS", "block_to_wire", "build_params",
           "message_to_wire", "strip_cache_control", "tool_to_wire", "wire_tool_id"]

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
"""The cache_control value of a breakpoint."""

EMPTY_TEXT = "(empty)"
"""The text of a message that has no block the API accepts (it refuses empty content)."""

_NOT_ID = re.compile(r"[^a-zA-Z0-9_-]")
ID_HASH_CHARS = 8
"""Hex digits of the hash that keeps two rewritten tool-use ids apart."""


def wire_tool_id(tool_id: str) -> str:
    """``tool_id`` as the API accepts it (letters, digits, ``_`` and ``-``).

    Ids the model gave are unchanged; one from another provider (``call:1``,
    ``fc.2``) has its other characters replaced and a hash of the original
    appended, the same for its tool use and its tool result.
    """
    if TOOL_USE_ID.match(tool_id):
        return tool_id
    digest = hashlib.sha256(tool_id.encode("utf-8", "surrogatepass")).hexdigest()[:ID_HASH_CHARS]
    return f"{_NOT_ID.sub('_', tool_id)}_{digest}"


def block_to_wire(block: Block) -> dict[str, Any] | None:
    """One content block as the API expects it, or None for a text block without visible text."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text.strip() else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": wire_tool_id(block.id), "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        wire: dict[str, Any] = {"type": "tool_result", "tool_use_id": wire_tool_id(block.tool_use_id),
                                "content": block.content}
        if block.is_error:
            wire["is_error"] = True
            wire["content"] = block.content or EMPTY_TEXT  # the API refuses an error without content
        return wire
    if isinstance(block, ImageBlock):
        return {"type": "image", "source": {"type": "base64", "media_type": block.media_type, "data": block.data}}
    raise TypeError(f"unknown block type {type(block).__name__}")


def message_to_wire(message: Message) -> dict[str, Any]:
    """One message as the API expects it: never empty, tool results first."""
    blocks = [w for w in (block_to_wire(b) for b in message.content) if w is not None]
    blocks.sort(key=lambda w: w["type"] != "tool_result")  # stable: tool results first, each part in order
    if not blocks:
        blocks = [{"type": "text", "text": EMPTY_TEXT}]
    return {"role": message.role, "content": blocks}


def _end_prefill(message: dict[str, Any]) -> None:
    """A final assistant message (a prefill) without trailing whitespace, which the API refuses."""
    last = message["content"][-1]
    if last["type"] == "text":
        last["text"] = last["text"].rstrip()


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    """One tool definition as the API expects it."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def _with_breakpoint(block: dict[str, Any]) -> dict[str, Any]:
    return {**block, "cache_control": EPHEMERAL}


def build_params(request: ChatRequest, model: str) -> dict[str, Any]:
    """Keyword arguments for ``messages.stream`` with cache breakpoints set."""
    params: dict[str, Any] = {"model": model, "max_tokens": request.max_tokens}
    system = [_with_breakpoint({"type": "text", "text": request.system})] if request.system.strip() else []
    if request.system_tail.strip():
        system.append({"type": "text", "text": request.system_tail})
    if system:
        params["system"] = system
    if request.tools:
        tools = [tool_to_wire(t) for t in request.tools]
        tools[-1] = _with_breakpoint(tools[-1])
        params["tools"] = tools
    messages = [message_to_wire(m) for m in request.messages]
    if messages and messages[-1]["role"] == "assistant":
        _end_prefill(messages[-1])
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
