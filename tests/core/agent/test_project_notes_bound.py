"""A huge ``AGENTS.md`` / ``CLAUDE.md`` is read only up to the prompt's bound: no memory or time spent on the rest.

The files are sparse: 200 MB each on disk costs nothing to make, but reading
one whole would cost 200 MB of memory (and more decoded). The notes are
read in a child process that reports how much its peak resident memory grew.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ljtui.core.agent.project import NOTES_FILES, NOTES_MAX_CHARS

HUGE_BYTES = 200 * 1024 * 1024
MAX_GROWTH_BYTES = 5 * 1024 * 1024
"""Peak memory reading both notes may add."""
MAX_SECONDS = 5.0
"""Generous for a loaded machine; reading 400 MB would take far longer."""
CHILD = """
import json, resource, sys, time
from pathlib import Path
from ljtui.core.agent.project import project_notes
from ljtui.core.secret_files import SecretFiles

policy = SecretFiles()
project_notes(Path(sys.argv[1]) / "warm-up", policy)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
notes = project_notes(Path(sys.argv[1]), policy)
took = time.perf_counter() - started
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"growth_kib": after - before, "seconds": took, "chars": len(notes), "notes": notes[-300:]}))
"""


def test_huge_sparse_notes_cost_neither_memory_nor_time(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "warm-up").mkdir(parents=True)
    for name in NOTES_FILES:
        with open(repo / name, "wb") as handle:
            handle.write(b"Run the tests first.\n")
            handle.truncate(HUGE_BYTES)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, str(repo)], capture_output=True, text=True, timeout=60,
                          check=True)
    report = json.loads(done.stdout)
    assert report["growth_kib"] * 1024 < MAX_GROWTH_BYTES, report
    assert report["seconds"] < MAX_SECONDS and time.perf_counter() - started < 30, report
    assert report["chars"] < len(NOTES_FILES) * (NOTES_MAX_CHARS + 200), report
    assert f"cut at {NOTES_MAX_CHARS} characters" in report["notes"]
