"""The session's idea of the model's context window, and the prompt size at which compression starts (MODEL-2).

The window is learned once per client, before the first call that needs it:
``provider.context_window`` when set; else, for an OpenAI-compatible server
on this machine or the local network (or a model with no published limit),
what the server says it runs with (:func:`~ljtui.core.providers.context_window.resolve_window`);
else the provider's published limit. A refusal that states the window
(:meth:`ContextBudget.learn`) corrects it. Compression starts at
``agent.compress_at_tokens`` or at ``agent.compress_at_fraction`` of the
window, whichever is smaller, so a session on an 8k server compresses in time.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from ljtui.core.config import ProviderConfig
from ljtui.core.events import ContextWindowKnown
from ljtui.core.ports import EventSink
from ljtui.core.providers.context_window import (
    CONFIGURED_SOURCE, ERROR_SOURCE, ContextWindow, published_window, resolve_window,
)
from ljtui.core.session_state import SessionSettings

Resolver = Callable[[ProviderConfig, str | None], Awaitable[ContextWindow | None]]
"""Finds the window of a provider's model, given its base URL."""


def server_url(cfg: ProviderConfig) -> str | None:
    """The base URL an ``openai-compatible`` client would use (the config's, else ``OPENAI_BASE_URL``)."""
    if cfg.name != "openai-compatible":
        return None
    from ljtui.core import provider_keys

    return cfg.base_url or provider_keys.environment().get("OPENAI_BASE_URL")


def nearby(url: str) -> bool:
    """Whether ``url``'s host is this machine or a private network (where a model server says its window)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith((".local", ".localhost", ".internal", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host
    return address.is_loopback or address.is_private or address.is_link_local


async def find_window(cfg: ProviderConfig, base_url: str | None) -> ContextWindow | None:
    """The window of ``cfg``'s model; a hosted server with a published limit is not asked."""
    if cfg.context_window:
        return ContextWindow(cfg.context_window, CONFIGURED_SOURCE)
    published = published_window(cfg.name, cfg.model)
    if cfg.name != "openai-compatible" or not base_url or (published is not None and not nearby(base_url)):
        return published
    return await resolve_window(cfg, provider=cfg.name, base_url=base_url, timeout=min(5.0, cfg.timeout))


class ContextBudget:
    """The model's context window as the session knows it."""

    def __init__(self, settings: SessionSettings, sink: EventSink, *, resolver: Resolver = find_window) -> None:
        self._settings = settings
        self._sink = sink
        self._resolver = resolver
        self._known: ContextWindow | None = None
        self._asked = False
        self._lock = asyncio.Lock()

    @property
    def known(self) -> ContextWindow | None:
        """The window learned so far (None: not yet, or unknown)."""
        return self._known

    async def window(self) -> ContextWindow | None:
        """The window, learned on the first call (and again after :meth:`forget`)."""
        async with self._lock:
            if not self._asked:
                self._asked = True
                cfg = self._settings.config.provider
                self._tell(await self._resolver(cfg, server_url(cfg)))
        return self._known

    def learn(self, tokens: int | None) -> None:
        """Take the window a refusal stated (when it stated one)."""
        if tokens and (self._known is None or self._known.tokens != tokens):
            self._asked = True
            self._tell(ContextWindow(tokens, ERROR_SOURCE))

    def forget(self) -> None:
        """Learn the window again before the next call (the provider or model changed)."""
        self._asked = False
        self._known = None

    async def compress_at(self) -> int:
        """The estimated prompt size at which older messages are summarised."""
        agent = self._settings.config.agent
        window = await self.window()
        if window is None:
            return agent.compress_at_tokens
        return min(agent.compress_at_tokens, int(window.tokens * agent.compress_at_fraction))

    def _tell(self, window: ContextWindow | None) -> None:
        self._known = window
        if window is not None:
            self._sink.emit(ContextWindowKnown(window.tokens, window.source))
