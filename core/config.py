"""Configuration: typed dataclasses loaded from YAML, environment and flags.

Layers, later wins:

1. the user file, ``$XDG_CONFIG_HOME/ljtui/config.yaml`` (platformdirs), or
   the file named by ``LJTUI_CONFIG``;
2. the repository's ``.agent/config.yaml``;
3. environment variables (:data:`ENV_KEYS`, and the provider's own
   ``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL`` over any file);
4. command-line flags.

The repository is untrusted input. Each key has a scope (field metadata):
``repo`` keys may come from any layer; ``trusted`` keys (endpoints,
scripts, anything that can run a command or send the key elsewhere) come
from the repository's file only once the user trusts the repository
(:mod:`ljtui.core.trust`); ``user`` keys never come from the repository.
A setting that is not allowed is ignored with a one-line notice naming it.
The sections and each key's scope are in :mod:`ljtui.core.config_sections`,
whose names (``ProviderConfig``, ``AgentConfig``, ``opt``, ``sandbox_problem``…) are importable from here too.

A bad file or value never stops the program: it becomes a one-line warning
naming the file and key, and the default is kept.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, get_type_hints

from ljtui.core.config_sections import (
    REPO, TRUSTED, USER, AgentConfig, HooksConfig, PlannerConfig, ProviderConfig, SecurityConfig, UIConfig,
    sandbox_problem,
)
from ljtui.core.config_sections import SANDBOX_BACKENDS as SANDBOX_BACKENDS, SandboxConfig as SandboxConfig, opt as opt
from ljtui.core.config_sections import NOTIFY_CHOICES
from ljtui.core.config_values import PRICE_KEYS, coerce, prices_problem, range_problem, read_yaml
from ljtui.core.mcp.config import McpConfig, servers_problem
from ljtui.core.userdirs import APP_NAME, CONFIG_ENV, user_config_dir, user_config_path

__all__ = [
    "APP_NAME", "CONFIG_ENV", "PRICE_KEYS", "PROVIDER_NAMES", "Config", "LoadedConfig", "load_config",
    "user_config_dir", "user_config_path",
]

REPO_CONFIG = Path(".agent") / "config.yaml"
TRUST_ACTING_FILES = (".mcp.json", ".agent/hooks.json", ".claude/settings.json")
"""Besides the config, the files that act only once the repository is trusted."""

PROVIDER_NAMES: tuple[str, ...] = ("anthropic", "openai-compatible", "scripted")
"""Every provider ljtui can talk to."""

ROUTING_CHOICES: tuple[str, ...] = ("model", "chat")
"""Values of ``agent.routing``: a short model call decides, or every plain message goes to chat."""

LAYER_CHOICES: tuple[str, ...] = ("auto", "on", "off")
"""Values of ``agent.layer``."""
ASK_COMMANDS_CHOICES: tuple[str, ...] = ("layered", "always")
"""Values of ``agent.ask_commands``."""
EDIT_TOOLS_CHOICES: tuple[str, ...] = ("auto", "replace", "patch")
"""Values of ``agent.edit_tools`` (:mod:`ljtui.core.agent.edit_dialect`)."""
SWITCHES: dict[str, dict[bool, str]] = {"agent.layer": {True: "on", False: "off"}}
"""Text settings whose ``on``/``off`` YAML reads as booleans."""
CHOICES: dict[str, tuple[str, ...]] = {"provider.name": PROVIDER_NAMES, "agent.routing": ROUTING_CHOICES,
                                       "agent.layer": LAYER_CHOICES, "agent.ask_commands": ASK_COMMANDS_CHOICES,
                                       "agent.edit_tools": EDIT_TOOLS_CHOICES, "ui.notify": NOTIFY_CHOICES}
"""Keys whose value must be one of a fixed set."""

PROVIDER_BASE_URL_ENV: dict[str, str] = {"anthropic": "ANTHROPIC_BASE_URL", "openai-compatible": "OPENAI_BASE_URL"}
"""Each provider's own endpoint variable; it beats every config file."""

