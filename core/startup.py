"""What a session needs before its first frame, read in one call.

The UI asks :func:`prepare` once at start: the merged configuration and its
warnings, the provider's label and what keeps it from working, the git
branch and the theme files. Nothing here imports an SDK or the engine, so
the first frame paints fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.config import Config, enabled_by_trust, load_config
from ljtui.core.mcp.config import trust_lines
from ljtui.core.hooks.spec import trust_lines as hook_lines
from ljtui.core.provider_keys import environment
from ljtui.core.providers import provider_label, provider_problem
from ljtui.core.repo import current_branch
from ljtui.core.theme_files import ThemeFiles, read_theme_files
from ljtui.core.userdirs import user_config_dir

__all__ = ["Startup", "environment", "prepare"]

THEMES_DIR = "themes"
"""The user's theme folder inside their config dir."""


@dataclass
class Startup:
    """Everything the UI shows or needs before the first message."""

    repo_root: Path
    config: Config
    warnings: list[str]
    provider: str
    """``provider/model`` for the status bar."""
    provider_problem: str | None
    """Why the configured model cannot be used, or ``None``."""
    branch: str | None
    themes: ThemeFiles
    untrusted: list[str]
    """What the repository's own settings would do once trusted (empty: nothing is held back)."""


def prepare(repo_root: Path, env: Mapping[str, str], overrides: Mapping[str, Any] | None = None) -> Startup:
    """Read the configuration (every layer, trust included), themes and repository facts.

    Raises:
        UnsafeRoot: ``repo_root`` may not be a session root (:mod:`ljtui.core.session_root`); nothing was read.
    """
    from ljtui.core.session_root import check_root

    check_root(repo_root, env)
    loaded = load_config(repo_root, env, overrides)
    cfg = loaded.config
    untrusted: list[str] = []
    if not loaded.trusted:
        untrusted = enabled_by_trust(loaded.ignored) + trust_lines(repo_root) + hook_lines(repo_root)
    return Startup(repo_root, cfg, list(loaded.warnings), provider_label(cfg.provider),
                   provider_problem(cfg.provider, env), current_branch(repo_root),
                   read_theme_files(user_config_dir(env) / THEMES_DIR), untrusted)
