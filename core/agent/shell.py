"""Running one ``bash`` command: streamed, bounded, and always stoppable.

The command runs as ``/bin/bash -c COMMAND`` in the repository root, in a
session (and so a process group) of its own, with the environment of
:func:`~ljtui.core.childenv.child_env` (no provider keys), standard input
from ``/dev/null`` and standard error merged into standard output. Because
the group has no controlling terminal, nothing in it can prompt on the
user's terminal (``git`` and ``ssh`` open ``/dev/tty`` for passwords).

Output is decoded as UTF-8 (bad bytes become U+FFFD) and goes two ways:

* to ``on_output`` while the command runs, batched to at most one call per
  :data:`STREAM_INTERVAL_SECONDS`, each call at most :data:`STREAM_MAX_CHARS`
  characters (the newest; what is skipped is counted in the text), so a
  command that prints a million lines costs the UI a few dozen events;
* to the result, as the first :data:`HEAD_CHARS` and last :data:`TAIL_CHARS`
  characters with the number cut from the middle.

The command ends when it exits, when its time is up, or when it is
cancelled (the awaiting task is cancelled, or ``cancelled`` is set). In
every case the whole group is stopped before :func:`run_command` returns or
raises: SIGTERM (and SIGCONT, so a stopped process sees it), then SIGKILL
after :data:`KILL_GRACE_SECONDS` for whatever still runs. That includes
background processes the command left behind after bash itself exited.
The bash process is reaped by asyncio's child watcher.

Limits: a process that leaves the group on purpose (``setsid``, a
double-forking daemon) is out of reach; the result says so when such a
process still holds the output pipe. A killed process whose parent died
first is reparented to pid 1 and reaped there.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from ljtui.core.childenv import child_env

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
KILL_WAIT_SECONDS = 5.0
"""Time the group has to vanish after SIGKILL (a process stuck in the kernel may take longer)."""
DRAIN_SECONDS = 2.0
"""Time the output pipe has to close once the group is gone."""
POLL_SECONDS = 0.05
"""How often the group is checked while it is being stopped."""
PROC = "/proc"
"""Where Linux lists processes; elsewhere a zombie counts as alive."""

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
        exit_code: bash's exit status; negative when a signal killed it (``-9``: SIGKILL).
        duration: seconds from start until the command and its group were gone.
        timed_out: the time limit ended it.
        cancelled: the caller ended it.
        head: the start of the output.
        tail: the end of the output (empty when everything fit in ``head``).
        cut_chars: characters left out between ``head`` and ``tail``.
        total_chars: characters the command printed.
        pid: bash's process id (also its process group id); :data:`NOT_STARTED` when
            ``cancelled`` was already set and nothing ran.
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


class _Collector(asyncio.SubprocessProtocol):
    """Receives the merged output and the exit of one command."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limits: ShellLimits,
                 on_output: Callable[[str], None] | None) -> None:
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.kept = HeadTail(limits.head_chars, limits.tail_chars)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._batcher = (Batcher(loop, on_output, limits.stream_interval, limits.stream_max_chars)
                         if on_output is not None else None)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._take(self._decoder.decode(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def _take(self, text: str) -> None:
        if text:
            self.kept.add(text)
            if self._batcher is not None:
                self._batcher.add(text)

    def finish(self) -> None:
        """Decode the last bytes and send what is still queued."""
        self._take(self._decoder.decode(b"", final=True))
        if self._batcher is not None:
            self._batcher.flush()


async def run_command(command: str, root: Path, *, timeout: float, on_output: Callable[[str], None] | None = None,
                      cancelled: asyncio.Event | None = None, env: Mapping[str, str] | None = None,
                      limits: ShellLimits = ShellLimits()) -> ShellResult:
    """Run ``command`` with bash in ``root`` until it exits, times out or is cancelled.

    Args:
        command: the shell text.
        root: the working folder.
        timeout: seconds before the command and everything it started are stopped.
        on_output: receives output text as it arrives (batched).
        cancelled: when set, the command is stopped.
        env: the environment; default :func:`child_env` (no provider keys).
        limits: output and stop limits.

    Returns:
        How it ended and its bounded output. If the awaiting task is cancelled,
        the group is stopped first and the cancellation propagates.

    Raises:
        OSError: bash could not start (missing shell, missing folder).
    """
    if cancelled is not None and cancelled.is_set():
        return ShellResult(None, 0.0, False, True, "", "", 0, 0, NOT_STARTED)
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    collector = _Collector(loop, limits, on_output)
    starting = asyncio.ensure_future(loop.subprocess_exec(
        lambda: collector, SHELL, "-c", command, cwd=root, env=dict(child_env() if env is None else env),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True))
    try:
        transport, _ = await asyncio.shield(starting)
    except asyncio.CancelledError:
        await _abandon(starting)
        raise
    pid = transport.get_pid()
    ended, left, pipe_held = EXITED, 0, False
    try:
        ended = await _until_end(collector.exited, timeout, cancelled)
    finally:
        try:
            left = await stop_group(pid, limits.kill_grace)
            await _wait_for(collector.exited, KILL_WAIT_SECONDS)
            pipe_held = not await _wait_for(collector.closed, DRAIN_SECONDS)
        finally:
            collector.finish()
            transport.close()
    head, tail, cut = collector.kept.parts()
    return ShellResult(transport.get_returncode(), time.monotonic() - started, ended == TIMED_OUT,
                       ended == CANCELLED, head, tail, cut, collector.kept.total, pid, left, pipe_held)


async def _abandon(starting: asyncio.Future[tuple[asyncio.SubprocessTransport, Any]]) -> None:
    """Kill a command whose start was cancelled, as soon as it has started (bash may already run)."""
    starting.add_done_callback(_kill_started)
    await asyncio.wait({starting})
    if not starting.cancelled() and starting.exception() is None:
        transport = starting.result()[0]
        try:
            await _until_gone(transport.get_pid(), KILL_WAIT_SECONDS)
        finally:
            transport.close()


def _kill_started(starting: asyncio.Future[tuple[asyncio.SubprocessTransport, Any]]) -> None:
    """SIGKILL the group of a started command (runs even if the caller was cancelled again)."""
    if not starting.cancelled() and starting.exception() is None:
        _signal_group(starting.result()[0].get_pid(), signal.SIGKILL)


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


async def stop_group(pgid: int, grace: float) -> int:
    """Stop every process of group ``pgid``: SIGTERM, then SIGKILL after ``grace`` seconds.

    SIGKILL is sent even when the wait is interrupted (the caller is cancelled again).

    Returns:
        How many processes still ran after SIGKILL (normally 0).
    """
    if not await _alive(pgid):
        return 0
    _signal_group(pgid, signal.SIGTERM)
    _signal_group(pgid, signal.SIGCONT)
    gone = False
    try:
        gone = await _until_gone(pgid, grace)
    finally:
        if not gone:
            _signal_group(pgid, signal.SIGKILL)
    if gone:
        return 0
    await _until_gone(pgid, KILL_WAIT_SECONDS)
    return await asyncio.to_thread(group_size, pgid)


async def _until_gone(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while await _alive(pgid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_SECONDS)
    return True


async def _alive(pgid: int) -> bool:
    """:func:`group_alive`, with the ``/proc`` scan (milliseconds) off the event loop."""
    return _has_members(pgid) and await asyncio.to_thread(group_alive, pgid)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (a zombie does not run)."""
    return group_size(pgid) > 0


def group_size(pgid: int) -> int:
    """How many processes of group ``pgid`` still run.

    ``killpg(pgid, 0)`` also finds zombies, which some container inits never
    reap, so on Linux a group it finds is counted from ``/proc``.
    """
    if not _has_members(pgid):
        return 0
    if not os.path.isdir(PROC):
        return 1
    return sum(1 for state, group in _proc_groups() if group == pgid and state not in (b"Z", b"X"))


def _has_members(pgid: int) -> bool:
    """Whether group ``pgid`` has any process, zombies included."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _proc_groups() -> list[tuple[bytes, int]]:
    """``(state, process group)`` of every process in ``/proc``."""
    found = []
    for name in os.listdir(PROC):
        if not name.isdigit():
            continue
        try:
            with open(f"{PROC}/{name}/stat", "rb") as stat:
                raw = stat.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2:].split()
        if len(fields) > 2 and fields[2].lstrip(b"-").isdigit():
            found.append((fields[0], int(fields[2])))
    return found
