"""How many tokens the model holds at once, and where that number comes from.

The window is, in order: ``provider.context_window`` when set; what an
OpenAI-compatible server says it runs with now (llama.cpp's ``/props``,
vLLM's ``max_model_len``, Ollama's ``num_ctx``, LM Studio's loaded context),
since a local server holds what it was started with, not what the model was
trained for; else the provider's published limit for the model's name. The
window a refusal states (:func:`~ljtui.core.providers.overflow.window_from_error`)
corrects all of these.

Asking a server never raises and never takes longer than its timeout: each
reply is read up to :data:`MAX_BODY_BYTES`, and one that fails, is not JSON
or holds the wrong types just tells nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping
from urllib.parse import quote

from ljtui.core.config import ProviderConfig
from ljtui.core.providers.overflow import tokens_in as _tokens

if TYPE_CHECKING:
    import httpx2

PUBLISHED_WINDOWS: dict[str, dict[str, int]] = {
    "anthropic": {
        "claude-": 200_000,  # Sonnet 4 and 4.5 reach 1M only in a beta
    },
    "openai-compatible": {
        "claude-": 200_000,
        "gpt-4o": 128_000,
        "gpt-4o-mini": 128_000,
        "gpt-4.1": 1_047_576,
        "gpt-5": 400_000,
        "gpt-5-chat": 128_000,
        "o1": 200_000,
        "o1-mini": 128_000,
        "o1-preview": 128_000,
        "o3": 200_000,
        "o4-mini": 200_000,
        "gpt-4-turbo": 128_000,
        "gpt-3.5-turbo": 16_385,
        "gpt-3.5-turbo-instruct": 4_096,
    },
}
"""The providers' published context windows, by provider and model-name prefix (the longest prefix wins)."""

CONFIGURED_SOURCE = "provider.context_window"
"""The source of a window the config sets."""
ERROR_SOURCE = "the server's error"
"""The source of a window read from a refusal (:func:`window_from_error`)."""
UNKNOWN = "unknown (set provider.context_window)"
"""What to show when no window is known."""

OLLAMA_DEFAULT_NUM_CTX = 4096
"""The ``num_ctx`` Ollama loads a model with when neither its Modelfile nor the request sets one, on a machine
with under 24 GiB of VRAM (more VRAM, or ``OLLAMA_CONTEXT_LENGTH`` on the server, raise it)."""
OLLAMA_DEFAULT_SOURCE = "Ollama's default num_ctx (assumed; OLLAMA_CONTEXT_LENGTH or 24+ GiB of VRAM raise it)"

DISCOVERY_TIMEOUT = 5.0
"""Seconds asking a server for its window may take in all."""
MAX_BODY_BYTES = 1024 * 1024
"""The most of a reply read; a longer one tells nothing."""
@dataclass(frozen=True)
class ContextWindow:
    """The model's context window and where it was learned."""

    tokens: int
    source: str
    """A short phrase: ``provider.context_window``, ``llama.cpp /props n_ctx``, ``published limit of …``."""

    def describe(self) -> str:
        """``8,192 tokens (llama.cpp /props n_ctx)``."""
        return f"{self.tokens:,} tokens ({self.source})"


def published_window(provider: str, model: str) -> ContextWindow | None:
    """The window ``provider`` publishes for ``model`` (the longest matching name prefix), or None."""
    table = PUBLISHED_WINDOWS.get(provider, {})
    matches = [prefix for prefix in table if model.startswith(prefix)]
    if not matches:
        return None
    return ContextWindow(table[max(matches, key=len)], f"published limit of {model}")


def _field(data: Any, *path: str) -> Any:
    """``data[path[0]][path[1]]…``, or None where a step is missing or not a mapping."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


async def _json(http: httpx2.AsyncClient, method: str, url: str, timeout: float, body: Any = None) -> Any:
    """The JSON of a 200 reply to ``method url``, or None when anything about it fails."""
    try:
        async with http.stream(method, url, json=body, timeout=timeout,
                               headers={"accept": "application/json", "accept-encoding": "identity"}) as reply:
            if reply.status_code != 200:
                return None
            data = bytearray()
            async for chunk in reply.aiter_bytes():
                data += chunk
                if len(data) > MAX_BODY_BYTES:
                    return None
        return json.loads(bytes(data))
    except Exception:
        return None


def _root(base_url: str) -> str:
    """The server's root: ``base_url`` without a trailing ``/v1``."""
    base = base_url.rstrip("/")
    return base[:-len("/v1")] if base.endswith("/v1") else base


def _entry(listing: Any, model: str) -> dict[str, Any] | None:
    """The entry of an OpenAI-style model list whose ``id`` is ``model``, else its only entry."""
    data = _field(listing, "data")
    if not isinstance(data, list):
        return None
    entries = [e for e in data if isinstance(e, dict)]
    named = [e for e in entries if e.get("id") == model]
    if named:
        return named[0]
    return entries[0] if len(entries) == 1 == len(data) else None


async def _llamacpp_props(http: httpx2.AsyncClient, base_url: str, model: str, t: float) -> ContextWindow | None:
    props = await _json(http, "GET", f"{_root(base_url)}/props", t)
    tokens = _tokens(_field(props, "default_generation_settings", "n_ctx"))
    return ContextWindow(tokens, "llama.cpp /props n_ctx") if tokens else None


