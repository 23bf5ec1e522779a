"""Another process that holds a repository's journal lock, as a second ljtui would while it applies."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

HOLD = """
import sys
from pathlib import Path
from ljtui.core.edits import journal as J
with J.journal_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


@contextmanager
def held_by_another_process(root: Path) -> Iterator[int]:
    """Hold ``root``'s journal lock in a child process until the block ends; yields the child's pid."""
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        yield child.pid
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)
