"""Provider-neutral requests in the OpenAI chat-completions shape, and the
accumulation of streamed tool-call fragments (pure functions).

The messages keep to the wire's rules (:mod:`ljtui.core.providers.request_rules`):
a user message's tool results become ``tool`` messages right after the call,
before its text (with its images, ``image_url`` parts of data URLs, the text
becomes a list of parts), and an assistant message with neither text nor
calls says ``(empty)``.

Fragments' argument text is joined and parsed within the bounds of
:mod:`ljtui.core.providers.arguments`: arguments too large or nested too
deeply become a refused call, never an error of the whole reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ljtui.core.providers.anthropic_wire import EMPTY_TEXT
from ljtui.core.providers.arguments import ArgumentText
from ljtui.core.providers.base import (
    ChatRequest, ImageBlock, Message, TextBlock, ToolCall, ToolResultBlock, ToolSpec, ToolUseBlock,
)

STOP_REASONS: dict[str, str] = {
    "stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use",
    "length": "max_tokens", "content_filter": "refusal",
}
"""finish_reason values in the vocabulary the engine uses (Anthropic's)."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def message_to_wire(message: Message) -> list[dict[str, Any]]:
    """One message as chat-completions messages (tool results become ``tool`` messages)."""
    if message.role == "assistant":
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        calls = [
            {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": _json(b.input)}}
            for b in message.content if isinstance(b, ToolUseBlock)
        ]
        wire: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else EMPTY_TEXT)}
        if calls:
            wire["tool_calls"] = calls
        return [wire]
    out: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": b.tool_use_id, "content": b.content}
        for b in message.content if isinstance(b, ToolResultBlock)
    ]
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    images = [{"type": "image_url", "image_url": {"url": f"data:{b.media_type};base64,{b.data}"}}
              for b in message.content if isinstance(b, ImageBlock)]
    if images:
        out.append({"role": "user", "content": [{"type": "text", "text": text or EMPTY_TEXT}, *images]})
    elif text or not out:
        out.append({"role": "user", "content": text})
    return out


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    """One tool definition as a ``function`` tool."""
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.input_schema,
    }}


def build_params(request: ChatRequest, model: str) -> dict[str, Any]:
    """Keyword arguments for ``chat.completions.create`` (streaming, with usage)."""
    system = "\n\n".join(part for part in (request.system, request.system_tail) if part)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in request.messages:
        messages.extend(message_to_wire(message))
    params: dict[str, Any] = {
        "model": model, "messages": messages, "max_tokens": request.max_tokens,
        "stream": True, "stream_options": {"include_usage": True},
    }
    if request.tools:
        params["tools"] = [tool_to_wire(t) for t in request.tools]
    return params


@dataclass
class _Fragment:
    id: str = ""
    name: str = ""
    arguments: ArgumentText = field(default_factory=ArgumentText)


class ToolCallAssembler:
    """Joins tool-call fragments, which arrive keyed by ``index``, into whole calls."""

    def __init__(self) -> None:
        self._parts: dict[int, _Fragment] = {}

    def add(self, index: int, call_id: str | None, name: str | None, arguments: str | None) -> None:
        """Take one fragment: the first of an index carries id and name, later ones argument text."""
        part = self._parts.setdefault(index, _Fragment())
        if call_id:
            part.id = call_id
        if name and not part.name:
            part.name = name
        if arguments:
            part.arguments.add(arguments)

    def calls(self, *, cut: bool = False) -> list[ToolCall]:
        """The calls in index order.

        Arguments too large or nested too deeply are
        :class:`~ljtui.core.providers.arguments.RefusedArguments`. ``cut``: the reply ended at its
        ``max_tokens``; a call whose arguments were cut off is
        :class:`~ljtui.core.providers.arguments.CutArguments`, and one cut before its name arrived is left out.

        Raises:
            ValueError: a call's arguments are not a JSON object (names the tool), and the reply was not cut.
        """
        return [ToolCall(part.id or f"call_{index}", part.name, part.arguments.parse(part.name, cut=cut))
                for index, part in sorted(self._parts.items()) if part.name or not cut]
