"""The environment of every child process ljtui starts: never the API keys.

Syntax checks, ripgrep, and later ``bash`` and gate checks run commands
that may come from the repository. None of them inherits a variable that
holds a provider key, nor any other variable whose value is a configured
secret.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping

SECRET_ENV_VARS: tuple[str, ...] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")
"""Variables that hold model provider keys."""


def child_env(base: Mapping[str, str] | None = None, secrets: Iterable[str] = ()) -> dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) without provider keys.

    Args:
        base: the environment to start from.
        secrets: further secret values; any variable holding one is dropped too.
    """
    env = dict(os.environ if base is None else base)
    values = {s for s in secrets if s}
    return {k: v for k, v in env.items() if k not in SECRET_ENV_VARS and v not in values}
