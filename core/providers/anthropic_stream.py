"""The raw events of one streamed Messages API reply, assembled into deltas.

The SDK's stream helper (``messages.stream``) parses a tool call's input
again after every ``input_json_delta``: its partial-JSON parser fails on
deep nesting, which aborts the whole reply, and re-reading the text on
every piece makes a long input quadratic. So the provider reads the raw
event stream (``messages.create(stream=True)``) and this module keeps the
state of the reply: each tool call's input text is joined as it streams and
parsed once, at the end of its block, within the bounds of
:mod:`ljtui.core.providers.arguments`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ljtui.core.events import Usage
from ljtui.core.providers.arguments import CutArguments, ArgumentText, RefusedArguments, arguments_problem
from ljtui.core.providers.base import Delta, StreamEnd, TextDelta, ToolCall, UsageDelta
from ljtui.core.providers.errors import broken_stream

PROVIDER = "anthropic"
"""The provider's name, in messages."""

_USAGE_FIELDS = {
    "input_tokens": "input_tokens", "output_tokens": "output_tokens",
    "cache_read_input_tokens": "cache_read_tokens", "cache_creation_input_tokens": "cache_write_tokens",
}
"""The API's usage fields and ours."""


@dataclass
class _ToolBlock:
    """A tool_use block while its input streams."""

    id: str
    name: str
    start_input: Any
    text: ArgumentText = field(default_factory=ArgumentText)

    def call(self) -> ToolCall | str:
        """The complete call; input text that is not a JSON object is what is wrong with it (a reply cut off at
        ``max_tokens`` then refuses the call, any other breaks the stream)."""
        if self.text.chars:
            try:
                return ToolCall(self.id, self.name, self.text.parse(self.name))
            except ValueError as exc:
                return str(exc)
        if not isinstance(self.start_input, dict):
            raise broken_stream(PROVIDER, f"tool '{self.name}' input is not a JSON object")
        problem = arguments_problem(self.start_input)
        return ToolCall(self.id, self.name, RefusedArguments(problem) if problem else dict(self.start_input))


@dataclass
class ReplyAssembler:
    """Turns raw stream events into text, tool calls, usage and the stop reason, in order."""

    usage: dict[str, int] = field(default_factory=dict)
    """Token counts by our field names: from ``message_start``, updated by ``message_delta``."""
    stop_reason: str | None = None
    finished: bool = False
    """``message_stop`` has arrived."""
    _tools: dict[int, _ToolBlock] = field(default_factory=dict)
    _unfinished: list[_ToolBlock] = field(default_factory=list)
    """Tool blocks whose input was not a JSON object: cut off, if the reply stops at ``max_tokens``."""

    def feed(self, event: Any) -> list[Delta]:
        """The deltas one raw event completes (most events complete none)."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._count(event.message.usage)
        elif kind == "content_block_start" and event.content_block.type == "tool_use":
            block = event.content_block
            self._tools[event.index] = _ToolBlock(block.id, block.name, block.input)
        elif kind == "content_block_delta":
            return self._delta(event)
        elif kind == "content_block_stop" and event.index in self._tools:
            block = self._tools.pop(event.index)
            call = block.call()
            if isinstance(call, ToolCall):
                return [call]
            self._unfinished.append(block)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            self._count(event.usage)
        elif kind == "message_stop":
            self.finished = True
            return [*self._cut_calls(), UsageDelta(Usage(**self.usage)), StreamEnd(self.stop_reason or "end_turn")]
        return []

    def _cut_calls(self) -> list[Delta]:
        """The calls whose input was not a JSON object, refused as cut off by ``max_tokens``.

        Raises:
            ProviderError: ``bad_stream``, when the reply did not stop at ``max_tokens``.
        """
        if self._unfinished and self.stop_reason != "max_tokens":
            block = self._unfinished[0]
            raise broken_stream(PROVIDER, str(block.call()))
        return [ToolCall(b.id, b.name, CutArguments(b.name)) for b in self._unfinished]

    def _delta(self, event: Any) -> list[Delta]:
        delta = event.delta
        if delta.type == "text_delta":
            return [TextDelta(delta.text)]
        if delta.type == "input_json_delta" and event.index in self._tools:
            self._tools[event.index].text.add(delta.partial_json)
        return []

    def _count(self, raw: Any) -> None:
        """Take the counts ``raw`` reports; a count left out or null keeps its earlier value."""
        for wire, ours in _USAGE_FIELDS.items():
            value = getattr(raw, wire, None)
            if isinstance(value, int):
                self.usage[ours] = value
