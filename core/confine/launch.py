"""The launcher every command for a model starts through: it holds all the command's processes, and confines them.

It is run (as a script, or imported, see :data:`~ljtui.core.confine.spawn.LAUNCHER_CODE`) as

    python -I -S -B launch.py [--landlock FD] [--lifeline FD] [--grace SECONDS] [--no-pid-namespace] -- PROGRAM ARG...

and ljtui treats it as the command: it is the process ljtui waits for and
signals (the leader of the command's process group), and it exits as the
program did (a signal death is raised again, so ljtui sees ``-SIG``).

**Nothing outlives the command.** The launcher holds every process the
program starts, ``setsid`` and double-forked ones included:

* in a **pid namespace** where the kernel allows one (an unprivileged user
  gets a user namespace that maps only their own ids): the launcher stays
  outside and forks the namespace's init (pid 1), which mounts a fresh
  ``/proc`` when it can (so ``ps`` and ``kill`` inside see only the
  command's processes), enters the sandbox and starts the program (pid 2).
  Orphans in the namespace are reparented to init, which reaps them; the
  kernel kills whatever is left in the namespace when init exits, and init
  dies with the launcher (``PR_SET_PDEATHSIG``);
* else as a **child subreaper** (``PR_SET_CHILD_SUBREAPER``; always with
  ``--no-pid-namespace``): orphans are reparented to the launcher, which
  starts the program in the sandbox but stays outside it, so that under
  Landlock's signal scoping (ABI 6+) the program cannot signal it.

When the program exits, or the launcher is asked to stop (SIGTERM, SIGHUP,
SIGINT, or end of file on the ``--lifeline`` pipe, whose write end only
ljtui holds, so it closes when ljtui dies, even of SIGKILL), every process
still held gets SIGTERM and SIGCONT, then SIGKILL after ``--grace`` seconds,
until none is left. Only then does the launcher exit.

**Confinement** (``--landlock FD``, the ruleset's inherited descriptor):
before the program runs, ``no_new_privs`` is set (no set-uid program can
leave the domain), the domain is entered and the descriptor closed; run as
root, ``CAP_SYS_PTRACE`` is first dropped from the bounding set, so the
command (root too) cannot read the memory or the environment of the
non-dumpable ljtui. Should any step fail, nothing runs: the reason goes to
standard error and the exit status is :data:`REFUSED_EXIT`.

The program starts with the signal handling a program started by
:class:`subprocess.Popen` gets (SIGPIPE and SIGXFSZ back to their default,
the launcher's signal mask as it was given).

It uses the standard library only (``-S`` leaves site-packages out, and
``posix``, ``_signal`` and ``_ctypes`` are used rather than ``os``,
``signal`` and ``ctypes``, so it starts in about 10 ms). It is a separate
program rather than a ``preexec_fn``, because running Python code between
``fork`` and ``exec`` in ljtui's multi-threaded process can deadlock; the
launcher is single-threaded, so it may fork.
"""

from __future__ import annotations

import _signal
import posix
import select
import sys

if __package__:
    from ljtui.core.confine import reaper
else:  # run as a script: its sibling is found by path (appended, so no standard module can be shadowed)
    sys.path.append(__file__.rpartition("/")[0])
    import reaper

SYS_LANDLOCK_RESTRICT_SELF = 446
"""``landlock_restrict_self``: the same number on every architecture that has Landlock."""
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 24, 36, 38
CAP_SYS_PTRACE = 19
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_SLAVE = 2, 4, 8, 0x4000, 0x80000
RTLD_NOW = 2
REFUSED_EXIT = 125
"""Exit status when the sandbox could not be entered (the command did not run)."""
PREFIX = "ljtui sandbox:"
"""How the launcher's own messages start."""
NOT_RUN = "(the command did not run)"
USAGE = "usage: launch.py [--landlock FD] [--lifeline FD] [--grace SECONDS] [--no-pid-namespace] -- PROGRAM [ARG...]"
DEFAULT_GRACE_SECONDS = 2.0
"""Time the processes left have between SIGTERM and SIGKILL, unless ``--grace`` says otherwise."""


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


