"""Keeping API keys out of everything the user or a log can see (PROV-6).

Keys are known values (config and environment), so redaction is exact
replacement: every string an event carries is checked, and a key that
appears is replaced by :data:`REDACTED` before the event leaves the engine.
Streamed text is redacted with :class:`StreamRedactor`, which holds back a
tail that could be the start of a key split across chunks; the conversation
history is redacted too, so requests (and SDK debug logs of them) stay clean.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from ljtui.core.childenv import SECRET_ENV_VARS
from ljtui.core.config import ProviderConfig
from ljtui.core.events import Event
from ljtui.core.ports import EventSink
from ljtui.core.provider_keys import environment
from ljtui.core.providers.base import Message, TextBlock, ToolResultBlock, ToolUseBlock

REDACTED = "[redacted]"
"""What a secret is replaced with."""


MIN_SECRET_LENGTH = 8
"""Shorter values (``none``, ``x`` for keyless local servers) are not treated as secrets."""

MAX_REDACT_DEPTH = 128
"""Deepest container :func:`redact_value` walks: twice the deepest tool-call arguments
(:data:`~ljtui.core.providers.arguments.MAX_ARGUMENT_DEPTH`), so nothing the engine carries is cut."""


def known_secrets(cfg: ProviderConfig, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every secret value configured for ``cfg`` or set in the environment."""
    env = environment(env)
    values = [cfg.api_key, *(env.get(var) for var in SECRET_ENV_VARS)]
    return tuple(sorted({v for v in values if v and len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True))


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_value(value: Any, secrets: tuple[str, ...], *, depth: int = 0) -> Any:
    """``value`` with secrets redacted in every string it contains.

    Strings, dicts, lists and tuples are walked; anything else is returned
    as is. Unchanged values keep their identity. A container nested deeper
    than :data:`MAX_REDACT_DEPTH` is replaced whole by :data:`REDACTED`:
    walking it could exhaust the stack, and leaving it unread could leak.
    """
    if not secrets:
        return value
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, (dict, list, tuple)) and depth >= MAX_REDACT_DEPTH:
        return REDACTED
    if isinstance(value, dict):
        new = {redact_value(k, secrets, depth=depth + 1): redact_value(v, secrets, depth=depth + 1)
               for k, v in value.items()}
        return value if new == value else new
    if isinstance(value, (list, tuple)):
        items = [redact_value(v, secrets, depth=depth + 1) for v in value]
        return value if items == list(value) else type(value)(items)
    return value


def redact_event(event: Event, secrets: tuple[str, ...]) -> Event:
    """``event``, or a copy of it with secrets redacted from its fields."""
    changes = {}
    for f in dataclasses.fields(event):
        old = getattr(event, f.name)
        new = redact_value(old, secrets)
        if new is not old:
            changes[f.name] = new
    return dataclasses.replace(event, **changes) if changes else event


class RedactingSink:
    """An :class:`EventSink` that redacts secrets before passing events on."""

    def __init__(self, inner: EventSink, secrets: tuple[str, ...]) -> None:
        self.inner = inner
        self.secrets = secrets

    def emit(self, event: Event) -> None:
        self.inner.emit(redact_event(event, self.secrets))


def redact_message(message: Message, secrets: tuple[str, ...]) -> Message:
    """``message`` with secrets redacted from its text, tool inputs and tool results."""
    if not secrets:
        return message
    blocks = []
    for block in message.content:
        if isinstance(block, TextBlock):
            block = TextBlock(redact(block.text, secrets))
        elif isinstance(block, ToolUseBlock):
            block = ToolUseBlock(block.id, block.name, redact_value(block.input, secrets))
        elif isinstance(block, ToolResultBlock):
            block = ToolResultBlock(block.tool_use_id, redact(block.content, secrets), block.is_error)
        blocks.append(block)
    return Message(message.role, tuple(blocks))


class StreamRedactor:
    """Redacts secrets from text that arrives in pieces.

    A secret may be split across chunks, so the longest tail of the text seen
    so far that could begin a secret is held back until the next chunk (or
    :meth:`flush`) shows whether it does.
    """

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self.secrets = secrets
        self._held = ""

    def feed(self, text: str) -> str:
        """Take the next chunk; return the text that is now safe to show."""
        if not self.secrets:
            return text
        buffer = redact(self._held + text, self.secrets)
        keep = max((self._prefix_overlap(buffer, s) for s in self.secrets), default=0)
        self._held = buffer[len(buffer) - keep:] if keep else ""
        return buffer[: len(buffer) - keep]

    def flush(self) -> str:
        """The held-back text, at the end of the stream."""
        held, self._held = self._held, ""
        return held

    @staticmethod
    def _prefix_overlap(text: str, secret: str) -> int:
        """Length of the longest suffix of ``text`` that is a proper prefix of ``secret``."""
        for size in range(min(len(text), len(secret) - 1), 0, -1):
            if secret.startswith(text[-size:]):
                return size
        return 0
