"""The planner's grep against ripgrep on a copy of the Python standard library.

The tree is every ``.py`` file of this interpreter's standard library
(about 1,800 files), copied to a temporary folder. For each of the
planner's patterns (two literals, the second with dots that match any
character, and a regex), the planner's grep tool (``ReadOnlyTools.grep``,
engine ``auto`` and engine ``re2``) and plain ``rg -n`` are each timed
several times in this run; the best times are compared. Every pattern
matches fewer lines than the tool's hit limit, so every engine reads the
whole tree. Beside wall time, the CPU time each call spent (its process
and its children) is compared: on a busy machine the wall ratio drifts
towards the CPU ratio, so both are printed, with the load average. The copy
is left to settle first (:data:`~ljtui.core.planner.grep_scan.SETTLED_NS`):
a folder changed in the last two seconds is read again by every search,
one older only when it changed.

    python bench/grep.py [--runs 40] [--tree DIR] [--hostile]

Prints ``grep ratio vs rg: X`` for each pattern and ``worst grep ratio vs
rg`` over them (target: at most 1.25).

With ``--hostile`` it also measures hostile input, each grep in a fresh
process: the wall time of a pattern that takes either engine minutes on one
5 MB line, as a ratio to the time bound (target: close to 1), and the peak
memory of a file with a million matching lines and of one 5 MB line with
five million matches, as a ratio to the same process grepping a small file.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable

from ljtui.core.planner.grep import GREP_MAX_FILE_BYTES, GREP_MAX_HITS, GREP_TIMEOUT_S, find_rg
from ljtui.core.planner.grep_scan import SETTLED_NS
from ljtui.core.planner.tools import ReadOnlyTools

PATTERNS: tuple[tuple[str, str], ...] = (
    ("literal", "getrandbits"),
    ("literal", "socket.create_connection"),
    ("regex", r"def \w+_cache\("),
)
"""(kind, pattern) pairs measured; each matches fewer lines than the hit limit."""
DEFAULT_RUNS = 40
SKIPPED_STDLIB_DIRS = ("site-packages", "__pycache__")
TARGET_RATIO = 1.25
"""Worst wall-time ratio of the planner's grep (engine ``auto``) to ``rg -n`` over :data:`PATTERNS`."""
HOSTILE_ENGINES = ("rg", "re2")
SLOW_PATTERN = "[ab]*a[ab]{600}c"
"""On one long line of random a/b, both engines fall back to their slow engines (minutes unbounded)."""
MILLION = 1_000_000
PROBE = """
import resource, sys, time
from pathlib import Path
from ljtui.core.planner.tools import ReadOnlyTools
started = time.perf_counter()
out = ReadOnlyTools(Path(sys.argv[1]), grep_engine=sys.argv[2]).grep(sys.argv[3], ".")
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, out.summary)
"""


def copy_stdlib(dest: Path) -> int:
    """Copy the standard library's ``.py`` files into ``dest``; return their count."""
    source = Path(sysconfig.get_path("stdlib"))
    count = 0
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d not in SKIPPED_STDLIB_DIRS]
        for name in files:
            if name.endswith(".py"):
                target = dest / Path(folder).relative_to(source) / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(folder) / name, target)
                count += 1
    return count


def cpu_seconds() -> float:
    """CPU time (user and system) of this process and its finished children so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_times(runs: int, fns: dict[str, Callable[[], object]]) -> dict[str, tuple[float, float]]:
    """Fastest of ``runs`` calls of each function: (wall seconds, CPU seconds), each the least seen.

    The functions take turns within each run, so load from other processes
    falls on all of them alike; one warm-up call each comes first.
    """
    for fn in fns.values():
        fn()
    wall = {name: float("inf") for name in fns}
    cpu = dict(wall)
    for _ in range(runs):
        for name, fn in fns.items():
            start, start_cpu = time.perf_counter(), cpu_seconds()
            fn()
            wall[name] = min(wall[name], time.perf_counter() - start)
            cpu[name] = min(cpu[name], cpu_seconds() - start_cpu)
    return {name: (wall[name], cpu[name]) for name in fns}


def measure(tree: Path, rg: str, runs: int) -> tuple[list[str], list[tuple[float, str]]]:
    """Report lines for each pattern (hits, times and ratios against rg), and (wall ratio, pattern) of the
    planner's grep for each."""
    lines, ratios = [], []
    for kind, pattern in PATTERNS:
        tools = {engine: ReadOnlyTools(tree, grep_engine=engine) for engine in ("auto", "re2")}
        times = best_times(runs, {
            "rg": lambda: subprocess.run([rg, "-n", pattern, str(tree)], capture_output=True),
            "auto": lambda: tools["auto"].grep(pattern, "."),
            "re2": lambda: tools["re2"].grep(pattern, "."),
        })
        counts = subprocess.run([rg, "-c", pattern, str(tree)], capture_output=True, text=True).stdout
        total = sum(int(line.rsplit(":", 1)[1]) for line in counts.splitlines())
        rg_wall, rg_cpu = times["rg"]
        lines.append(f"{kind} {pattern!r}: {total} matching lines (limit {GREP_MAX_HITS}); "
                     f"rg {rg_wall * 1000:.1f} ms (CPU {rg_cpu * 1000:.1f} ms)")
        for engine, label in (("auto", "grep"), ("re2", "re2 engine")):
            summary = tools[engine].grep(pattern, ".").summary
            wall, cpu = times[engine]
            lines.append(f"  planner grep ({engine}): {wall * 1000:.1f} ms (CPU {cpu * 1000:.1f} ms), {summary}")
            lines.append(f"  {label} ratio vs rg: {wall / rg_wall:.2f} (CPU {cpu / rg_cpu:.2f})")
        ratios.append((times["auto"][0] / rg_wall, pattern))
    return lines, ratios


