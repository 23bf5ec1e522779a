"""Writers of one repository inside this process take turns, in order.

Every transaction of a repository holds its journal's lock (a ``flock`` that
another process sees). Inside one process, several writers may want it at
once: the tasks of a plan running concurrently, an apply from the Diff pane
beside an agent's write, an undo. They wait their turn here, first come first
served, for at most :data:`WAIT_BOUND` seconds; a waiting coroutine can be
cancelled and leaves the queue. Only another process holding the lock is a
refusal (:class:`~ljtui.core.edits.journal.JournalBusy`).

A turn is handed from one writer to the next directly, so a writer that
arrives while others wait can never overtake them.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator, Iterator

WAIT_BOUND = 60.0
"""Longest a writer waits for the writers before it in this process, in seconds."""


class WriteQueueTimeout(Exception):
    """The writers before this one did not finish within the bound."""

    def __init__(self, root: Path, waited: float) -> None:
        super().__init__(f"waited {waited:g} s for this session's other writes to {root} to finish")
        self.root = root
        self.waited = waited


@dataclass(eq=False)
class _Waiter:
    event: threading.Event | None = None
    loop: asyncio.AbstractEventLoop | None = None
    future: asyncio.Future[None] | None = None
    granted: bool = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@dataclass(eq=False)
class RepoQueue:
    """The turn of one repository: held by one writer, the others queued in arrival order."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _held: bool = False
    _waiters: deque[_Waiter] = field(default_factory=deque)

    @property
    def waiting(self) -> int:
        """Writers waiting now (not counting the one holding the turn)."""
        with self._lock:
            return len(self._waiters)

    def acquire(self, timeout: float) -> bool:
        """Wait for the turn in this thread; False when ``timeout`` seconds passed first."""
        with self._lock:
            if not self._held and not self._waiters:
                self._held = True
                return True
            waiter = _Waiter(event=threading.Event())
            self._waiters.append(waiter)
        assert waiter.event is not None
        waiter.event.wait(timeout)
        with self._lock:
            if waiter.granted:
                return True
            self._waiters.remove(waiter)
            return False

    async def acquire_async(self, timeout: float) -> bool:
        """Wait for the turn without blocking the event loop; False after ``timeout`` seconds.

        Cancelling the waiting coroutine takes it out of the queue (or passes on a turn it was just given).
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            if not self._held and not self._waiters:
                self._held = True
                return True
            waiter = _Waiter(loop=loop, future=loop.create_future())
            self._waiters.append(waiter)
        assert waiter.future is not None
        try:
            await asyncio.wait_for(waiter.future, timeout)
            return True
        except asyncio.TimeoutError:
            if self._give_up(waiter):
                return True
            return False
        except BaseException:
            if self._give_up(waiter):
                self.release()
            raise

    def _give_up(self, waiter: _Waiter) -> bool:
        """Leave the queue; True when the turn had already been handed to ``waiter``."""
        with self._lock:
            if waiter.granted:
                return True
            self._waiters.remove(waiter)
            return False

    def release(self) -> None:
        """End the current turn: the next writer in line gets it."""
        with self._lock:
            if not self._waiters:
                self._held = False
                return
            waiter = self._waiters.popleft()
            waiter.granted = True
        if waiter.event is not None:
            waiter.event.set()
        elif waiter.loop is not None and waiter.future is not None:
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # its loop is closed: nobody will take the turn, pass it on
                self.release()


_queues: dict[str, RepoQueue] = {}
_queues_lock = threading.Lock()


def queue_for(root: Path) -> RepoQueue:
    """The process's queue for the repository at ``root`` (one per real path)."""
    key = os.path.realpath(root)
    with _queues_lock:
        queue = _queues.get(key)
        if queue is None:
            queue = _queues[key] = RepoQueue()
        return queue


@contextmanager
def turn(root: Path, bound: float = WAIT_BOUND) -> Iterator[None]:
    """Hold ``root``'s turn in this thread, waiting for it at most ``bound`` seconds.

    Raises:
        WriteQueueTimeout: The writers before this one took longer than ``bound``.
    """
    queue = queue_for(root)
    if not queue.acquire(bound):
        raise WriteQueueTimeout(Path(root), bound)
    try:
        yield
    finally:
        queue.release()


@asynccontextmanager
async def async_turn(root: Path, bound: float = WAIT_BOUND) -> AsyncIterator[None]:
    """Hold ``root``'s turn in a coroutine, waiting for it at most ``bound`` seconds (cancellable).

    Raises:
        WriteQueueTimeout: The writers before this one took longer than ``bound``.
    """
    queue = queue_for(root)
    if not await queue.acquire_async(bound):
        raise WriteQueueTimeout(Path(root), bound)
    try:
        yield
    finally:
        queue.release()
