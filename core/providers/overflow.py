"""Refusals of a prompt longer than the model's context window: telling one from other errors, and the window
it states (pure functions on the error's message and body; the patterns are linear and the text searched is
bounded)."""

from __future__ import annotations

import re
from typing import Any

MAX_WINDOW = 100_000_000
"""The largest window believed (as ``provider.context_window``'s range)."""
ERROR_TEXT_LIMIT = 4096
"""Characters of an error message searched."""

_NUMBER = r"(\d{1,3}(?:,\d{3}){1,4}|\d{1,12})"
WINDOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"maximum (?:context|model) length (?:is|of) {_NUMBER}",  # OpenAI, vLLM
    rf"available context size \({_NUMBER} tokens\)",  # llama.cpp
    rf"prompt is too long: {_NUMBER} tokens > {_NUMBER} maximum",  # Anthropic
))
"""Refusals that state the window; its number is the pattern's last group."""
OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = WINDOW_PATTERNS + tuple(re.compile(p, re.IGNORECASE) for p in (
    r"exceeds the available context size",  # llama.cpp
    r"greater than the context length",  # LM Studio
    r"prompt is too long",  # Anthropic
    r"longer than the maximum model length",  # vLLM
    r"context_length_exceeded",
    r"exceed_context_size_error",
))
"""Refusals of a prompt longer than the window, with or without its number."""
OVERFLOW_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
"""An error body's ``type`` or ``code`` that means the prompt overflowed the window."""
NOT_OVERFLOW_STATUSES = frozenset({401, 403, 404, 408, 429})
"""Statuses that mean something else, whatever the message says."""


def tokens_in(value: Any) -> int | None:
    """``value`` when it is a believable window: a whole number from 1 to :data:`MAX_WINDOW`."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_WINDOW:
        return value
    return None


def _error_fields(body: object) -> dict[str, Any]:
    """The error object of an error body: its ``error`` mapping, or the body itself (the SDKs unwrap it)."""
    if not isinstance(body, dict):
        return {}
    inner = body.get("error")
    return inner if isinstance(inner, dict) else body


def _texts(message: str, body: object) -> list[str]:
    """The texts of a refusal worth searching, each cut to :data:`ERROR_TEXT_LIMIT` characters."""
    fields = _error_fields(body)
    texts = [message, fields.get("message"), body.get("error") if isinstance(body, dict) else None]
    return [t[:ERROR_TEXT_LIMIT] for t in texts if isinstance(t, str) and t]


def window_from_error(message: str, body: object) -> int | None:
    """The window a context-overflow refusal states, or None (no number, or not such a refusal).

    Args:
        message: the error's message (the API's own, or the one shown to the user that quotes it).
        body: the error body as parsed JSON (``{"error": {...}}`` or its inner object).
    """
    tokens = tokens_in(_error_fields(body).get("n_ctx"))
    if tokens:
        return tokens
    for text in _texts(message, body):
        for pattern in WINDOW_PATTERNS:
            found = pattern.search(text)
            if found:
                tokens = tokens_in(int(found.group(found.lastindex or 1).replace(",", "")))
                if tokens:
                    return tokens
    return None


def is_context_overflow(status: int, message: str, body: object) -> bool:
    """Whether a refusal says the prompt is longer than the model's window (the number may be missing)."""
    if status in NOT_OVERFLOW_STATUSES:
        return False
    fields = _error_fields(body)
    if {fields.get("type"), fields.get("code")} & OVERFLOW_CODES:
        return True
    return any(p.search(text) for text in _texts(message, body) for p in OVERFLOW_PATTERNS)