def probe(tree: Path, engine: str, pattern: str) -> tuple[float, int, int, str]:
    """(seconds, peak RSS MB of the grepping process, of its largest child, summary) of one grep."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(tree), engine, pattern],
                         capture_output=True, text=True, check=True).stdout.split(maxsplit=3)
    return float(out[0]), int(out[1]), int(out[2]), out[3].strip()


def hostile_trees(root: Path) -> dict[str, tuple[Path, str]]:
    """The hostile cases: name -> (folder, pattern)."""
    cases = {"small file (reference)": ("small", "hit"), "one 5 MB a/b line, slow pattern": ("slow", SLOW_PATTERN),
             "a million matching lines": ("million", "hit"), "one 5 MB line, 5 million matches": ("long", "a")}
    for folder, _ in cases.values():
        (root / folder).mkdir()
    (root / "small" / "a.txt").write_text("hit\n")
    to_ab = bytes(ord("a") + (i & 1) for i in range(256))
    (root / "slow" / "ab.txt").write_bytes(random.Random(7).randbytes(GREP_MAX_FILE_BYTES - 1).translate(to_ab))
    (root / "million" / "m.txt").write_bytes(b"hit\n" * MILLION)
    (root / "long" / "a.txt").write_bytes(b"a" * (GREP_MAX_FILE_BYTES - 1) + b"\n")
    return {name: (root / folder, pattern) for name, (folder, pattern) in cases.items()}


def measure_hostile(root: Path) -> list[str]:
    """Report lines for the hostile cases, per engine."""
    lines = []
    cases = hostile_trees(root)
    for engine in HOSTILE_ENGINES:
        reference = None
        for name, (tree, pattern) in cases.items():
            seconds, rss, child_rss, summary = probe(tree, engine, pattern)
            reference = reference or rss
            lines.append(f"{engine} {name}: {seconds:.2f} s ({seconds / GREP_TIMEOUT_S:.2f}x the time bound), "
                         f"peak RSS {rss} MB ({rss / reference:.2f}x the reference; engine process {child_rss} MB); "
                         f"{summary}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="timed runs per engine (best counts)")
    parser.add_argument("--tree", type=Path, help="search this folder instead of a stdlib copy")
    parser.add_argument("--hostile", action="store_true", help="also measure time and memory on hostile input")
    args = parser.parse_args()
    rg = find_rg()
    if rg is None:
        print("ripgrep (rg) not found: install the ripgrep wheel to compare")
        return 1
    with tempfile.TemporaryDirectory(prefix="ljtui-grep-bench-") as tmp:
        tree = args.tree
        if tree is None:
            tree = Path(tmp) / "stdlib"
            files = copy_stdlib(tree)
            time.sleep(SETTLED_NS / 1e9)  # a repository's folders are not seconds old between two searches
            print(f"tree: copy of the standard library, {files} .py files, left to settle "
                  f"{SETTLED_NS / 1e9:g} s")
        else:
            print(f"tree: {tree}")
        print(f"rg: {rg}; {os.cpu_count()} CPUs, load average {load()}")
        lines, ratios = measure(tree.resolve(), rg, args.runs)
        for line in lines:
            print(line)
        worst, pattern = max(ratios)
        print(f"worst grep ratio vs rg: {worst:.2f} ({pattern!r}; load average {load()}); "
              f"target <= {TARGET_RATIO:g}")
        if args.hostile:
            hostile = Path(tmp) / "hostile"
            hostile.mkdir()
            for line in measure_hostile(hostile):
                print(line)
    return 0


def load() -> str:
    """The 1-minute load average (other processes' demand for the CPUs while measuring)."""
    return f"{os.getloadavg()[0]:.2f}"


if __name__ == "__main__":
    raise SystemExit(main())
