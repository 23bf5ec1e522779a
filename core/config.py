"""Configuration: typed dataclasses loaded from YAML, environment and flags.

Layers, later wins:

1. the user file, ``$XDG_CONFIG_HOME/ljtui/config.yaml`` (platformdirs), or
   the file named by ``LJTUI_CONFIG``;
2. the repository's ``.agent/config.yaml``;
3. environment variables (:data:`ENV_KEYS`);
4. command-line flags.

A bad file or value never stops the program: it becomes a one-line warning
naming the file and key, and the default is kept.
"""

from __future__ import annotations

import dataclasses
import os
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Union, get_args, get_origin, get_type_hints

import yaml

APP_NAME = "ljtui"
CONFIG_ENV = "LJTUI_CONFIG"
REPO_CONFIG = Path(".agent") / "config.yaml"

PROVIDER_NAMES: tuple[str, ...] = ("anthropic", "openai-compatible", "scripted")
"""Every provider ljtui can talk to."""

CHOICES: dict[str, tuple[str, ...]] = {"provider.name": PROVIDER_NAMES}
"""Keys whose value must be one of a fixed set."""

PRICE_KEYS: tuple[str, ...] = ("input", "output", "cache_read", "cache_write")
"""The rates a ``provider.prices`` entry may set (USD per million tokens)."""


@dataclass
class ProviderConfig:
    """Which model answers, and how to reach it."""

    name: str = "anthropic"
    """Provider: ``anthropic``, ``openai-compatible`` or ``scripted``."""
    model: str = "claude-sonnet-5-5"
    """Model name sent to the provider."""
    base_url: str | None = None
    """Endpoint override (``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL``)."""
    api_key: str | None = field(default=None, repr=False)
    """API key; prefer the provider's environment variable. Never shown."""
    script: str | None = None
    """Path of the YAML script replayed by the ``scripted`` provider."""
    chunk_delay: float = 0.0
    """Seconds between streamed chunks of the ``scripted`` provider."""
    max_tokens: int = 8192
    """Upper bound on tokens the model may write in one reply."""
    timeout: float = 60.0
    """Seconds a model call may wait for its first byte, or between two bytes, before it fails.
    A silent server is retried once at most."""
    call_timeout: float = 600.0
    """Seconds one whole model call may take, however steadily the server trickles data."""
    max_retries: int = 4
    """Retries of a failed call (429, 529, 5xx, connection errors, overloaded mid-reply)."""
    retry_delay: float = 0.5
    """Seconds before the first retry; each further retry waits twice as long."""
    retry_max_delay: float = 8.0
    """Longest computed wait between retries (a server's ``retry-after`` is honoured)."""
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    """USD per million tokens by model name, for cost estimates, e.g.
    ``{claude-sonnet-4-5: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}}``.
    ``cache_read`` and ``cache_write`` default to the ``input`` price."""


@dataclass
class UIConfig:
    """How the full-screen app looks."""

    theme: str = "dark"
    """Theme name: a bundled theme or a YAML file in the user themes dir."""


@dataclass
class AgentConfig:
    """Limits of the conversation loop."""

    max_iterations: int = 10
    """Model calls per user message before the loop stops (AGENT-1)."""


@dataclass
class PlannerConfig:
    """Limits of the read-only planner."""

    prompt_budget_tokens: int = 100_000
    """Estimated tokens one planner prompt may reach; older tool results are elided above it."""


@dataclass
class SecurityConfig:
    """What agents may read. Only the user's own config file can widen it."""

    allow_secret_files: list[str] = field(default_factory=list)
    """Glob patterns (repo-relative) of secret-looking files agents may read anyway,
    e.g. ``[".env.example"]``."""


