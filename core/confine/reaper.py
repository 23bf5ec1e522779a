"""Holding a command's processes until every one is gone: the launcher's supervision loop.

:mod:`ljtui.core.confine.launch` starts the program through :func:`hold`,
either as init of a pid namespace or as a child subreaper. Either way
every orphan the program leaves (``setsid`` and double-forked ones
included) is reparented to the holder, which reaps it. Once the program
exits, or a stop is asked (SIGTERM, SIGHUP, SIGINT, or the end of ljtui's
lifeline pipe), every process still held gets SIGTERM and SIGCONT, then
SIGKILL after the grace period, until none is left. A process still in the
command's process group may so get SIGTERM twice: from the caller's stop
of the group, and from the holder.

Signals become wake-ups of one ``poll`` through a pipe (the self-pipe
trick, :func:`_signal.set_wakeup_fd`), so no signal is lost between a check
and the wait. Standard library only: the launcher imports it by path.
"""

from __future__ import annotations

import _signal
import posix
import select
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: it would cost a third of the launcher's start
    from typing import Callable

    Everyone = Callable[[int, bool], None]
    """Sends a signal to every process held (``again``: only to those that were not sent SIGTERM yet)."""

KILL_WAIT_SECONDS = 5.0
"""Longest wait for the processes to vanish after SIGKILL (one stuck in the kernel may take longer)."""
RESCAN_SECONDS = 0.02
"""How often the holder looks again while it stops the processes (a subreaper's new orphans send no signal)."""
STOP_SIGNALS = (_signal.SIGTERM, _signal.SIGHUP, _signal.SIGINT)
"""Signals that ask the holder to stop the command."""
RESET_SIGNALS = (*STOP_SIGNALS, _signal.SIGCHLD, _signal.SIGPIPE, _signal.SIGXFSZ)
"""Signals the program gets back as a program :class:`subprocess.Popen` starts gets them: SIGPIPE and SIGXFSZ (which
Python ignores) at their default, the others as the launcher was given them (a background job of a shell is given
SIGINT ignored, say)."""
PYTHON_IGNORES = (_signal.SIGPIPE, _signal.SIGXFSZ)


class Signals:
    """Stop requests and children's exits as wake-ups of a poll: a signal writes its number to a pipe."""

    def __init__(self) -> None:
        self.stop = False
        self.ignored = {number for number in RESET_SIGNALS
                        if number not in PYTHON_IGNORES and _signal.getsignal(number) == _signal.SIG_IGN}
        """The signals the launcher was given ignored, which the program is given ignored too."""
        self.read, self.write = posix.pipe()
        for fd in (self.read, self.write):
            posix.set_blocking(fd, False)
        _signal.set_wakeup_fd(self.write, warn_on_full_buffer=False)
        for number in STOP_SIGNALS:
            _signal.signal(number, self._stop)
        _signal.signal(_signal.SIGCHLD, _noted)

    def _stop(self, _number: int, _frame: object) -> None:
        self.stop = True

    def drain(self) -> None:
        """Empty the wake-up pipe."""
        try:
            while posix.read(self.read, 512):
                pass
        except BlockingIOError:
            pass

    def forget(self) -> None:
        """Give every signal this handles back the handling it was given (see :data:`RESET_SIGNALS`), and close the
        pipe."""
        _signal.set_wakeup_fd(-1)
        for number in RESET_SIGNALS:
            _signal.signal(number, _signal.SIG_IGN if number in self.ignored else _signal.SIG_DFL)
        posix.close(self.read)
        posix.close(self.write)


def _noted(_number: int, _frame: object) -> None:
    """SIGCHLD's handler: the wake-up pipe is what counts."""


class Lifeline:
    """The read end of ljtui's lifeline pipe (or none): :attr:`cut` once every write end is closed."""

    def __init__(self, fd: int | None) -> None:
        self.fd, self.cut = fd, False
        self._poller: select.poll | None = None

    def watch(self, poller: select.poll) -> None:
        """Wake ``poller`` when the pipe has news."""
        if self.fd is not None:
            self._poller = poller
            poller.register(self.fd, select.POLLIN)

    def check(self, events: list[tuple[int, int]]) -> None:
        """Note an end of file among ``events`` (and stop watching the pipe then)."""
        for fd, _event in events:
            if fd == self.fd and not self.cut:
                try:
                    self.cut = posix.read(fd, 64) == b""
                except OSError:
                    self.cut = True
                if self.cut and self._poller is not None:
                    self._poller.unregister(fd)


def fork() -> int:
    """``fork`` with every signal blocked, so a child sets up its own handling before any reaches it; the caller
    (both sides) restores the mask."""
    _signal.pthread_sigmask(_signal.SIG_BLOCK, _signal.valid_signals())
    return posix.fork()


