"""The TLS set-up the model SDKs read from the environment, checked before a client is built.

The SDKs' HTTP stack builds its certificate store when a client is made: from
the file ``SSL_CERT_FILE`` names, else from the folder ``SSL_CERT_DIR`` names,
else the system's. A variable naming something that is not there would
otherwise surface as a bare ``FileNotFoundError`` (or, for a missing folder,
as every HTTPS call failing certificate checks). ``REQUESTS_CA_BUNDLE`` is not
read by that stack, so it is not checked.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Mapping
from typing import TypeVar

from ljtui.core.providers.base import ProviderError

CERT_FILE_VAR = "SSL_CERT_FILE"
CERT_DIR_VAR = "SSL_CERT_DIR"

T = TypeVar("T")


def tls_problem(env: Mapping[str, str] | None = None) -> str | None:
    """What is wrong with the certificate variables in ``env`` (default: the process's), or ``None``.

    Only the variable the HTTP stack would use is checked: ``SSL_CERT_FILE``
    when it is set, else ``SSL_CERT_DIR``.
    """
    env = os.environ if env is None else env
    cert_file = env.get(CERT_FILE_VAR, "")
    if cert_file:
        if not os.path.exists(cert_file):
            return _named(CERT_FILE_VAR, cert_file, "which does not exist")
        if not os.path.isfile(cert_file):
            return _named(CERT_FILE_VAR, cert_file, "which is not a file")
        try:  # what the HTTP stack will do; failing here spares a half-built SDK client
            ssl.create_default_context(cafile=cert_file)
        except (OSError, ssl.SSLError) as exc:
            return _unloadable(CERT_FILE_VAR, cert_file, exc)
        return None
    cert_dir = env.get(CERT_DIR_VAR, "")
    if cert_dir:
        if not os.path.exists(cert_dir):
            return _named(CERT_DIR_VAR, cert_dir, "which does not exist")
        if not os.path.isdir(cert_dir):
            return _named(CERT_DIR_VAR, cert_dir, "which is not a folder")
    return None


def _named(var: str, value: str, what: str) -> str:
    return f"{var} names {value}, {what}; fix or unset {var}"


def _unloadable(var: str, value: str, exc: OSError) -> str:
    reason = exc.strerror if not isinstance(exc, ssl.SSLError) and exc.strerror else str(exc)
    return _named(var, value, f"whose certificates could not be loaded ({reason})")


def build_with_tls(build: Callable[[], T], env: Mapping[str, str] | None = None) -> T:
    """``build()`` (an SDK client), once the certificate variables are checked.

    Raises:
        ProviderError: ``config``, naming the variable, its value and what to do, when the variable names
            nothing usable or the certificates it names cannot be loaded.
    """
    problem = tls_problem(env)
    if problem:
        raise ProviderError("config", problem)
    try:
        return build()
    except (OSError, ssl.SSLError) as exc:
        env = os.environ if env is None else env
        var = CERT_FILE_VAR if env.get(CERT_FILE_VAR) else CERT_DIR_VAR if env.get(CERT_DIR_VAR) else ""
        if not var:
            raise
        raise ProviderError("config", _unloadable(var, env[var], exc)) from None
