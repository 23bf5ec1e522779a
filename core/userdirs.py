"""Where the user's own files live: config (trusted) and state.

Both follow the XDG variables when set and platformdirs otherwise; tests
point ``XDG_CONFIG_HOME`` and ``XDG_STATE_HOME`` at temporary folders.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

APP_NAME = "ljtui"
CONFIG_ENV = "LJTUI_CONFIG"
CONFIG_FILE = "config.yaml"


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ljtui config directory (themes live in ``themes/`` below)."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / APP_NAME
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The user config file: ``LJTUI_CONFIG`` or ``config.yaml`` in the config dir."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    return user_config_dir(env) / CONFIG_FILE


def user_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's ljtui state directory: decisions that must not live in a repository."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME")
    if xdg:
        return Path(xdg) / APP_NAME
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))