async def _model_list(http: httpx2.AsyncClient, base_url: str, model: str, t: float) -> ContextWindow | None:
    """llama.cpp's ``meta.n_ctx`` or vLLM's ``max_model_len`` in the model's entry of ``/models``."""
    entry = _entry(await _json(http, "GET", f"{base_url.rstrip('/')}/models", t), model)
    tokens = _tokens(_field(entry, "max_model_len"))
    if tokens:
        return ContextWindow(tokens, "vLLM max_model_len")
    tokens = _tokens(_field(entry, "meta", "n_ctx"))
    return ContextWindow(tokens, "llama.cpp /v1/models meta.n_ctx") if tokens else None


_NUM_CTX = re.compile(r"^[ \t]*num_ctx[ \t]+(\d{1,12})[ \t]*$", re.MULTILINE)


async def _ollama(http: httpx2.AsyncClient, base_url: str, model: str, t: float) -> ContextWindow | None:
    """The ``num_ctx`` of the model's Modelfile, else the window it is loaded with, else Ollama's default.

    ``model_info``'s ``*.context_length`` is left alone: it is what the model was trained for, not what
    Ollama runs it with.
    """
    root = _root(base_url)
    shown = await _json(http, "POST", f"{root}/api/show", t, {"model": model})
    if not isinstance(shown, dict) or not any(k in shown for k in ("parameters", "model_info", "modelfile")):
        return None
    parameters = shown.get("parameters")
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    tokens = _tokens(int(found.group(1))) if found else None
    if tokens:
        return ContextWindow(tokens, "Ollama num_ctx")
    running = _field(await _json(http, "GET", f"{root}/api/ps", t), "models")
    names = {model, f"{model}:latest"}
    for entry in running if isinstance(running, list) else ():
        if isinstance(entry, dict) and names & {entry.get("name"), entry.get("model")}:
            tokens = _tokens(entry.get("context_length"))
            if tokens:
                return ContextWindow(tokens, "Ollama context_length of the loaded model")
    return ContextWindow(OLLAMA_DEFAULT_NUM_CTX, OLLAMA_DEFAULT_SOURCE)


async def _lmstudio(http: httpx2.AsyncClient, base_url: str, model: str, t: float) -> ContextWindow | None:
    """The model's ``loaded_context_length``, else its ``max_context_length``, from LM Studio's REST API."""
    root = _root(base_url)
    entry = await _json(http, "GET", f"{root}/api/v0/models/{quote(model, safe='')}", t)
    if _field(entry, "id") != model:  # an id holding "/" may not route: look it up in the list
        listed = _field(await _json(http, "GET", f"{root}/api/v0/models", t), "data")
        named = [e for e in listed if _field(e, "id") == model] if isinstance(listed, list) else []
        entry = named[0] if named else None
    tokens = _tokens(_field(entry, "loaded_context_length"))
    if tokens:
        return ContextWindow(tokens, "LM Studio loaded_context_length")
    tokens = _tokens(_field(entry, "max_context_length"))
    return ContextWindow(tokens, "LM Studio max_context_length (the model is not loaded)") if tokens else None


PROBES = (_llamacpp_props, _model_list, _ollama, _lmstudio)
"""The ways of asking a server, in order: llama.cpp, vLLM (and llama.cpp's model list), Ollama, LM Studio."""


async def discover_window(http: httpx2.AsyncClient, base_url: str, model: str, *,
                          timeout: float) -> ContextWindow | None:
    """The window an OpenAI-compatible server at ``base_url`` runs ``model`` with, or None.

    Asks as llama.cpp, vLLM, Ollama and LM Studio answer, in that order, and stops at the first answer.
    Never raises; gives up after ``timeout`` seconds in all.
    """
    try:
        async with asyncio.timeout(timeout):
            for probe in PROBES:
                found = await probe(http, base_url, model, timeout)
                if found is not None:
                    return found
    except Exception:
        return None
    return None


HttpFactory = Callable[[Mapping[str, str]], "httpx2.AsyncClient"]
"""Builds the HTTP client that asks a server, given the headers every request carries."""


def default_http(headers: Mapping[str, str]) -> httpx2.AsyncClient:
    """A client with the SDKs' certificate set-up (:mod:`ljtui.core.providers.tls`) and ``headers``."""
    import httpx2

    from ljtui.core.providers.tls import build_with_tls

    return build_with_tls(lambda: httpx2.AsyncClient(headers=dict(headers), follow_redirects=False))


async def resolve_window(cfg: ProviderConfig, *, provider: str, base_url: str | None,
                         http_factory: HttpFactory = default_http, timeout: float = DISCOVERY_TIMEOUT,
                         env: Mapping[str, str] | None = None) -> ContextWindow | None:
    """The window of ``cfg``'s model: configured, else what its server says, else published; None if unknown.

    Args:
        provider: the provider's name; only an ``openai-compatible`` server is asked.
        base_url: the server's API root, e.g. ``http://127.0.0.1:8080/v1``; None: nothing is asked.
        http_factory: builds the client that asks (it carries the key, as the chat calls do).
        timeout: seconds asking the server may take in all.
        env: where the key is looked up (default: the process's, keys held by ljtui included).
    """
    if cfg.context_window:
        return ContextWindow(cfg.context_window, CONFIGURED_SOURCE)
    if provider == "openai-compatible" and base_url:
        from ljtui.core.providers import resolve_api_key

        key = resolve_api_key(cfg, env)
        try:
            async with http_factory({"authorization": f"Bearer {key}"} if key else {}) as http:
                found = await discover_window(http, base_url, cfg.model, timeout=timeout)
        except Exception:
            found = None
        if found is not None:
            return found
    return published_window(provider, cfg.model)
