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

It uses the standard library only (``-S`` leaves site-packages out, and
``posix`` and ``_ctypes`` are used directly rather than ``os`` and
``ctypes``, so it starts in about 10 ms) and is a separate program rather than a
``preexec_fn``, because running Python code between ``fork`` and ``exec``
in ljtui's multi-threaded process can deadlock.
"""

from __future__ import annotations

import posix
import sys

SYS_LANDLOCK_RESTRICT_SELF = 446
"""``landlock_restrict_self``: the same number on every architecture that has Landlock."""
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
CAP_SYS_PTRACE = 19
RTLD_NOW = 2
REFUSED_EXIT = 125
"""Exit status when the sandbox could not be entered (the command did not run)."""
PREFIX = "ljtui sandbox:"
"""How the launcher's own messages start."""
NOT_RUN = "(the command did not run)"



class Libc:
    """The C library's functions, called by name with integer or bytes arguments.

    Through ``_ctypes`` directly when it offers the calls (importing
    :mod:`ctypes`, or :mod:`typing`, would cost a third of the launcher's
    start), else through :mod:`ctypes`.
    """

    def __init__(self) -> None:
        self._library = None
        try:
            import _ctypes

            self._handle = _ctypes.dlopen(None, RTLD_NOW)
            self._call, self._symbol = _ctypes.call_function, _ctypes.dlsym
        except (ImportError, AttributeError, OSError):
            import ctypes

            self._library = ctypes.CDLL(None)

    def __call__(self, name: str, *args: int | bytes) -> int:
        if self._library is not None:
            return int(getattr(self._library, name)(*args))
        return int(self._call(self._symbol(self._handle, name), args))


def _fail(call: Libc, what: str) -> int:
    """Report the failed step with the C library's own words for ``errno``; nothing runs."""
    call("perror", f"{PREFIX} {what} {NOT_RUN}".encode())
    return REFUSED_EXIT


def _say(message: str) -> int:
    posix.write(2, f"{PREFIX} {message} {NOT_RUN}\n".encode("utf-8", "replace"))
    return REFUSED_EXIT


def main(argv: list[str]) -> int:
    """Enter the Landlock domain of the ruleset named in ``argv`` and exec the rest."""
    if len(argv) < 4 or argv[2] != "--" or not argv[1].isdigit():
        return _say("usage: launch.py FD -- PROGRAM [ARG...]")
    fd, program = int(argv[1]), argv[3:]
    call = Libc()
    if posix.geteuid() == 0 and call("prctl", PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) != 0:
        return _fail(call, "cannot drop CAP_SYS_PTRACE")
    if call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return _fail(call, "cannot set no_new_privs")
    if call("syscall", SYS_LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
        return _fail(call, "cannot enter the Landlock domain")
    posix.close(fd)
    try:
        posix.execv(program[0], program)
    except OSError as exc:
        return _say(f"cannot start {program[0]}: {exc.strerror or exc}")
    return REFUSED_EXIT  # not reached: execv does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv))
