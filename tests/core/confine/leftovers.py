"""Watching for processes that outlive their owner: a double-forking ``setsid`` daemon that keeps writing a marker
file (:mod:`tests.core.confine.daemon`), and how a test tells it is gone."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

DAEMON = str(Path(__file__).with_name("daemon.py"))
"""The daemon's script: ``python daemon.py MARKER [ignore-term]``."""
QUIET_SECONDS = 0.25
"""How long a marker must stay the same size to show its writer is gone (the daemon writes every 20 ms)."""
WAIT_SECONDS = 30.0
"""Longest a test waits for a daemon to vanish when its owner stops it in the background."""


def daemon_command(marker: Path, *, ignore_term: bool = False) -> str:
    """Shell text that starts the daemon writing ``marker`` and returns once it runs."""
    return f"{sys.executable} {DAEMON} {marker}{' ignore-term' if ignore_term else ''}"


def holders(marker: Path) -> list[int]:
    """Live processes (seen from here, namespaces included) whose command line names ``marker``."""
    wanted = str(marker).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if wanted not in Path(f"/proc/{name}/cmdline").read_bytes():
                continue
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            found.append(int(name))
    return found


def growing(marker: Path) -> bool:
    """Whether something still appends to ``marker``."""
    before = marker.stat().st_size
    time.sleep(QUIET_SECONDS)
    return marker.stat().st_size != before


def assert_gone(marker: Path) -> None:
    """The daemon that wrote ``marker`` ran, and neither runs nor writes any more."""
    assert marker.exists() and marker.read_text().startswith("alive\n"), "the daemon never ran"
    assert holders(marker) == [], "the daemon outlived its owner"
    assert not growing(marker), "something still writes the marker"


def wait_gone(marker: Path, seconds: float = WAIT_SECONDS) -> None:
    """Wait until no process holds ``marker`` (up to ``seconds``), then :func:`assert_gone`."""
    deadline = time.monotonic() + seconds
    while holders(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert_gone(marker)


def kill_holders(marker: Path) -> None:
    """SIGKILL whatever still holds ``marker`` (a test that failed leaves nothing running)."""
    for pid in holders(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture
def marker(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A marker path in the test's folder; any daemon still writing it is killed when the test ends."""
    path = tmp_path / "marker"
    yield path
    kill_holders(path)