class Options:
    """The launcher's command line (see :data:`USAGE`)."""

    def __init__(self) -> None:
        self.landlock: int | None = None
        """The Landlock ruleset's descriptor: the program runs in its domain."""
        self.lifeline: int | None = None
        """The read end of ljtui's lifeline pipe."""
        self.grace = DEFAULT_GRACE_SECONDS
        self.pid_namespace = True
        """Try a pid namespace before the subreaper."""
        self.program: list[str] = []


def parse(argv: list[str]) -> Options | None:
    """The options of ``argv`` (``sys.argv``), or ``None`` when it does not follow :data:`USAGE`."""
    options, args = Options(), argv[1:]
    while args and args[0] != "--":
        flag = args.pop(0)
        if flag == "--no-pid-namespace":
            options.pid_namespace = False
            continue
        value = args.pop(0) if args else ""
        if flag in ("--landlock", "--lifeline") and value.isdigit():
            setattr(options, flag[2:], int(value))
        elif flag == "--grace" and value.replace(".", "", 1).isdigit():
            options.grace = float(value)
        else:
            return None
    if len(args) < 2:
        return None
    options.program = args[1:]
    return options


def _fail(call: Libc, what: str) -> int:
    """Report the failed step with the C library's own words for ``errno``; nothing runs."""
    call("perror", f"{PREFIX} {what} {NOT_RUN}".encode())
    return REFUSED_EXIT


def _say(message: str) -> int:
    posix.write(2, f"{PREFIX} {message} {NOT_RUN}\n".encode("utf-8", "replace"))
    return REFUSED_EXIT


def main(argv: list[str]) -> int:
    """Start the program of ``argv`` held (and confined when a ruleset is given); its exit status."""
    options = parse(argv)
    if options is None:
        return _say(USAGE)
    for fd in (options.landlock, options.lifeline):
        try:
            if fd is not None:
                posix.set_inheritable(fd, False)  # the program never gets them
        except OSError:
            if fd == options.lifeline:
                return _say(f"the lifeline descriptor {fd} is not open")
    call = Libc()
    mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, ())
    signals = reaper.Signals()
    made = options.pid_namespace and _new_pid_namespace(call)
    try:
        status = _outside_namespace(call, options, signals, mask) if made else _as_subreaper(call, options, signals,
                                                                                              mask)
    except OSError as exc:
        return _say(f"cannot start {options.program[0]}: {exc.strerror or exc}")
    return _exit_as(status)


def _new_pid_namespace(call: Libc) -> bool:
    """Whether a pid namespace could be unshared (for a user other than root, inside a new user namespace that
    maps only its own ids, as the kernel requires).

    Once in the user namespace there is no way back: should the mapping fail (no kernel is known to refuse a
    user its own ids), the command still runs, held, under its real ids, which it then sees as unmapped.
    """
    uid, gid = posix.geteuid(), posix.getegid()
    if uid != 0:
        if call("unshare", CLONE_NEWUSER) != 0:
            return False
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            try:
                fd = posix.open(f"/proc/self/{name}", posix.O_WRONLY)
                try:
                    posix.write(fd, text.encode())
                finally:
                    posix.close(fd)
            except OSError:
                pass
    return call("unshare", CLONE_NEWPID) == 0


def _outside_namespace(call: Libc, options: Options, signals: reaper.Signals, mask: object) -> int:
    """The launcher's part with a pid namespace: fork its init, pass a stop on to it, and return the program's
    wait status (init writes it to a pipe before it exits).

    Raises:
        OSError: init could not be forked.
    """
    status_read, status_write = posix.pipe()
    try:
        init = reaper.fork()
    except OSError:
        reaper.unblock(mask)
        raise
    if init == 0:
        code = REFUSED_EXIT
        try:
            posix.close(status_read)
            code = _init(call, options, signals, mask, status_write)
        except BaseException as exc:  # noqa: BLE001 - init never returns into the launcher's code
            _say(f"its process namespace failed: {exc!r}")
        finally:
            posix._exit(code)
    reaper.unblock(mask)
    posix.close(status_write)
    _close_quietly(options.landlock, 0, 1)
    lifeline = reaper.Lifeline(options.lifeline)
    poller = select.poll()
    poller.register(signals.read, select.POLLIN)
    lifeline.watch(poller)
    stopped = False
    while True:
        done, raw = posix.waitpid(init, posix.WNOHANG)
        if done:
            data = posix.read(status_read, 64).strip()
            return int(data) if data.isdigit() else raw
        if not stopped and (signals.stop or lifeline.cut):
            posix.kill(init, _signal.SIGTERM)
            stopped = True
        lifeline.check(poller.poll())
        signals.drain()


