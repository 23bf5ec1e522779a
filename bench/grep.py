"""The planner's grep against ripgrep on a copy of the Python standard library.

The tree is every ``.py`` file of this interpreter's standard library
(about 1,800 files), copied to a temporary folder. For a literal and for a
regex, the planner's grep tool (``ReadOnlyTools.grep``, engine ``auto`` and
engine ``re2``) and plain ``rg -n`` are each timed several times in this
run; the best times are compared. Both patterns match fewer lines than the
tool's hit limit, so every engine reads the whole tree.

    python bench/grep.py [--runs 7] [--tree DIR]

Prints ``grep ratio vs rg: X`` for each pattern (target: at most 3).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable

from ljtui.core.planner.grep import GREP_MAX_HITS, find_rg
from ljtui.core.planner.tools import ReadOnlyTools

PATTERNS: tuple[tuple[str, str], ...] = (
    ("literal", "getrandbits"),
    ("regex", r"def \w+_cache\("),
)
"""(kind, pattern) pairs measured; each matches fewer lines than the hit limit."""
DEFAULT_RUNS = 7
SKIPPED_STDLIB_DIRS = ("site-packages", "__pycache__")
TARGET_RATIO = 3.0


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


def best_times(runs: int, fns: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Fastest of ``runs`` calls of each function, in seconds.

    The functions take turns within each run, so load from other processes
    falls on all of them alike; one warm-up call each comes first.
    """
    for fn in fns.values():
        fn()
    best = {name: float("inf") for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def measure(tree: Path, rg: str, runs: int) -> list[str]:
    """Report lines for each pattern: hits, times and ratios against rg."""
    lines = []
    for kind, pattern in PATTERNS:
        tools = {engine: ReadOnlyTools(tree, grep_engine=engine) for engine in ("auto", "re2")}
        times = best_times(runs, {
            "rg": lambda: subprocess.run([rg, "-n", pattern, str(tree)], capture_output=True),
            "auto": lambda: tools["auto"].grep(pattern, "."),
            "re2": lambda: tools["re2"].grep(pattern, "."),
        })
        counts = subprocess.run([rg, "-c", pattern, str(tree)], capture_output=True, text=True).stdout
        total = sum(int(line.rsplit(":", 1)[1]) for line in counts.splitlines())
        lines.append(f"{kind} {pattern!r}: {total} matching lines (limit {GREP_MAX_HITS}); "
                     f"rg {times['rg'] * 1000:.1f} ms")
        for engine, label in (("auto", "grep"), ("re2", "re2 engine")):
            summary = tools[engine].grep(pattern, ".").summary
            lines.append(f"  planner grep ({engine}): {times[engine] * 1000:.1f} ms, {summary}")
            lines.append(f"  {label} ratio vs rg: {times[engine] / times['rg']:.2f}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="timed runs per engine (best counts)")
    parser.add_argument("--tree", type=Path, help="search this folder instead of a stdlib copy")
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
            print(f"tree: copy of the standard library, {files} .py files")
        else:
            print(f"tree: {tree}")
        print(f"rg: {rg}")
        for line in measure(tree.resolve(), rg, args.runs):
            print(line)
    print(f"target: grep ratio vs rg <= {TARGET_RATIO:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