FROM_USER_FILE = "user config"
FROM_REPO_FILE = "repository config"
FROM_ENV = "environment"
FROM_FLAGS = "command line"


@dataclass
class Config:
    """The whole configuration."""

    provider: ProviderConfig = field(default_factory=ProviderConfig)
    ui: UIConfig = field(default_factory=UIConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    planner: PlannerConfig = field(default_factory=PlannerConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)
    mcp: McpConfig = field(default_factory=McpConfig)
    hooks: HooksConfig = field(default_factory=HooksConfig)


ENV_KEYS: dict[str, str] = {
    "LJTUI_PROVIDER": "provider.name",
    "LJTUI_MODEL": "provider.model",
    "LJTUI_SCRIPT": "provider.script",
    "LJTUI_THEME": "ui.theme",
}
"""Environment variables and the config key each one sets."""


@dataclass
class LoadedConfig:
    """A configuration plus what happened while reading it.

    Attributes:
        config: the merged configuration.
        warnings: one line per problem or ignored setting.
        sources: the files that were read.
        origins: for each key that was set, the layer that set it last.
        ignored: repository settings left out because of their scope,
            as ``(dotted key, value)``; what ``ljtui trust`` would enable.
        trusted: whether the repository's settings were all taken
            (asked of the trust store only when the repository has a config file).
    """

    config: Config
    warnings: list[str] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    ignored: list[tuple[str, Any]] = field(default_factory=list)
    trusted: bool = False
    user_file: Path | None = None


def load_config(
    repo_root: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    trusted: bool | None = None,
) -> LoadedConfig:
    """Read every layer and merge it into one :class:`Config`.

    Args:
        repo_root: the repository whose ``.agent/config.yaml`` is read.
        env: environment variables (defaults to ``os.environ``).
        overrides: dotted keys from command-line flags, e.g.
            ``{"provider.name": "scripted"}``; ``None`` values are ignored.
        trusted: whether the repository's ``trusted``-scope settings apply;
            ``None`` asks the user's trust store (:mod:`ljtui.core.trust`)
            when the repository has a config file.
    """
    env = os.environ if env is None else env
    loaded = LoadedConfig(Config())
    user_file = loaded.user_file = user_config_path(env)
    data = read_yaml(user_file, loaded.warnings)
    if data is not None:
        loaded.sources.append(user_file)
        _apply_tree(loaded, data, str(user_file), FROM_USER_FILE)
    if repo_root is not None:
        repo_file = repo_root / REPO_CONFIG
        data = read_yaml(repo_file, loaded.warnings, inside=repo_root)
        if data is not None or any(os.path.lexists(repo_root / rel) for rel in TRUST_ACTING_FILES):
            if trusted is None:
                from ljtui.core.trust import TrustStore

                trusted = TrustStore.for_env(env).is_trusted(repo_root)
            loaded.trusted = trusted
        if data is not None:
            loaded.sources.append(repo_file)
            _apply_tree(loaded, data, str(repo_file), FROM_REPO_FILE)
    for var, key in ENV_KEYS.items():
        if env.get(var):
            _apply_key(loaded, key, env[var], f"${var}", FROM_ENV)
    for key, value in (overrides or {}).items():
        if value is not None:
            _apply_key(loaded, key, value, FROM_FLAGS, FROM_FLAGS)
    _provider_env_beats_files(loaded, env)
    return loaded


def _provider_env_beats_files(loaded: LoadedConfig, env: Mapping[str, str]) -> None:
    """``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL`` win over any file; a flag wins over them."""
    var = PROVIDER_BASE_URL_ENV.get(loaded.config.provider.name)
    if var and env.get(var) and loaded.origins.get("provider.base_url") in (FROM_USER_FILE, FROM_REPO_FILE):
        loaded.config.provider.base_url = env[var]
        loaded.origins["provider.base_url"] = FROM_ENV


def _apply_tree(loaded: LoadedConfig, data: dict[str, Any], origin: str, layer: str) -> None:
    sections = {f.name for f in dataclasses.fields(loaded.config)}
    for name, body in data.items():
        if name not in sections:
            loaded.warnings.append(
                f"config {origin}: unknown section '{name}' (expected one of: {', '.join(sorted(sections))})"
            )
            continue
        if not isinstance(body, dict):
            loaded.warnings.append(f"config {origin}: section '{name}' must be a mapping")
            continue
        for key, value in body.items():
            _apply_key(loaded, f"{name}.{key}", value, origin, layer)


def key_scope(dotted: str) -> str | None:
    """The scope of a dotted key (``repo``, ``trusted`` or ``user``), or None if unknown."""
    section_name, _, key = dotted.partition(".")
    section = next((f for f in dataclasses.fields(Config) if f.name == section_name), None)
    if section is None:
        return None
    fields = {f.name: f for f in dataclasses.fields(section.default_factory)}  # type: ignore[arg-type, misc]
    return fields[key].metadata.get("scope", TRUSTED) if key in fields else None


def _apply_key(loaded: LoadedConfig, dotted: str, value: Any, origin: str, layer: str) -> None:
    warnings = loaded.warnings
    section_name, _, key = dotted.partition(".")
    section = getattr(loaded.config, section_name, None)
    if section is None or not dataclasses.is_dataclass(section):
        warnings.append(f"config {origin}: unknown key '{dotted}'")
        return
    hints = get_type_hints(type(section))
    if key not in hints:
        known = ", ".join(f.name for f in dataclasses.fields(section))
        warnings.append(f"config {origin}: unknown key '{dotted}' (known: {known})")
        return
    meta = next(f.metadata for f in dataclasses.fields(section) if f.name == key)
    if layer == FROM_REPO_FILE and not _repo_may_set(loaded, dotted, value, meta.get("scope", TRUSTED), origin):
        return
    if dotted in SWITCHES and isinstance(value, bool):
        value = SWITCHES[dotted][value]  # YAML reads a bare on/off as true/false
    try:
        coerced = coerce(value, hints[key])
    except ValueError as exc:
        warnings.append(f"config {origin}: '{dotted}' {exc}; default kept")
        return
    check = CHECKS.get(dotted)
    problem = (check(coerced) if check else None) or range_problem(coerced, meta.get("min"), meta.get("max"))
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
    loaded.origins[dotted] = layer


def _repo_may_set(loaded: LoadedConfig, dotted: str, value: Any, scope: str, origin: str) -> bool:
    if scope == REPO or (scope == TRUSTED and loaded.trusted):
        return True
    loaded.ignored.append((dotted, value))
    if scope == USER:
        loaded.warnings.append(f"config {origin}: '{dotted}' can only be set in your own config file "
                               f"({loaded.user_file}); ignored")
    else:
        loaded.warnings.append(f"config {origin}: '{dotted}' ignored: this repository is not trusted "
                               "(`ljtui trust` lists its settings and asks)")
    return False


CHECKS: dict[str, Callable[[Any], str | None]] = {"provider.prices": prices_problem,
                                                  "agent.sandbox": sandbox_problem, "mcp.servers": servers_problem}
"""Keys with a further check after type coercion; each returns a problem or None."""


SHOWN_VALUE_CHARS = 200
"""Longest setting value shown in what trust would enable."""


def trust_would_enable(root: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """What trusting the repository at ``root`` would let its files do, one line each.

    Settings only the user's own config may hold are left out: trust never enables them.
    """
    from ljtui.core.hooks.spec import trust_lines as hook_lines
    from ljtui.core.mcp.config import trust_lines

    return enabled_by_trust(load_config(root, env, trusted=False).ignored) + trust_lines(root) + hook_lines(root)


def enabled_by_trust(ignored: list[tuple[str, Any]]) -> list[str]:
    """The ignored repository settings that trust would let through, one line each (values shown safely)."""
    from ljtui.core.display import shown_line

    lines = []
    for key, value in ignored:
        if key_scope(key) == TRUSTED:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            shown = text if len(text) <= SHOWN_VALUE_CHARS else text[:SHOWN_VALUE_CHARS] + "…"
            lines.append(f"set {key} = {shown_line(shown)}")
    return lines
