"""Running one ``bash`` command: streamed, bounded, and always stoppable.

The command runs as ``/bin/bash -c COMMAND`` in the repository root,
inside the sandbox its :class:`~ljtui.core.confine.spawn.Confinement`
names (a caller cannot start a command without one), in a session (and so
a process group) of its own, with the environment of
:func:`~ljtui.core.childenv.child_env` (no provider keys or credentials),
standard input from ``/dev/null`` and standard error merged into standard
output. Because
the group has no controlling terminal, nothing in it can prompt on the
user's terminal (``git`` and ``ssh`` open ``/dev/tty`` for passwords).

Output is decoded as UTF-8 (bad bytes become U+FFFD) and goes two ways:

* to ``on_output`` while the command runs, batched to at most one call per
  :data:`STREAM_INTERVAL_SECONDS`, each call at most :data:`STREAM_MAX_CHARS`
  characters (the newest; what is skipped is counted in the text), so a
  command that prints a million lines costs the UI a few dozen events;
* to the result, as the first :data:`HEAD_CHARS` and last :data:`TAIL_CHARS`
  characters with the number cut from the middle.

The process started is the sandbox's launcher (or ``bwrap``), which runs
bash and holds every process bash starts, those that leave the group on
purpose (``setsid``, a double-forking daemon) included: when bash exits,
what is left gets SIGTERM, then SIGKILL after the grace period, and the
launcher exits only once all of it is gone, with bash's status
(:mod:`ljtui.core.confine.launch`; under bubblewrap, its namespace is killed
as bwrap exits). The launcher is the leader of the command's session and
process group.

The command ends when it exits, when its time is up, or when it is
cancelled (the awaiting task is cancelled, or ``cancelled`` is set). In
every case the whole group is stopped before :func:`run_command` returns or
raises (:func:`~ljtui.core.agent.procgroup.stop_group`: SIGTERM, then
SIGKILL after :data:`KILL_GRACE_SECONDS`; the launcher gives what left the
group the same grace, a moment shorter, and kills it too). The launcher's
exit is seen through a pidfd (or ``waitid(WNOWAIT)``) without reaping it,
and it is reaped only once its group is gone, so the group id cannot be
recycled for a stranger while it is being signalled.

Limits: without ``/proc`` (not Linux), the launcher is reaped before the
leftovers of its group are looked for, and that small race remains. Where
the kernel allows no pid namespace, the launcher holds the processes as a
subreaper, which cannot stop them once it is itself killed (by the SIGKILL
of a stop that outlasted its grace, or by a command that may signal it:
unsandboxed, or under Landlock before ABI 6); the result says so when such
a process still holds the output pipe.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from ljtui.core.agent.procgroup import KILL_WAIT_SECONDS, has_proc, signal_group, stop_group
from ljtui.core.childenv import child_env
from ljtui.core.confine.spawn import Confinement

SHELL = "/bin/bash"
"""The shell that runs every command."""
HEAD_CHARS = 8_000
"""Characters kept from the start of the output for the model."""
TAIL_CHARS = 8_000
"""Characters kept from the end of the output for the model."""
STREAM_INTERVAL_SECONDS = 0.05
"""Shortest time between two ``on_output`` calls."""
STREAM_MAX_CHARS = 16_000
"""Most characters one ``on_output`` call carries (the newest ones)."""
KILL_GRACE_SECONDS = 2.0
"""Time the group has to exit after SIGTERM before SIGKILL."""
DRAIN_SECONDS = 2.0
"""Time the output pipe has to close once the group is gone."""
READ_CHUNK_BYTES = 64 * 1024
"""Bytes read from the output pipe per wake-up (a pipe's default capacity)."""
EXIT_POLL_SECONDS = 0.01
"""How often bash's exit is checked where there is no pidfd."""

EXITED, TIMED_OUT, CANCELLED = "exited", "timed out", "cancelled"
NOT_STARTED = 0
"""The pid of a command cancelled before it started."""


@dataclass(frozen=True)
class ShellLimits:
    """How much output is kept and streamed, and how long a stop may take."""

    head_chars: int = HEAD_CHARS
    tail_chars: int = TAIL_CHARS
    stream_interval: float = STREAM_INTERVAL_SECONDS
    stream_max_chars: int = STREAM_MAX_CHARS
    kill_grace: float = KILL_GRACE_SECONDS


@dataclass(frozen=True)
class ShellResult:
    """How a command ended and what it printed.

    Attributes:
        exit_code: bash's exit status; negative when a signal killed it (``-9``: SIGKILL; under bubblewrap,
            ``128 + N``).
        duration: seconds from start until the command and its group were gone.
        timed_out: the time limit ended it.
        cancelled: the caller ended it.
        head: the start of the output.
        tail: the end of the output (empty when everything fit in ``head``).
        cut_chars: characters left out between ``head`` and ``tail``.
        total_chars: characters the command printed.
        pid: the id of the process started for the command (the launcher, or ``bwrap``), which is also its
            process group id; :data:`NOT_STARTED` when ``cancelled`` was already set and nothing ran.
        left_running: processes of the group still alive after SIGKILL (normally 0).
        pipe_held: a process outside the group still held the output open, so
            the output may be incomplete.
    """

    exit_code: int | None
    duration: float
    timed_out: bool
    cancelled: bool
    head: str
    tail: str
    cut_chars: int
    total_chars: int
    pid: int
    left_running: int = 0
    pipe_held: bool = False

    @property
    def output(self) -> str:
        """Head and tail, with a note saying how much was cut between them."""
        if not self.cut_chars:
            return self.head + self.tail
        return f"{self.head}\n[… {self.cut_chars} characters cut from the middle …]\n{self.tail}"


class HeadTail:
    """Keeps the first ``head`` and the last ``tail`` characters of a text that arrives in pieces."""

    def __init__(self, head: int, tail: int) -> None:
        self._head_cap, self._tail_cap = head, tail
        self._head: list[str] = []
        self._head_len = 0
        self._tail: list[str] = []
        self._tail_len = 0
        self.total = 0

    def add(self, text: str) -> None:
        """Append ``text``."""
        self.total += len(text)
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text and self._tail_cap > 0:
            self._tail.append(text)
            self._tail_len += len(text)
            if self._tail_len > 2 * self._tail_cap:
                kept = "".join(self._tail)[-self._tail_cap:]
                self._tail, self._tail_len = [kept], len(kept)

    def parts(self) -> tuple[str, str, int]:
        """``(head, tail, characters cut between them)``."""
        head = "".join(self._head)
        tail = "".join(self._tail)[-self._tail_cap:] if self._tail_cap > 0 else ""
        return head, tail, self.total - len(head) - len(tail)


class Batcher:
    """Hands text to ``sink`` at most once per ``interval`` seconds, at most ``max_chars`` at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sink: Callable[[str], None], interval: float,
                 max_chars: int) -> None:
        self._loop, self._sink = loop, sink
        self._interval, self._max = interval, max_chars
        self._pending: list[str] = []
        self._pending_len = 0
        self._skipped = 0
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def add(self, text: str) -> None:
        """Queue ``text``; send now if the last batch is old enough, else at the next slot."""
        self._pending.append(text)
        self._pending_len += len(text)
        if self._pending_len > 2 * self._max:
            self._trim()
        if self._timer is None:
            wait = self._last + self._interval - self._loop.time()
            if wait <= 0:
                self.flush()
            else:
                self._timer = self._loop.call_later(wait, self.flush)

    def _trim(self) -> None:
        joined = "".join(self._pending)
        self._skipped += len(joined) - self._max
        self._pending, self._pending_len = [joined[-self._max:]], self._max

    def flush(self) -> None:
        """Send what is queued now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        if self._pending_len > self._max:
            self._trim()
        text = "".join(self._pending)
        if self._skipped:
            text = f"[… {self._skipped} characters not shown …]\n{text}"
        self._pending, self._pending_len, self._skipped = [], 0, 0
        self._last = self._loop.time()
        self._sink(text)


class _Watch:
    """The output pipe and the exit of one running command (its launcher), watched from the event loop.

    The exit is seen without reaping it: call :meth:`reap` once its group is gone.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, proc: subprocess.Popen[bytes], limits: ShellLimits,
                 on_output: Callable[[str], None] | None) -> None:
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.kept = HeadTail(limits.head_chars, limits.tail_chars)
        self._loop, self._proc = loop, proc
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._batcher = (Batcher(loop, on_output, limits.stream_interval, limits.stream_max_chars)
                         if on_output is not None else None)
        assert proc.stdout is not None
        self._out = proc.stdout.fileno()
        os.set_blocking(self._out, False)
        loop.add_reader(self._out, self._read)
        self._pidfd = _pidfd(proc.pid)
        self._poll: asyncio.TimerHandle | None = None
        if self._pidfd is not None:
            loop.add_reader(self._pidfd, self._check_exit)
        else:
            self._check_exit()

    def _read(self) -> None:
        try:
            data = os.read(self._out, READ_CHUNK_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self._take(self._decoder.decode(data))
        else:
            self._loop.remove_reader(self._out)
            _settle(self.closed)

    def _check_exit(self) -> None:
        if _exited(self._proc.pid):
            if self._pidfd is not None:
                self._loop.remove_reader(self._pidfd)
            _settle(self.exited)
        elif self._pidfd is None:
            self._poll = self._loop.call_later(EXIT_POLL_SECONDS, self._check_exit)

    def _take(self, text: str) -> None:
        if text:
            self.kept.add(text)
            if self._batcher is not None:
                self._batcher.add(text)

    def close(self) -> None:
        """Stop watching, close the pipe, and send the last output."""
        self._loop.remove_reader(self._out)
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
        if self._poll is not None:
            self._poll.cancel()
        assert self._proc.stdout is not None
        self._proc.stdout.close()
        self._take(self._decoder.decode(b"", final=True))
        if self._batcher is not None:
            self._batcher.flush()

    def reap(self) -> None:
        """Collect the exit status; if the command still runs (a second cancel), kill its group and reap in a
        thread."""
        if self.exited.done():
            self._proc.wait()
            return
        signal_group(self._proc.pid, signal.SIGKILL)
        threading.Thread(target=self._proc.wait, name=f"reap-{self._proc.pid}", daemon=True).start()


async def run_command(command: str, root: Path, *, confinement: Confinement, timeout: float,
                      on_output: Callable[[str], None] | None = None, cancelled: asyncio.Event | None = None,
                      env: Mapping[str, str] | None = None, limits: ShellLimits = ShellLimits()) -> ShellResult:
    """Run ``command`` with bash in ``root`` until it exits, times out or is cancelled.

    Args:
        command: the shell text.
        root: the working folder.
        confinement: the sandbox and rules it runs under.
        timeout: seconds before the command and everything it started are stopped.
        on_output: receives output text as it arrives (batched).
        cancelled: when set, the command is stopped; when already set, it never starts.
        env: the environment; default :func:`child_env` (no provider keys).
        limits: output and stop limits.

    Returns:
        How it ended and its bounded output. If the awaiting task is cancelled,
        the group is stopped first and the cancellation propagates.

    Raises:
        OSError: bash could not start (missing shell, missing folder), or the sandbox could not be set up.
    """
    if cancelled is not None and cancelled.is_set():
        return ShellResult(None, 0.0, False, True, "", "", 0, 0, NOT_STARTED)
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    proc = confinement.popen([SHELL, "-c", command], cwd=root, env=dict(child_env() if env is None else env),
                             grace=limits.kill_grace, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True, bufsize=0)
    watch = _Watch(loop, proc, limits, on_output)
    ended, left, pipe_held = EXITED, 0, False
    try:
        ended = await _until_end(watch.exited, timeout, cancelled)
    finally:
        try:
            if watch.exited.done() and not has_proc():
                watch.reap()
            left = await stop_group(proc.pid, limits.kill_grace)
            await _wait_for(watch.exited, KILL_WAIT_SECONDS)
            pipe_held = not await _wait_for(watch.closed, DRAIN_SECONDS)
        finally:
            watch.close()
            watch.reap()
    head, tail, cut = watch.kept.parts()
    return ShellResult(proc.returncode, time.monotonic() - started, ended == TIMED_OUT, ended == CANCELLED,
                       head, tail, cut, watch.kept.total, proc.pid, left, pipe_held)


async def _until_end(exited: asyncio.Future[None], timeout: float, cancelled: asyncio.Event | None) -> str:
    """Wait for whichever comes first: the exit, the time limit, the cancel flag."""
    flag = asyncio.ensure_future(cancelled.wait()) if cancelled is not None else None
    try:
        waiters: set[asyncio.Future[object]] = {exited} if flag is None else {exited, flag}
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if flag is not None:
            flag.cancel()
    if exited.done():
        return EXITED
    return CANCELLED if cancelled is not None and cancelled.is_set() else TIMED_OUT


async def _wait_for(future: asyncio.Future[None], seconds: float) -> bool:
    """Whether ``future`` completed within ``seconds`` (it is never cancelled here)."""
    if not future.done():
        await asyncio.wait({future}, timeout=seconds)
    return future.done()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` exits (Linux 5.3+), or ``None``."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _exited(pid: int) -> bool:
    """Whether child ``pid`` has exited, without reaping it."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True
