"""Model providers and the factory that picks one from the config.

SDKs are imported here lazily, when a provider is first built, so that the
app paints its first frame without paying for ``import anthropic``; the
message types of :mod:`ljtui.core.providers.base` load on first use too
(the start-up only asks :func:`provider_problem` and :func:`provider_label`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ljtui.core.config import PROVIDER_NAMES, ProviderConfig
from ljtui.core.provider_keys import environment

if TYPE_CHECKING:
    from ljtui.core.providers.base import ChatClient, ProviderError

KEY_ENV: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai-compatible": "OPENAI_API_KEY",
    "scripted": "",
}
"""The environment variable holding each provider's key."""

SETUP_HINT = (
    "set ANTHROPIC_API_KEY, or use an OpenAI-compatible server with "
    "--provider openai-compatible --base-url URL --model NAME, "
    "or try the offline scripted model with --provider scripted --script FILE"
)
NO_MODEL = "no model is configured: set ANTHROPIC_API_KEY, or run `ljtui doctor` for the other ways"
"""A call's failure when no model is set up: short, since the start-up notice (and ``ljtui doctor``) give
:data:`SETUP_HINT` in full."""


def check_provider_name(name: str) -> None:
    """Raise a clear error for a provider name we do not know."""
    if name not in PROVIDER_NAMES:
        from ljtui.core.providers.base import ProviderError

        raise ProviderError("config", _unknown_name(name))


def _unknown_name(name: str) -> str:
    return f"unknown provider '{name}' (expected one of: {', '.join(PROVIDER_NAMES)})"


def provider_problem(cfg: ProviderConfig, env: Mapping[str, str] | None = None, *,
                     short: bool = False) -> str | None:
    """Why ``cfg`` cannot work, checked without importing any SDK, or None; ``short``: a missing model is
    :data:`NO_MODEL` rather than every way to set one up."""
    env = environment(env)
    if cfg.name not in PROVIDER_NAMES:
        return _unknown_name(cfg.name)
    if cfg.name == "scripted":
        if not cfg.script:
            return "the scripted provider needs a script: --script FILE"
        from ljtui.core.providers.base import ProviderError
        from ljtui.core.providers.scripted import load_script

        try:
            load_script(cfg.script)
        except ProviderError as exc:
            return exc.message
    elif cfg.name == "anthropic" and not resolve_api_key(cfg, env):
        return NO_MODEL if short else f"no model is configured: {SETUP_HINT}"
    elif cfg.name == "openai-compatible" and not (cfg.base_url or env.get("OPENAI_BASE_URL")):
        return "the openai-compatible provider needs a base URL: --base-url URL or OPENAI_BASE_URL"
    return None


def provider_label(cfg: ProviderConfig) -> str:
    """``provider/model`` as the status bar shows it."""
    return "scripted" if cfg.name == "scripted" else f"{cfg.name}/{cfg.model}"


def resolve_api_key(cfg: ProviderConfig, env: Mapping[str, str] | None = None) -> str | None:
    """The key for ``cfg``: the config value, else the provider's variable."""
    env = environment(env)
    var = KEY_ENV.get(cfg.name, "")
    return cfg.api_key or (env.get(var) if var else None) or None


def make_client(cfg: ProviderConfig, env: Mapping[str, str] | None = None) -> ChatClient:
    """Build the configured provider's client.

    Raises:
        ProviderError: unknown provider, missing key, URL or script, bad script.
    """
    from ljtui.core.providers.base import ProviderError

    env = environment(env)
    check_provider_name(cfg.name)
    if cfg.name == "scripted":
        from ljtui.core.providers.scripted import ScriptedClient, load_script

        if not cfg.script:
            raise ProviderError("config", "the scripted provider needs a script: --script FILE")
        return ScriptedClient(load_script(cfg.script), chunk_delay=cfg.chunk_delay)
    problem = provider_problem(cfg, env, short=True)
    if problem:
        raise ProviderError("config", problem)
    if cfg.name == "anthropic":
        from ljtui.core.providers.anthropic import AnthropicClient

        return AnthropicClient(
            cfg, api_key=resolve_api_key(cfg, env), base_url=cfg.base_url or env.get("ANTHROPIC_BASE_URL")
        )
    from ljtui.core.providers.openai_compat import OpenAICompatClient

    return OpenAICompatClient(
        cfg, api_key=resolve_api_key(cfg, env), base_url=cfg.base_url or env.get("OPENAI_BASE_URL")
    )


def __getattr__(name: str) -> Any:
    """``ChatClient`` and ``ProviderError``, imported from :mod:`.base` when first asked for."""
    if name in ("ChatClient", "ProviderError"):
        from ljtui.core.providers import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ChatClient", "KEY_ENV", "ProviderError", "make_client", "provider_problem", "resolve_api_key",
]