def unblock(mask: object) -> None:
    """Restore ``mask``, the signal mask the launcher was given, but let through the signals the holder needs."""
    _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)
    _signal.pthread_sigmask(_signal.SIG_UNBLOCK, RESET_SIGNALS)


def hold(start: Callable[[], int], signals: Signals, mask: object, grace: float, everyone: Everyone, *,
         lifeline: Lifeline | None = None, launcher: int | None = None,
         after_fork: Callable[[], None] | None = None) -> int:
    """Run ``start`` in a child (it execs the program, or returns an exit status) and hold it and every orphan
    until all are gone.

    Args:
        start: what the child does; returns only on failure.
        signals: this process's signal wake-ups.
        mask: the signal mask the launcher was given.
        grace: seconds between SIGTERM and SIGKILL.
        everyone: signals every process held.
        lifeline: ljtui's lifeline pipe, when this process watches it.
        launcher: init's end of the status pipe: it reports an error once the launcher is gone.
        after_fork: run in this process once the child is forked (closes what only the child needs).

    Returns:
        The program's wait status (SIGKILL's when it could not be reaped).

    Raises:
        OSError: the child could not be forked.
    """
    try:
        program = fork()
    except OSError:
        unblock(mask)
        raise
    if program == 0:
        code = 1
        try:
            code = start()
        finally:
            posix._exit(code)
    unblock(mask)
    if after_fork is not None:
        after_fork()
    poller = select.poll()
    poller.register(signals.read, select.POLLIN)
    if launcher is not None:
        poller.register(launcher, 0)
    if lifeline is not None:
        lifeline.watch(poller)
    status: int | None = None
    deadline: float | None = None
    killing = False
    while True:
        status, left = _reap(program, status)
        if not left:
            return status if status is not None else _signal.SIGKILL
        now = time.monotonic()
        if deadline is None and (status is not None or signals.stop or (lifeline is not None and lifeline.cut)):
            deadline = now + grace
            everyone(_signal.SIGTERM, False)
        elif deadline is not None and not killing:
            everyone(_signal.SIGTERM, True)
        if deadline is not None and now >= deadline and not killing:
            killing, deadline = True, now + KILL_WAIT_SECONDS
        if killing:
            assert deadline is not None
            if now >= deadline:
                return status if status is not None else _signal.SIGKILL
            everyone(_signal.SIGKILL, False)
        events = poller.poll(None if deadline is None else 1000 * min(deadline - now, RESCAN_SECONDS))
        if lifeline is not None:
            lifeline.check(events)
        if launcher is not None and any(fd == launcher for fd, _event in events):
            poller.unregister(launcher)
            if not killing:
                killing, deadline = True, time.monotonic() + KILL_WAIT_SECONDS
        signals.drain()


_sent: set[int] = set()
"""Children a subreaper already sent SIGTERM (forgotten once reaped)."""


def _reap(program: int, status: int | None) -> tuple[int | None, bool]:
    """Reap every child that exited: the program's wait status once it is reaped, and whether any child is left."""
    while True:
        try:
            pid, raw = posix.waitpid(-1, posix.WNOHANG)
        except ChildProcessError:
            return status, False
        if pid == 0:
            return status, True
        _sent.discard(pid)
        if pid == program:
            status = raw


def signal_namespace(number: int, again: bool) -> None:
    """Signal every process of init's namespace (``kill(-1)`` from init reaches them all, and only them)."""
    if not again:
        _kill(-1, number)
        if number == _signal.SIGTERM:
            _kill(-1, _signal.SIGCONT)


def signal_children(number: int, again: bool) -> None:
    """Signal a subreaper's children (``again``: only those not sent SIGTERM yet, such as new orphans).

    Only children are signalled: their ids cannot be given to another process before they are reaped here;
    a grandchild is reached once its parent is gone and it is reparented here.
    """
    for pid in children():
        if again and pid in _sent:
            continue
        _kill(pid, number)
        if number == _signal.SIGTERM:
            _sent.add(pid)
            _kill(pid, _signal.SIGCONT)


def children() -> list[int]:
    """This process's children, from ``/proc``: its ``children`` list, else every process's parent."""
    me = posix.getpid()
    try:
        return [int(pid) for pid in _read(f"/proc/{me}/task/{me}/children").split()]
    except OSError:
        pass
    found = []
    try:
        names = posix.listdir("/proc")
    except OSError:
        return found
    for name in names:
        try:
            stat = _read(f"/proc/{name}/stat") if name.isdigit() else b""
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(me).encode():
            found.append(int(name))
    return found


def _read(path: str) -> bytes:
    fd = posix.open(path, posix.O_RDONLY)
    try:
        return posix.read(fd, 1 << 16)
    finally:
        posix.close(fd)


def _kill(pid: int, number: int) -> None:
    try:
        posix.kill(pid, number)
    except OSError:
        pass