def _init(call: Libc, options: Options, signals: reaper.Signals, mask: object, status_write: int) -> int:
    """pid 1 of the namespace: the sandbox, then the program held; writes its wait status for the launcher."""
    call("prctl", PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)
    signals.forget()
    signals = reaper.Signals()
    reaper.unblock(mask)
    _close_quietly(options.lifeline)
    _fresh_proc(call)
    if options.landlock is not None:
        if _confine(call, options.landlock) is not None:
            return REFUSED_EXIT
        _close_quietly(options.landlock)
    start = _starter(options, signals, mask, None)
    try:
        status = reaper.hold(start, signals, mask, options.grace, reaper.signal_namespace, launcher=status_write,
                             after_fork=lambda: _close_quietly(0, 1))
    except OSError as exc:
        return _say(f"cannot start {options.program[0]}: {exc.strerror or exc}")
    posix.write(status_write, str(status).encode())
    return 0


def _fresh_proc(call: Libc) -> None:
    """A mount namespace of init's own, no longer sending mounts back to the system's, and a ``/proc`` that shows
    the namespace's processes only. Best effort (a container may forbid it): ``/proc`` is mounted only once the
    mount cannot propagate out."""
    if call("unshare", CLONE_NEWNS) == 0 and call("mount", 0, b"/", 0, MS_REC | MS_SLAVE, 0) == 0:
        call("mount", b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0)


def _as_subreaper(call: Libc, options: Options, signals: reaper.Signals, mask: object) -> int:
    """The launcher's part without a pid namespace: it holds the program's orphans as a child subreaper, and
    enters the sandbox in the program's child only."""
    try:
        call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # a kernel without subreapers: the program's own children are still held
        pass
    start = _starter(options, signals, mask, call)
    lifeline = reaper.Lifeline(options.lifeline)
    return reaper.hold(start, signals, mask, options.grace, reaper.signal_children, lifeline=lifeline,
                       after_fork=lambda: _close_quietly(options.landlock, 0, 1))


def _confine(call: Libc, fd: int) -> int | None:
    """Enter the Landlock domain of ruleset ``fd``: ``None``, or :data:`REFUSED_EXIT` when a step failed."""
    if posix.geteuid() == 0 and call("prctl", PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) != 0:
        return _fail(call, "cannot drop CAP_SYS_PTRACE")
    if call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return _fail(call, "cannot set no_new_privs")
    if call("syscall", SYS_LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
        return _fail(call, "cannot enter the Landlock domain")
    return None


def _starter(options: Options, signals: reaper.Signals, mask: object,  # type: ignore[no-untyped-def]
             confine: Libc | None):
    """What the program's child does: default signal handling, the sandbox when ``confine`` is given, exec."""

    def start() -> int:
        try:
            signals.forget()
            _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)
            if confine is not None and options.landlock is not None and _confine(confine, options.landlock):
                return REFUSED_EXIT
            posix.execv(options.program[0], options.program)
        except OSError as exc:
            return _say(f"cannot start {options.program[0]}: {exc.strerror or exc}")
        except BaseException:  # noqa: BLE001 - nothing of the launcher may run on in the program's place
            return REFUSED_EXIT
        return REFUSED_EXIT  # not reached: execv does not return

    return start


def _close_quietly(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            try:
                posix.close(fd)
            except OSError:
                pass


def _exit_as(status: int) -> int:
    """The exit status for the program's wait ``status``: its own, or its death by a signal raised again."""
    if posix.WIFSIGNALED(status):
        number = posix.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the program's core, if any, is the one to keep
        except (ImportError, ValueError, OSError):
            pass
        _signal.set_wakeup_fd(-1)
        _signal.signal(number, _signal.SIG_DFL)
        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, (number,))
        _signal.raise_signal(number)
        return 128 + number
    return posix.WEXITSTATUS(status) if posix.WIFEXITED(status) else REFUSED_EXIT


if __name__ == "__main__":
    posix._exit(main(sys.argv))
