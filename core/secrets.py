"""Keeping API keys out of everything the user or a log can see (PROV-6).

Keys are known values (config and environment), so redaction is exact
replacement: every string an event carries is checked, and a key that
appears is replaced by :data:`REDACTED` before the event leaves the engine.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping

from ljtui.core.config import ProviderConfig
from ljtui.core.events import Event
from ljtui.core.ports import EventSink

REDACTED = "[redacted]"
"""What a secret is replaced with."""

SECRET_ENV_VARS: tuple[str, ...] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")
"""Environment variables whose values are secrets."""

MIN_SECRET_LENGTH = 8
"""Shorter values (``none``, ``x`` for keyless local servers) are not treated as secrets."""


def known_secrets(cfg: ProviderConfig, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every secret value configured for ``cfg`` or set in the environment."""
    env = os.environ if env is None else env
    values = [cfg.api_key, *(env.get(var) for var in SECRET_ENV_VARS)]
    return tuple(sorted({v for v in values if v and len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True))


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_value(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with secrets redacted in every string it contains.

    Strings, dicts, lists and tuples are walked; anything else is returned
    as is. Unchanged values keep their identity.
    """
    if not secrets:
        return value
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        new = {redact_value(k, secrets): redact_value(v, secrets) for k, v in value.items()}
        return value if new == value else new
    if isinstance(value, (list, tuple)):
        items = [redact_value(v, secrets) for v in value]
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
