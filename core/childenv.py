"""The environment of every child process ljtui starts: never a key, never a credential (SAFE-2).

Commands, gate checks, syntax checks, ripgrep and ljtui's own git calls
run with a copy of ljtui's environment from which are removed:

* the provider key variables (:data:`SECRET_ENV_VARS`): never passed, not
  even through ``agent.pass_env``;
* credential variables (:func:`is_credential`): the names in
  :data:`CREDENTIAL_VARS`, any name with a part (between underscores) in
  :data:`CREDENTIAL_PARTS` (``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``,
  ``STRIPE_API_KEY``, ``DB_PASSWORD``, ``SSH_AUTH_SOCK`` …, but not
  ``TOKENIZERS_PARALLELISM``), and any variable whose value is a URL with a
  password in it (``postgres://user:pw@host/db``);
* any variable whose value is a configured secret (the provider key under
  another name).

The user passes chosen credentials through with ``agent.pass_env`` (their
own config only), e.g. ``[GITHUB_TOKEN, SSH_AUTH_SOCK]``.
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Mapping

SECRET_ENV_VARS: tuple[str, ...] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")
"""Variables that hold model provider keys."""
CREDENTIAL_VARS: frozenset[str] = frozenset({
    "GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN", "GL_TOKEN", "BITBUCKET_TOKEN", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
    "NPM_TOKEN", "NODE_AUTH_TOKEN", "PYPI_TOKEN", "TWINE_PASSWORD", "CARGO_REGISTRY_TOKEN",
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AZURE_CLIENT_SECRET",
    "GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_AUTH_CONFIG", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "VAULT_TOKEN",
    "DIGITALOCEAN_ACCESS_TOKEN", "CLOUDFLARE_API_TOKEN", "SENTRY_AUTH_TOKEN", "SLACK_TOKEN",
})
"""Credential variables removed by name (the socket of an SSH or GPG agent is a credential too)."""
CREDENTIAL_PARTS: frozenset[str] = frozenset({
    "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "KEY", "APIKEY", "AUTH", "AUTHTOKEN", "CREDENTIAL",
    "CREDENTIALS", "COOKIE"})
"""A variable with one of these as a part of its name (split at ``_`` and other punctuation, any case) is a
credential."""
NAME_PARTS = re.compile(r"[^A-Z0-9]+")
URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", re.IGNORECASE)
"""A URL carrying ``user:password@``."""


def is_credential(name: str, value: str) -> bool:
    """Whether the variable ``name`` (holding ``value``) is a credential a child must not get by default."""
    upper = name.upper()
    return (upper in CREDENTIAL_VARS or not CREDENTIAL_PARTS.isdisjoint(NAME_PARTS.split(upper))
            or bool(URL_WITH_PASSWORD.search(value)))


def child_env(base: Mapping[str, str] | None = None, secrets: Iterable[str] = (),
              pass_env: Iterable[str] = ()) -> dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) without provider keys or credentials.

    Args:
        base: the environment to start from.
        secrets: further secret values; any variable holding one is dropped too.
        pass_env: credential variables to keep (``agent.pass_env``); provider keys are never kept.
    """
    env = dict(os.environ if base is None else base)
    values = {s for s in secrets if s}
    passed = set(pass_env) - set(SECRET_ENV_VARS)
    return {k: v for k, v in env.items()
            if k not in SECRET_ENV_VARS and v not in values and (k in passed or not is_credential(k, v))}
