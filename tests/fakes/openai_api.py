"""Replies in the OpenAI chat-completions wire format (SSE), for the fake server."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.server import SSE, Reply

FAST_RETRY_AFTER = "0.01"
"""``retry-after`` seconds the fault replies send, so SDK retries are quick."""


def _chunk(delta: dict[str, Any], finish: str | None = None, model: str = "local-test") -> SSE:
    return SSE({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })


def completion_events(
    text: str = "",
    *,
    tool_calls: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    prompt_tokens: int = 12,
    completion_tokens: int = 6,
    cached_tokens: int = 0,
    chunk: int = 4,
    usage: bool = True,
) -> list[SSE]:
    """The chunk sequence of one streamed completion, ending with ``[DONE]``.

    Args:
        tool_calls: ``(id, name, arguments)``; arguments stream as fragments keyed by index.
        usage: send the final usage chunk (``stream_options.include_usage``).
    """
    events = [_chunk({"role": "assistant", "content": ""})]
    for i in range(0, len(text), chunk):
        events.append(_chunk({"content": text[i:i + chunk]}))
    for index, (call_id, name, args) in enumerate(tool_calls):
        raw = json.dumps(args)
        half = len(raw) // 2
        events.append(_chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                              "function": {"name": name, "arguments": ""}}]}))
        for piece in (raw[:half], raw[half:]):
            events.append(_chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(_chunk({}, finish="tool_calls" if tool_calls else "stop"))
    if usage:
        events.append(SSE({
            "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": "local-test",
            "choices": [], "usage": {
                "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached_tokens},
            },
        }))
    events.append(SSE("[DONE]"))
    return events


def text_reply(text: str, **kw: Any) -> Reply:
    return Reply(events=tuple(completion_events(text, **kw)))


def tool_reply(text: str, call_id: str, name: str, args: dict[str, Any], **kw: Any) -> Reply:
    return Reply(events=tuple(completion_events(text, tool_calls=((call_id, name, args),), **kw)))


def status_reply(status: int, message: str, retry_after: str | None = FAST_RETRY_AFTER) -> Reply:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Reply(status=status, body={"error": {"message": message, "type": "error", "code": status}},
                 headers=headers)


def invalid_request(message: str) -> Reply:
    """The 400 a chat-completions server answers a request that breaks its rules with."""
    return Reply(status=400, body={"error": {"message": message, "type": "invalid_request_error",
                                             "param": None, "code": None}})


def overloaded_midstream(text_before: str = "Partial ") -> Reply:
    """A 200 stream that starts answering, then sends an overloaded error chunk."""
    events = completion_events(text_before)[:2]
    events.append(SSE({"error": {"message": "Overloaded", "type": "overloaded_error", "code": 529}}))
    return Reply(events=tuple(events))


def cut_off(text: str = "This reply is cut off somewhere in the middle") -> Reply:
    events = completion_events(text)
    return Reply(events=tuple(events), cut_after=len(events) - 4)


def truncated(text: str = "This reply just stops") -> Reply:
    """A stream that ends cleanly but with neither finish_reason nor ``[DONE]``."""
    return Reply(events=tuple(completion_events(text)[:-3]))


def never_answers() -> Reply:
    """A server that accepts the request and never responds."""
    return Reply(hang=True)


def headers_then_silence() -> Reply:
    """A server that sends the response headers of a stream, then nothing, keeping the connection."""
    return Reply(events=tuple(completion_events("never sent")), stall_after=0)


def stalled(text: str = "Starts then goes quiet", *, after: int = 2) -> Reply:
    """A stream that sends ``after`` chunks and then nothing, keeping the connection open.

    The first chunk (the role) carries no text; the second is the first piece of it.
    """
    return Reply(events=tuple(completion_events(text)), stall_after=after)


def trickle_forever(every: float, *, text_before: str = "Thinking") -> Reply:
    """A stream that starts a reply, then sends one blank byte every ``every`` seconds
    and never finishes."""
    return Reply(events=tuple(completion_events(text_before)[:2]), trickle_every=every)
