"""Where the user's own files live: config (trusted), state and cache.

Each follows its XDG variable when set and platformdirs otherwise; tests
point ``XDG_CONFIG_HOME``, ``XDG_STATE_HOME`` and ``XDG_CACHE_HOME`` at
temporary folders.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

APP_NAME = "ljtui"
CONFIG_ENV = "LJTUI_CONFIG"
CONFIG_FILE = "config.yaml"


def _user_dir(kind: str, env: Mapping[str, str] | None) -> Path:
    """``$XDG_<KIND>_HOME/ljtui`` when set, else platformdirs' ``user_<kind>_dir``."""
    env = os.environ if env is None else env
    xdg = env.get(f"XDG_{kind.upper()}_HOME")
    if xdg:
        return Path(xdg) / APP_NAME
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP_NAME, appauthor=False))


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ljtui config directory (themes live in ``themes/`` below)."""
    return _user_dir("config", env)


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The user config file: ``LJTUI_CONFIG`` or ``config.yaml`` in the config dir."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    return user_config_dir(env) / CONFIG_FILE


def user_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ljtui state directory: decisions that must not live in a repository."""
    return _user_dir("state", env)


def user_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ljtui cache directory: what can be made again, kept out of repositories."""
    return _user_dir("cache", env)
