"""Where the session asks a server for its context window, and where compression starts (MODEL-2)."""

from __future__ import annotations

import pytest

from ljtui.core.agent.context_budget import ContextBudget, find_window, nearby
from ljtui.core.config import Config, ProviderConfig
from ljtui.core.events import ContextWindowKnown
from ljtui.core.ports import ListSink
from ljtui.core.providers.context_window import ContextWindow
from ljtui.core.session_state import SessionSettings


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:11434/v1", True), ("http://[::1]:8000/v1", True),
    ("http://192.168.1.20:1234/v1", True), ("http://10.0.0.5/v1", True), ("http://gpu-box.local:8080/v1", True),
    ("http://ollama:11434/v1", True), ("https://api.openai.com/v1", False), ("https://openrouter.ai/api/v1", False),
    ("https://8.8.8.8/v1", False),
])
def test_which_servers_are_near(url: str, local: bool) -> None:
    assert nearby(url) is local


async def test_a_hosted_server_with_a_published_limit_is_not_asked() -> None:
    cfg = ProviderConfig(name="openai-compatible", model="gpt-4o", base_url="https://api.openai.invalid/v1")
    assert await find_window(cfg, cfg.base_url) == ContextWindow(128_000, "published limit of gpt-4o")


async def test_compression_starts_at_the_smaller_of_the_setting_and_the_windows_share() -> None:
    config = Config()
    sink = ListSink()
    windows = iter([ContextWindow(8192, "llama.cpp /props n_ctx"), ContextWindow(1_000_000, "published")])

    async def resolver(cfg: ProviderConfig, url: str | None) -> ContextWindow | None:
        return next(windows)

    budget = ContextBudget(SessionSettings(config), sink, resolver=resolver)
    assert await budget.compress_at() == int(8192 * 0.7)
    assert await budget.compress_at() == int(8192 * 0.7), "asked once"
    budget.learn(4096)
    assert await budget.compress_at() == int(4096 * 0.7)
    budget.forget()
    assert await budget.compress_at() == config.agent.compress_at_tokens
    assert [(e.tokens, e.source) for e in sink.events if isinstance(e, ContextWindowKnown)] == [
        (8192, "llama.cpp /props n_ctx"), (4096, "the server's error"), (1_000_000, "published")]
