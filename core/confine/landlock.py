"""The Landlock backend: a ruleset built in ljtui, entered by the child before it runs anything.

Landlock (Linux 5.13+) lets an unprivileged process restrict itself and
every process it starts, for good. ljtui builds one ruleset per command
with the ``landlockpy`` binding:

* **writes** (every filesystem right the kernel's ABI knows except
  reading, listing and executing) are handled, so denied, then granted back
  below each writable place of the :class:`~ljtui.core.confine.rules.Rules`
  and on the harmless devices (``/dev/null`` …);
* **network** (ABI 4+): TCP connect and bind are handled and no port is
  granted, so both fail with ``EACCES``; on kernels whose ABI also covers
  UDP or pathname UNIX sockets, those are handled too; connecting to
  abstract UNIX sockets outside the domain is scoped away (ABI 6+);
* **signals** (ABI 6+) are scoped: a command cannot signal ljtui or any
  process outside its own domain.

A Landlock domain also forbids ptrace-style access to processes outside
it, so a command cannot read ljtui's memory or ``/proc/<pid>/environ``
(for an unprivileged user; root keeps ``CAP_SYS_PTRACE``).

The ruleset's descriptor is handed to the launcher
(:mod:`ljtui.core.confine.launch`), which enters the domain before the
command runs.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from ljtui.core.confine.rules import DEVICES, Rules

MIN_NETWORK_ABI = 4
"""The first ABI with TCP rules; below it Landlock cannot forbid the network."""
READ_RIGHTS_NAMES = ("READ_FILE", "READ_DIR", "EXECUTE")
"""Rights left unhandled: reading stays allowed everywhere."""
FILE_RIGHTS_NAMES = ("WRITE_FILE", "TRUNCATE", "IOCTL_DEV")
"""The write rights a rule on a single file (not a folder) may carry."""
NETWORK_FS_RIGHTS_NAMES = ("RESOLVE_UNIX",)
"""Filesystem rights that are really network (connecting to pathname UNIX sockets): handled only with the
network off."""


class LandlockUnavailable(OSError):
    """The kernel has no usable Landlock, or refused a rule; ``str(exc)`` says why."""


def abi_version() -> int:
    """The kernel's Landlock ABI.

    Raises:
        LandlockUnavailable: not Linux, the binding is missing, or the kernel has Landlock off or absent.
    """
    if not sys.platform.startswith("linux"):
        raise LandlockUnavailable(f"Landlock is a Linux feature (this is {sys.platform})")
    try:
        from landlockpy import _syscall
        from landlockpy.errors import LandlockError
    except ImportError as exc:  # pragma: no cover - a broken install
        raise LandlockUnavailable(f"the landlockpy binding is not installed ({exc})") from None
    try:
        return int(_syscall.abi_version())
    except (LandlockError, OSError) as exc:
        code = getattr(exc, "errno", None)
        if code in (errno.ENOSYS, errno.EOPNOTSUPP):
            raise LandlockUnavailable("the kernel has no Landlock (it is off or older than 5.13)") from None
        raise LandlockUnavailable(f"the Landlock probe failed: {exc}") from None


def ruleset_fd(rules: Rules) -> int:
    """A new ruleset descriptor enforcing ``rules`` (not inheritable; the caller closes it).

    Writable places that do not exist (any more) are left out: nothing can be written there anyway.

    Raises:
        LandlockUnavailable: the ruleset cannot be built.
    """
    from landlockpy import AccessFS, AccessNet, Ruleset, Scope
    from landlockpy.errors import LandlockError
    from landlockpy.flags import fs_for_abi, net_for_abi, scope_for_abi

    abi = abi_version()
    reads = _flags(AccessFS, READ_RIGHTS_NAMES)
    network_fs = _flags(AccessFS, NETWORK_FS_RIGHTS_NAMES)
    writes = fs_for_abi(abi) & ~reads
    if rules.network:
        writes &= ~network_fs
    net = AccessNet.NONE if rules.network else net_for_abi(abi)
    scoped = Scope.SIGNAL if rules.network else Scope.SIGNAL | Scope.ABSTRACT_UNIX_SOCKET
    try:
        ruleset = Ruleset(handled_fs=writes, handled_net=net, scoped=scoped & scope_for_abi(abi))
    except (LandlockError, OSError) as exc:
        raise LandlockUnavailable(f"cannot create a Landlock ruleset: {exc}") from None
    file_rights = _flags(AccessFS, FILE_RIGHTS_NAMES) & writes
    try:
        for place in rules.paths:
            _allow(ruleset, place, writes, file_rights)
        for device in DEVICES:
            _allow(ruleset, Path(device), file_rights, file_rights)
        fd = os.dup(ruleset.fileno())
    except (LandlockError, OSError) as exc:
        ruleset.close()
        raise LandlockUnavailable(f"cannot add a Landlock rule: {exc}") from None
    ruleset.close()
    return fd


def _allow(ruleset: object, path: Path, folder_rights: int, file_rights: int) -> None:
    """Grant ``folder_rights`` below a folder, or ``file_rights`` on a file; a missing path is skipped."""
    try:
        is_dir = path.is_dir()
        exists = is_dir or path.exists()
    except OSError:
        return
    if exists:
        ruleset.allow_path(path, folder_rights if is_dir else file_rights)  # type: ignore[attr-defined]


def _flags(kind: type, names: tuple[str, ...]) -> int:
    """The union of the flags of ``kind`` named ``names`` (names this binding lacks are skipped)."""
    value = kind(0)
    for name in names:
        value |= getattr(kind, name, kind(0))
    return value
