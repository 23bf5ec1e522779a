"""The child half of the Landlock sandbox: enter the domain, then run the command.

ljtui builds a Landlock ruleset in its own process
(:mod:`ljtui.core.confine.landlock`) and starts this file as

    python -I -S launch.py FD -- PROGRAM ARG...

with the ruleset's descriptor ``FD`` inherited. The launcher sets
``no_new_privs`` (so no set-uid program can leave the domain), restricts
itself with the ruleset, closes the descriptor and replaces itself with
``PROGRAM``, which keeps the process id, the process group and every open
descriptor. Should any step fail, nothing runs: the reason goes to
standard error and the exit status is :data:`REFUSED_EXIT`.

Run as root, it first drops ``CAP_SYS_PTRACE`` from the bounding set, so
the command (root too) cannot read the memory or the environment of the
non-dumpable ljtui.

It uses the standard library only (``-S`` leaves site-packages out, so it
starts in about 15 ms) and is a separate program rather than a
``preexec_fn``, because running Python code between ``fork`` and ``exec``
in ljtui's multi-threaded process can deadlock.
"""

from __future__ import annotations

import ctypes
import os
import sys

SYS_LANDLOCK_RESTRICT_SELF = 446
"""``landlock_restrict_self``: the same number on every architecture that has Landlock."""
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
CAP_SYS_PTRACE = 19
REFUSED_EXIT = 125
"""Exit status when the sandbox could not be entered (the command did not run)."""
PREFIX = "ljtui sandbox:"
"""How the launcher's own messages start."""


def _fail(message: str) -> int:
    os.write(2, f"{PREFIX} {message}; the command did not run\n".encode("utf-8", "replace"))
    return REFUSED_EXIT


def main(argv: list[str]) -> int:
    """Enter the Landlock domain of the ruleset named in ``argv`` and exec the rest."""
    if len(argv) < 4 or argv[2] != "--" or not argv[1].isdigit():
        return _fail("usage: launch.py FD -- PROGRAM [ARG...]")
    fd, program = int(argv[1]), argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if os.geteuid() == 0 and libc.prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) != 0:
        return _fail(f"cannot drop CAP_SYS_PTRACE: {os.strerror(ctypes.get_errno())}")
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return _fail(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
    if libc.syscall(ctypes.c_long(SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_long(fd), ctypes.c_long(0)) != 0:
        return _fail(f"cannot enter the Landlock domain: {os.strerror(ctypes.get_errno())}")
    os.close(fd)
    try:
        os.execv(program[0], program)
    except OSError as exc:
        return _fail(f"cannot start {program[0]}: {exc.strerror or exc}")
    return REFUSED_EXIT  # not reached: execv does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv))