@dataclass
class Config:
    """The whole configuration."""

    provider: ProviderConfig = field(default_factory=ProviderConfig)
    ui: UIConfig = field(default_factory=UIConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    planner: PlannerConfig = field(default_factory=PlannerConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)


ENV_KEYS: dict[str, str] = {
    "LJTUI_PROVIDER": "provider.name",
    "LJTUI_MODEL": "provider.model",
    "LJTUI_SCRIPT": "provider.script",
    "LJTUI_THEME": "ui.theme",
}
"""Environment variables and the config key each one sets."""


@dataclass
class LoadedConfig:
    """A configuration plus what happened while reading it."""

    config: Config
    warnings: list[str] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The user config file: ``LJTUI_CONFIG`` or the platform's config dir."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    return user_config_dir(env) / "config.yaml"


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ljtui config directory (themes live in ``themes/`` below)."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / APP_NAME
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def load_config(
    repo_root: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> LoadedConfig:
    """Read every layer and merge it into one :class:`Config`.

    Args:
        repo_root: the repository whose ``.agent/config.yaml`` is read.
        env: environment variables (defaults to ``os.environ``).
        overrides: dotted keys from command-line flags, e.g.
            ``{"provider.name": "scripted"}``; ``None`` values are ignored.
    """
    env = os.environ if env is None else env
    loaded = LoadedConfig(Config())
    files = [user_config_path(env)]
    if repo_root is not None:
        files.append(repo_root / REPO_CONFIG)
    for path in files:
        data = _read_yaml(path, loaded.warnings)
        if data is not None:
            loaded.sources.append(path)
            _apply_tree(loaded.config, data, str(path), loaded.warnings)
    for var, key in ENV_KEYS.items():
        if env.get(var):
            _apply_key(loaded.config, key, env[var], f"${var}", loaded.warnings)
    for key, value in (overrides or {}).items():
        if value is not None:
            _apply_key(loaded.config, key, value, "command line", loaded.warnings)
    return loaded


def _read_yaml(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"config {path}: cannot read ({_reason(exc)}); ignored")
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        warnings.append(f"config {path}:{where}: {problem}; file ignored")
        return None
    if data is None:
        return None
    if not isinstance(data, dict):
        warnings.append(
            f"config {path}: expected a mapping of sections, got {type(data).__name__}; file ignored"
        )
        return None
    return data


def _apply_tree(config: Config, data: dict[str, Any], origin: str, warnings: list[str]) -> None:
    sections = {f.name for f in dataclasses.fields(config)}
    for name, body in data.items():
        if name not in sections:
            warnings.append(
                f"config {origin}: unknown section '{name}' (expected one of: {', '.join(sorted(sections))})"
            )
            continue
        if not isinstance(body, dict):
            warnings.append(f"config {origin}: section '{name}' must be a mapping")
            continue
        for key, value in body.items():
            _apply_key(config, f"{name}.{key}", value, origin, warnings)


def _apply_key(config: Config, dotted: str, value: Any, origin: str, warnings: list[str]) -> None:
    section_name, _, key = dotted.partition(".")
    section = getattr(config, section_name, None)
    if section is None or not dataclasses.is_dataclass(section):
        warnings.append(f"config {origin}: unknown key '{dotted}'")
        return
    hints = get_type_hints(type(section))
    if key not in hints:
        known = ", ".join(f.name for f in dataclasses.fields(section))
        warnings.append(f"config {origin}: unknown key '{dotted}' (known: {known})")
        return
    try:
        coerced = _coerce(value, hints[key])
    except ValueError as exc:
        warnings.append(f"config {origin}: '{dotted}' {exc}; default kept")
        return
    check = CHECKS.get(dotted)
    problem = check(coerced) if check else None
    if problem:
        warnings.append(f"config {origin}: '{dotted}' {problem}; default kept")
        return
    choices = CHOICES.get(dotted)
    if choices and coerced not in choices:
        warnings.append(
            f"config {origin}: '{dotted}' is {coerced!r}, expected one of: {', '.join(choices)}; default kept"
        )
        return
    setattr(section, key, coerced)


def _coerce(value: Any, hint: Any) -> Any:
    """Check (and for strings from the environment, convert) one value."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return _coerce(value, args[0])
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"must be a list, got {type(value).__name__}")
        (item_hint,) = get_args(hint)
        return [_coerce(v, item_hint) for v in value]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"must be a mapping, got {type(value).__name__}")
        key_hint, value_hint = get_args(hint)
        return {_coerce(k, key_hint): _coerce(v, value_hint) for k, v in value.items()}
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        raise ValueError(f"must be true or false, got {value!r}")
    if hint in (int, float):
        if isinstance(value, bool):
            raise ValueError(f"must be a number, got {value!r}")
        if isinstance(value, (int, float)) and (hint is float or isinstance(value, int)):
            return hint(value)
        if isinstance(value, str):
            try:
                return hint(value)
            except ValueError:
                pass
        kind = "a whole number" if hint is int else "a number"
        raise ValueError(f"must be {kind}, got {value!r}")
    if hint is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise ValueError(f"must be text, got {type(value).__name__}")
    return value


def _check_prices(prices: dict[str, dict[str, float]]) -> str | None:
    """Why a ``provider.prices`` table is unusable, or None."""
    for model, rates in prices.items():
        unknown = set(rates) - set(PRICE_KEYS)
        if unknown:
            return f"model '{model}': unknown rate(s) {', '.join(sorted(unknown))} (known: {', '.join(PRICE_KEYS)})"
        if "input" not in rates or "output" not in rates:
            return f"model '{model}': needs both 'input' and 'output' (USD per million tokens)"
        if any(v < 0 for v in rates.values()):
            return f"model '{model}': rates must not be negative"
    return None


CHECKS: dict[str, Callable[[Any], str | None]] = {"provider.prices": _check_prices}
"""Keys with a further check after type coercion; each returns a problem or None."""


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__
