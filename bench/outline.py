"""The repository outline on a copy of the Python standard library: cold, warm, and peak memory.

The tree is every ``.py`` file of this interpreter's standard library
(about 1,800 files), copied to a temporary folder (not a git repository, so
the folder is walked). Each measurement runs in a fresh interpreter, timed
from before ``import ljtui.core.outline`` to the rendered outline
(``build_index`` then ``render_outline`` at the default 2,000 tokens):

* cold: no cache; every file parsed (worker processes, and in one process);
* warm: the cache from the cold run, nothing changed;
* one file changed: the cache, one file rewritten (one parse, a new ranking).

Each is run several times and the best counts (other processes on the
machine slow some runs); CPU times are printed too, as they depend less on
what else runs. Peak memory is each process's own high-water mark
(``VmHWM`` in ``/proc/self/status``, which an ``execve`` resets, unlike
``ru_maxrss``): the building process, and a worker process reading its
share of the files.

In the same run, a reference: ``ast.parse`` of every file in one process,
nothing else (the floor for a one-process cold start). Aider's repo map on
the same copy, measured earlier on this machine kind, is printed as a
reference too (not measured here).

    python bench/outline.py [--runs 3] [--tree DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from ljtui.core.outline.cache import CACHE_DIR
from ljtui.core.outline.index import RACY_NS
from ljtui.core.statedir import AGENT_DIR

DEFAULT_RUNS = 3
WARM_RUNS = 10
"""Runs of each cheap measurement (warm, one file changed): more tries at a quiet moment."""
SKIPPED_STDLIB_DIRS = ("site-packages", "__pycache__")
TARGET_COLD_S = 3.0
TARGET_WARM_S = 0.2
TARGET_PEAK_MIB = 200.0
AIDER_COLD_S = 32.7
"""Aider's repo map, cold, on the same copy (measured earlier on this machine kind, not in this run)."""
AIDER_WARM_S = 17.6
"""Aider's repo map, warm, likewise."""
CHANGED_FILE = "json/decoder.py"
"""The file rewritten for the one-file-changed measurement."""
POLL_S = 0.01

