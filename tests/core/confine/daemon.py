"""A process that leaves its owner on purpose, as a daemon does: it forks, calls ``setsid``, forks again, and the
grandchild appends a line to MARKER every 20 ms for as long as it lives.

    python daemon.py MARKER [ignore-term]

The first process returns once the grandchild has written its first line, so whoever started it knows it runs.
The grandchild's standard streams go to ``/dev/null``, as a daemon's do, so it holds no one's pipe. With
``ignore-term`` it ignores SIGTERM: only SIGKILL ends it.
"""

from __future__ import annotations

import os
import signal
import sys
import time

BEAT_SECONDS = 0.02
"""How often the grandchild appends a line."""


def main(marker: str, ignore_term: bool) -> None:
    ready_read, ready_write = os.pipe()
    middle = os.fork()
    if middle:
        os.close(ready_write)
        os.read(ready_read, 1)
        os.waitpid(middle, 0)
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    if ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    with open(marker, "a", encoding="utf-8") as out:
        while True:
            out.write("alive\n")
            out.flush()
            if ready_write >= 0:
                os.write(ready_write, b"x")
                os.close(ready_write)
                ready_write = -1
            time.sleep(BEAT_SECONDS)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] == ["ignore-term"])
