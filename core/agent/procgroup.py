"""Stopping a process group: SIGTERM, a grace period, SIGKILL, and knowing when it is gone.

A group is named by its id, which is the pid of its first process (the
leader). The kernel never gives that number to another process while any
process of the group, a zombie leader included, still exists, so the
caller must keep the leader unreaped while it signals the group (see
:mod:`ljtui.core.agent.shell`); otherwise a signal could reach a stranger
that was given the recycled number.

``killpg(pgid, 0)`` also finds zombies — the unreaped leader, and killed
processes whose parent died first, which some container inits never reap —
so on Linux the live members are counted from ``/proc``. That scan takes a
few milliseconds and runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

KILL_WAIT_SECONDS = 5.0
"""Time the group has to vanish after SIGKILL (a process stuck in the kernel may take longer)."""
POLL_SECONDS = 0.05
"""How often the group is checked while it is being stopped."""
PROC = "/proc"
"""Where Linux lists processes."""
DEAD_STATES = (b"Z", b"X")
"""``/proc/<pid>/stat`` states of a process that runs nothing (zombie, dead)."""


def has_proc() -> bool:
    """Whether live members can be told from zombies (Linux ``/proc``)."""
    return os.path.isdir(PROC)


async def stop_group(pgid: int, grace: float) -> int:
    """Stop every live process of group ``pgid``: SIGTERM, then SIGKILL after ``grace`` seconds.

    SIGCONT follows SIGTERM so a stopped process sees it. SIGKILL is sent
    even when the wait is interrupted (the caller is cancelled again).

    Returns:
        How many processes still ran after SIGKILL (normally 0).
    """
    if not await _alive(pgid):
        return 0
    signal_group(pgid, signal.SIGTERM)
    signal_group(pgid, signal.SIGCONT)
    gone = False
    try:
        gone = await _until_gone(pgid, grace)
    finally:
        if not gone:
            signal_group(pgid, signal.SIGKILL)
    if gone:
        return 0
    await _until_gone(pgid, KILL_WAIT_SECONDS)
    return await asyncio.to_thread(group_size, pgid)


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to group ``pgid``; a group that is gone (or not ours) is skipped."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (a zombie does not run)."""
    return group_size(pgid) > 0


def group_size(pgid: int) -> int:
    """How many processes of group ``pgid`` still run (without ``/proc``: 1 while any exists)."""
    if not _has_members(pgid):
        return 0
    if not has_proc():
        return 1
    return sum(1 for state, group in _proc_groups() if group == pgid and state not in DEAD_STATES)


async def _until_gone(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while await _alive(pgid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_SECONDS)
    return True


async def _alive(pgid: int) -> bool:
    return _has_members(pgid) and await asyncio.to_thread(group_alive, pgid)


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