PROBE = """
import json, resource, sys, time
started = time.perf_counter()
from pathlib import Path
from ljtui.core.outline import build_index, render_outline
workers = None if sys.argv[2] == "auto" else int(sys.argv[2])
index = build_index(Path(sys.argv[1]), workers=workers)
rendered = render_outline(index)
elapsed = time.perf_counter() - started
status = open("/proc/self/status").read()
peak_kib = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": elapsed, "peak_mib": peak_kib / 1024, "parsed": index.parsed, "read": index.read,
                  "cpu": own.ru_utime + own.ru_stime, "workers_cpu": children.ru_utime + children.ru_stime,
                  "files": len(index.files), "symbols": rendered.total, "shown": rendered.shown,
                  "skipped": index.skipped.describe(), "note": index.cache_note}))
"""
WORKER_PROBE = """
import json, pickle, sys, time
from pathlib import Path
from ljtui.core.outline.pool import split_batches
from ljtui.core.outline.files import list_sources
from ljtui.core.outline.parse import read_batch
from ljtui.core.secret_files import SecretFiles
root = Path(sys.argv[1])
items = [(path, language, None) for path, language in list_sources(root, SecretFiles()).files]
batch = split_batches(root, items, int(sys.argv[2]))[0]
payload = pickle.dumps((str(root), batch))
started = time.perf_counter()
root_text, batch = pickle.loads(payload)
out = pickle.dumps(read_batch(root_text, batch))
elapsed = time.perf_counter() - started
status = open("/proc/self/status").read()
peak_kib = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
print(json.dumps({"seconds": elapsed, "peak_mib": peak_kib / 1024, "files": len(batch), "out_mib": len(out) / 2**20}))
"""
REFERENCE = """
import ast, json, sys, time, warnings
from pathlib import Path
sources = [p.read_bytes() for p in sorted(Path(sys.argv[1]).rglob("*.py")) if ".agent" not in p.parts]
warnings.simplefilter("ignore")
started = time.perf_counter()
for source in sources:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        pass
print(json.dumps({"seconds": time.perf_counter() - started, "files": len(sources)}))
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


def settle(tree: Path) -> None:
    """Wait until no file of ``tree`` counts as just changed (those are hashed again on the next start)."""
    newest = max(p.stat().st_ctime_ns for p in tree.rglob("*.py"))
    while time.time_ns() <= newest + RACY_NS:
        time.sleep(POLL_S)


def run(code: str, *args: str) -> dict:
    """Run ``code`` in a fresh interpreter (its own folder off the import path) and return its JSON line."""
    done = subprocess.run([sys.executable, "-P", "-c", code, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def clear_cache(tree: Path) -> None:
    shutil.rmtree(tree / AGENT_DIR / CACHE_DIR, ignore_errors=True)


def best(runs: int, measure) -> dict:
    """The fastest of ``runs`` measurements (each a dict with ``seconds``); peaks are the highest seen."""
    results = [measure() for _ in range(runs)]
    fastest = min(results, key=lambda r: r["seconds"])
    if "peak_mib" in fastest:
        fastest = {**fastest, "peak_mib": max(r["peak_mib"] for r in results)}
    return fastest


def cold(tree: Path, workers: str) -> dict:
    clear_cache(tree)
    return run(PROBE, str(tree), workers)


def changed(tree: Path) -> dict:
    path = tree / CHANGED_FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n\ndef added_by_the_bench():\n    pass\n" if "added_by_the_bench" not in text
                    else text.split("\n\ndef added_by_the_bench")[0], encoding="utf-8")
    return run(PROBE, str(tree), "auto")


def verdict(value: float, target: float) -> str:
    return f"{value / target:.2f}x the target ({'met' if value <= target else 'MISSED'})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="runs per measurement (best counts)")
    parser.add_argument("--tree", type=Path, help="outline a copy of this folder instead of the standard library")
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="ljtui-outline-bench-") as tmp:
        tree = Path(tmp) / "tree"
        if args.tree is None:
            print(f"tree: copy of the standard library, {copy_stdlib(tree)} .py files")
        else:
            shutil.copytree(args.tree, tree, symlinks=True, ignore=shutil.ignore_patterns(AGENT_DIR))
            print(f"tree: copy of {args.tree}")
        settle(tree)
        print(f"machine: {cpus} CPUs, load average {os.getloadavg()[0]:.2f} at start (other processes slow every "
              f"figure; compare figures of one run)")
        reference = best(args.runs, lambda: run(REFERENCE, str(tree)))
        pooled = best(args.runs, lambda: cold(tree, "auto"))
        alone = best(args.runs, lambda: cold(tree, "1"))
        clear_cache(tree)
        run(PROBE, str(tree), "auto")
        warm = best(max(args.runs, WARM_RUNS), lambda: run(PROBE, str(tree), "auto"))
        one = best(max(args.runs, WARM_RUNS), lambda: changed(tree))
        worker = run(WORKER_PROBE, str(tree), str(max(cpus or 1, 2)))
        print(f"outline: {pooled['files']} files, {pooled['symbols']:,} definitions, {pooled['shown']} shown "
              f"in 2,000 tokens; not read: {pooled['skipped'] or 'none'}")
        print(f"reference (this run): ast.parse of every file, one process: {reference['seconds']:.2f} s")
        print(f"cold, worker processes: {pooled['seconds']:.2f} s, {verdict(pooled['seconds'], TARGET_COLD_S)}; "
              f"{pooled['seconds'] / reference['seconds']:.2f}x the ast.parse reference")
        print(f"cold, one process: {alone['seconds']:.2f} s, {verdict(alone['seconds'], TARGET_COLD_S)}; "
              f"worker processes are {alone['seconds'] / pooled['seconds']:.2f}x faster")
        workers = max(cpus or 1, 1)
        print(f"cold CPU time: building process {pooled['cpu']:.2f} s + workers {pooled['workers_cpu']:.2f} s in all; "
              f"with {workers} idle CPUs that is about {pooled['cpu'] + pooled['workers_cpu'] / workers:.2f} s of wall "
              f"time (an estimate: CPU time also grows on a loaded machine)")
        print(f"warm: {warm['seconds'] * 1000:.0f} ms ({warm['parsed']} parsed, {warm['read']} read; CPU time "
              f"{warm['cpu'] * 1000:.0f} ms), {verdict(warm['seconds'], TARGET_WARM_S)}")
        print(f"one file changed: {one['seconds'] * 1000:.0f} ms ({one['parsed']} parsed, outline ranked anew)")
        peak = max(pooled["peak_mib"], alone["peak_mib"], warm["peak_mib"])
        print(f"peak RSS: building process {peak:.0f} MiB (cold with workers {pooled['peak_mib']:.0f}, cold alone "
              f"{alone['peak_mib']:.0f}, warm {warm['peak_mib']:.0f}), {verdict(peak, TARGET_PEAK_MIB)}; "
              f"a worker process ({worker['files']} files) {worker['peak_mib']:.0f} MiB, "
              f"{verdict(worker['peak_mib'], TARGET_PEAK_MIB)}")
        print(f"reference (measured earlier on this machine kind, not in this run): aider repo map "
              f"cold {AIDER_COLD_S} s, warm {AIDER_WARM_S} s; this run: cold "
              f"{AIDER_COLD_S / pooled['seconds']:.1f}x faster, warm {AIDER_WARM_S / warm['seconds']:.0f}x faster")
        print(f"machine: load average {os.getloadavg()[0]:.2f} at the end")
    print(f"targets: cold <= {TARGET_COLD_S:g} s, warm <= {TARGET_WARM_S:g} s, peak <= {TARGET_PEAK_MIB:g} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
