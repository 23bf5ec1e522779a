"""A search process the time bound can stop, wherever it is (PLN-5).

Both grep engines run as child processes: ripgrep, and RE2 in a worker of
our own (:mod:`ljtui.core.planner.grep_re2`). One call into a regex engine
cannot be interrupted from Python, and RE2 can spend minutes on one long
line, so the only bound that holds for every pattern and every file is to
kill the process. A :class:`BoundedChild` starts one in its own session
with the environment of :func:`~ljtui.core.childenv.child_env` (no API
keys), kills its whole process group when the deadline passes, and hands
out its output line by line; a line cut off by the kill is dropped.

One watchdog thread, started once, keeps every child's deadline: starting
a thread per search would make each search wait for that thread to be
scheduled, which on a busy machine (ripgrep itself on every core) costs
milliseconds.
"""

from __future__ import annotations

import heapq
import itertools
import os
import signal
import subprocess
import tempfile
import threading
import time
from typing import IO, Callable, Iterator, Sequence

from ljtui.core.childenv import child_env

READ_CHUNK_BYTES = 1024 * 1024
"""Bytes read at a time from the child, and when a line is drained without being kept
(one long line can make a message of hundreds of megabytes)."""
STDERR_KEPT_BYTES = 4096
"""Bytes of the child's error output kept for messages."""


class Watchdog:
    """Calls each registered function once its deadline has passed, from one thread of its own."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._cancelled: set[int] = set()
        self._numbers = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: float, action: Callable[[], None]) -> int:
        """Call ``action`` at the :func:`time.monotonic` time ``deadline``; returns a number to :meth:`cancel` it."""
        number = next(self._numbers)
        with self._changed:
            heapq.heappush(self._due, (deadline, number, action))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="grep-watchdog", daemon=True)
                self._thread.start()
            self._changed.notify()
        return number

    def cancel(self, number: int) -> None:
        """Do not call the action registered as ``number`` (it may already have been called)."""
        with self._changed:
            if any(entry[1] == number for entry in self._due):
                self._cancelled.add(number)

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._changed.wait(self._due[0][0] - time.monotonic() if self._due else None)
                _deadline, number, action = heapq.heappop(self._due)
                if number in self._cancelled:
                    self._cancelled.discard(number)
                    continue
            action()


WATCHDOG = Watchdog()
"""The deadlines of every search child of this process."""


class BoundedChild:
    """A child process that is killed, with everything it started, at a deadline.

    Args:
        argv: the command.
        cwd: its working folder.
        deadline: a :func:`time.monotonic` time after which it is killed.
        stdin_data: bytes written to its standard input (then closed).
        memory_bytes: the most data memory (``RLIMIT_DATA``) it may use, set as soon as it started (``None``:
            no bound of ours).

    Raises:
        OSError: the command cannot start.
    """

    def __init__(self, argv: Sequence[str], *, cwd: str, deadline: float, stdin_data: bytes | None = None,
                 memory_bytes: int | None = None) -> None:
        self.expired = threading.Event()
        self.cut_line = False
        """A partial last line was dropped (the process died mid-line)."""
        self.wrote = False
        """The child wrote at least one complete line."""
        self.killed = False
        """This side killed the child (its deadline, or output it no longer needed)."""
        self.stderr = ""
        """The start of what the child wrote to stderr, once :meth:`finish` returned."""
        self._eof = False
        self._errors = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                list(argv), cwd=cwd, env=child_env(), start_new_session=True,
                stdin=subprocess.DEVNULL if stdin_data is None else subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._errors, bufsize=READ_CHUNK_BYTES,
            )
        except BaseException:
            self._errors.close()
            raise
        if memory_bytes is not None:
            _bound_memory(self.proc.pid, memory_bytes)
        self._watch = WATCHDOG.add(deadline, self._expire)
        if stdin_data is not None:
            self._feed(stdin_data)

    @property
    def stdout(self) -> IO[bytes]:
        """The child's standard output."""
        assert self.proc.stdout is not None
        return self.proc.stdout

    def _feed(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the child died early; its exit status and stderr say why

    def _expire(self) -> None:
        if self.proc.poll() is None:
            self.expired.set()
            self.kill()

    def kill(self) -> None:
        """Kill the child and anything it started (its own session), so its pipe closes."""
        self.killed = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def lines(self, limit: int) -> Iterator[bytes]:
        """Complete output lines, each at most ``limit`` bytes.

        A line longer than ``limit`` is yielded as its first ``limit`` bytes
        (without a line break) and the caller reads or drains the rest from
        :attr:`stdout`. A last line without a line break (the process was
        killed while writing it) is dropped and :attr:`cut_line` is set.
        """
        while True:
            raw = self.stdout.readline(limit)
            if not raw:
                self._eof = True
                return
            if not raw.endswith(b"\n") and len(raw) < limit:
                self._eof = self.cut_line = True
                return
            self.wrote = True
            yield raw

    def read_all(self) -> bytes:
        """The rest of the output, up to its end."""
        data = self.stdout.read()
        self._eof = True
        return data

    def drain_line(self) -> bool:
        """Skip the rest of the current line; False when the output ended first."""
        while True:
            chunk = self.stdout.readline(READ_CHUNK_BYTES)
            if not chunk:
                self._eof = True
                return False
            if chunk.endswith(b"\n"):
                return True

    def finish(self) -> int:
        """Wait for the child and return its exit status.

        A child whose output was not read to its end is killed first: the
        caller has what it needs. The time bound still applies while waiting.
        Calling it again returns the same status.
        """
        if self._errors.closed:
            return self.proc.wait()
        if not self._eof:
            self.kill()
        self.stdout.close()
        code = self.proc.wait()
        WATCHDOG.cancel(self._watch)
        self._errors.seek(0)
        self.stderr = self._errors.read(STDERR_KEPT_BYTES).decode("utf-8", "replace")
        self._errors.close()
        return code


def _bound_memory(pid: int, limit: int) -> None:
    """Lower the data memory limit of the child ``pid`` to ``limit`` (where the system can)."""
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_DATA, (limit, limit))
    except (ImportError, AttributeError, OSError, ValueError):
        pass
