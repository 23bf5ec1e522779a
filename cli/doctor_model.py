"""The model's side of ``ljtui doctor``: its context window, and where that number comes from.

An OpenAI-compatible server is asked what it runs the model with, for
:data:`DOCTOR_TIMEOUT` seconds at most in all, so a server that is down or
never answers does not hold the report up; another provider is not asked
(its published limit, or ``provider.context_window``).
"""

from __future__ import annotations

import asyncio
from typing import Any, Mapping

DOCTOR_TIMEOUT = 2.0
"""Seconds ``ljtui doctor`` waits for the server to say its context window."""


def context_window_report(cfg: Any, env: Mapping[str, str]) -> dict[str, Any] | None:
    """``{"tokens", "source"}`` of the model's context window (:func:`resolve_window`), or None when unknown."""
    from ljtui.core.providers.context_window import resolve_window

    base_url = cfg.base_url or env.get("OPENAI_BASE_URL") if cfg.name == "openai-compatible" else None
    window = asyncio.run(resolve_window(cfg, provider=cfg.name, base_url=base_url, timeout=DOCTOR_TIMEOUT,
                                        env=env))
    return None if window is None else {"tokens": window.tokens, "source": window.source}


def context_window_text(window: dict[str, Any] | None) -> str:
    """``8,192 tokens (llama.cpp /props n_ctx)``, or how to set it when unknown."""
    from ljtui.core.providers.context_window import UNKNOWN, ContextWindow

    return UNKNOWN if window is None else ContextWindow(window["tokens"], window["source"]).describe()
