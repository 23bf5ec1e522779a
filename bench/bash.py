"""The bash tool's runner against ``subprocess.run`` in the same process.

Prints the median time of a trivial command and of ``git --version`` for
both (the runner adds a process group, a pidfd wait and a /proc scan), a
million-line stream (the runner keeps a head and tail and batches the
streamed output), and how often a slow stream reaches the UI.

    python bench/bash.py [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from ljtui.core.agent.procgroup import _proc_groups
from ljtui.core.agent.shell import run_command


def reference(command: str, root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(["/bin/bash", "-c", command], cwd=root, stdin=subprocess.DEVNULL, capture_output=True)
    return time.perf_counter() - started


async def ours(command: str, root: Path, sink=None) -> float:
    started = time.perf_counter()
    await run_command(command, root, timeout=60, on_output=sink)
    return time.perf_counter() - started


async def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="ljtui-bench-bash-"))
    for command in ("true", "git --version"):
        ref = statistics.median(reference(command, root) for _ in range(runs))
        mine = statistics.median([await ours(command, root) for _ in range(runs)])
        print(f"{command!r:18} subprocess.run {ref * 1000:6.1f} ms   run_command {mine * 1000:6.1f} ms   "
              f"ratio {mine / ref:4.2f}")
    streamed: list[str] = []
    ref = reference("seq 1 1000000", root)
    mine = await ours("seq 1 1000000", root, streamed.append)
    print(f"{'seq 1 1000000':18} subprocess.run {ref * 1000:6.1f} ms   run_command {mine * 1000:6.1f} ms   "
          f"ratio {mine / ref:4.2f}   {len(streamed)} output events, {sum(map(len, streamed)):,} characters shown")
    streamed = []
    took = await ours("for i in $(seq 1 200); do seq 1 500; sleep 0.005; done", root, streamed.append)
    print(f"200 bursts over {took:.2f} s: {len(streamed)} output events (at most one per 50 ms)")
    started, scans = time.perf_counter(), 100
    for _ in range(scans):
        _proc_groups()
    print(f"/proc scan: {(time.perf_counter() - started) / scans * 1000:.2f} ms for {len(_proc_groups())} processes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
