"""The provider keys are ljtui's alone: out of its environment, and its memory closed to other processes (SAFE-2).

A process's environment can be read by any process of the same user from
``/proc/<pid>/environ``, and it keeps the environment the process started
with even after ``os.environ`` forgets a variable. So the ``ljtui``
command, before anything else (:func:`protect_process`):

* moves the provider key variables (:data:`~ljtui.core.childenv.SECRET_ENV_VARS`)
  out of ``os.environ`` into this module's memory, and overwrites their
  values in the process's environment block with zero bytes, so
  ``/proc/<pid>/environ`` no longer holds them, for any reader (root
  included); the configuration and the SDK clients read them from
  :func:`environment` and get them as arguments;
* marks itself non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``, Linux): then
  ``/proc/<pid>/environ``, ``/proc/<pid>/mem`` and ptrace are closed to
  other processes of the same user, its own commands included (root, with
  ``CAP_SYS_PTRACE``, can still read them).

Commands also run in a Landlock domain or a bubblewrap pid namespace,
which close the same doors independently, and get an environment without
keys or credentials (:mod:`ljtui.core.childenv`).
"""

from __future__ import annotations

import os
import sys
from typing import Mapping, MutableMapping

from ljtui.core.childenv import SECRET_ENV_VARS

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3

_held: dict[str, str] = {}


def withdraw_keys(environ: MutableMapping[str, str] | None = None) -> tuple[str, ...]:
    """Move the provider key variables from ``environ`` (default ``os.environ``) into ljtui's memory.

    Returns:
        The names that were moved.
    """
    environ = os.environ if environ is None else environ
    moved = []
    for name in SECRET_ENV_VARS:
        if environ is os.environ:
            _scrub(name)
        value = environ.pop(name, None)
        if value is not None:
            _held[name] = value
            moved.append(name)
    return tuple(moved)


def _scrub(name: str) -> None:
    """Overwrite the value of ``name`` in the C environment with zero bytes (where ``/proc/<pid>/environ`` reads)."""
    libc = _libc()
    if libc is None:
        return
    import ctypes

    libc.getenv.restype = ctypes.c_void_p
    libc.getenv.argtypes = (ctypes.c_char_p,)
    address = libc.getenv(os.fsencode(name))
    if address:
        ctypes.memset(address, 0, len(ctypes.string_at(address)))


def held_names() -> tuple[str, ...]:
    """The provider key variables ljtui withdrew from its environment and holds."""
    return tuple(_held)


def environment(base: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """``base``, or ``os.environ`` with the withdrawn keys back in: what config and providers read.

    An explicit ``base`` is returned as it is (tests and callers that built their own environment).
    """
    if base is not None:
        return base
    if not _held:
        return os.environ
    return {**os.environ, **_held}


def set_dumpable(dumpable: bool) -> bool:
    """Mark this process dumpable or not; ``False`` where that is not possible (not Linux)."""
    libc = _libc()
    return libc is not None and libc.prctl(PR_SET_DUMPABLE, int(dumpable), 0, 0, 0) == 0


def is_dumpable() -> bool | None:
    """Whether this process is dumpable (``None``: cannot tell here)."""
    libc = _libc()
    if libc is None:
        return None
    value = libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    return None if value < 0 else value != 0


def protect_process() -> None:
    """Withdraw the provider keys and make this process non-dumpable: the first thing ``ljtui`` does."""
    withdraw_keys()
    set_dumpable(False)


def _libc():  # type: ignore[no-untyped-def]
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
