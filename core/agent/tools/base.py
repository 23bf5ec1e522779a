"""What the agent's tool modules share: argument checks and result helpers."""

from __future__ import annotations

from typing import Any

from ljtui.core.tools import ToolError, ToolResult

MAX_ARG_CHARS = 1_000_000
"""Longest text argument a tool accepts (a whole file's content fits)."""


def text_arg(args: dict[str, Any], name: str, *, required: bool = True, empty_ok: bool = True,
             max_chars: int = MAX_ARG_CHARS) -> str | None:
    """A string argument, checked: type, size, no NUL, no unpaired surrogate.

    Raises:
        ToolError: with a message that tells the model what to send instead.
    """
    value = args.get(name)
    if value is None:
        if required:
            raise ToolError(f"missing argument '{name}' (a string)")
        return None
    if not isinstance(value, str):
        raise ToolError(f"argument '{name}' must be a string, got {type(value).__name__}")
    if not value and not empty_ok:
        raise ToolError(f"argument '{name}' is empty")
    if len(value) > max_chars:
        raise ToolError(f"argument '{name}' is {len(value)} characters; the limit is {max_chars}")
    if "\0" in value:
        raise ToolError(f"argument '{name}' contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(f"argument '{name}' contains an unpaired surrogate; send valid UTF-8 text") from None
    return value


def int_arg(args: dict[str, Any], name: str, *, minimum: int, maximum: int) -> int | None:
    """An optional whole-number argument within ``minimum``–``maximum``."""
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"argument '{name}' must be a whole number, got {value!r:.40}")
    if not minimum <= value <= maximum:
        raise ToolError(f"argument '{name}' must be between {minimum} and {maximum}, got {value}")
    return value


def bool_arg(args: dict[str, Any], name: str) -> bool:
    """An optional true/false argument (absent: false)."""
    value = args.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ToolError(f"argument '{name}' must be true or false, got {value!r:.40}")
    return value


def failed(message: str) -> ToolResult:
    """A failed call: the model reads the whole message, the UI its first line."""
    return ToolResult(False, f"error: {message}", message.splitlines()[0][:160] if message else "error")
