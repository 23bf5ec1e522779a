"""Helpers for tests of running commands: process checks and waiting on conditions."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Callable

WAIT_SECONDS = 60.0
"""Longest a test waits for a condition (a loaded CI box is slow, never this slow)."""
POLL_SECONDS = 0.02


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs.

    A killed process whose parent died first is reparented to pid 1, and some
    container inits never reap: ``os.kill(pid, 0)`` then still finds a zombie,
    which runs nothing and holds no resources but its table entry. That
    zombie is never ours (see :func:`our_zombie`).
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state, _ = _stat(pid)
    return state not in (b"Z", b"X", None)


def our_zombie(pid: int) -> bool:
    """Whether ``pid`` is a zombie this test process failed to reap."""
    state, parent = _stat(pid)
    return state == b"Z" and parent == os.getpid()


def processes_in(folder: Path) -> list[int]:
    """Running processes whose working folder is ``folder`` (a zombie has none)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.readlink(f"/proc/{name}/cwd") == os.path.realpath(folder):
                found.append(int(name))
        except OSError:
            continue
    return found


def _stat(pid: int) -> tuple[bytes | None, int | None]:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None, None
    fields = raw[raw.rfind(b")") + 2:].split()
    return fields[0], int(fields[1])


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds; fail naming ``what`` after :data:`WAIT_SECONDS`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(POLL_SECONDS)


def read_pid(path: Path) -> int:
    return int(path.read_text(encoding="utf-8").strip())
