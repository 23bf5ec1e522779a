"""Benchmark: making a gated run's staging tree against a plain ``cp -r`` of the same tree, in one run.

Clones a repository (default: the pallets/click mirror, else any path given)
into a temporary folder, adds an uncommitted change and an untracked file,
then times, best of ``--repeat``:

* ``Workspace.create`` (git listing, per-file copy with mode and times,
  private git folder, manifest);
* ``cp -r`` of the working tree without ``.git`` (the reference: the least a
  copy can cost here, with no listing or ignore rules);
* ``content_hash`` and ``changes`` on the fresh workspace.

Prints each figure and ``create ratio vs cp -r: X``.

Usage: ``python bench/staging.py [REPO] [--repeat N]``
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from ljtui.core.gates.workspace import Workspace

DEFAULT_REPO = Path("/work/.mirror/pallets+click/repo")
DEFAULT_REPEAT = 5


def best(repeat: int, prepare: Callable[[int], None], run: Callable[[int], None]) -> float:
    """Fastest of ``repeat`` timed calls of ``run(i)``, each after an untimed ``prepare(i)``."""
    times = []
    for i in range(repeat):
        prepare(i)
        start = time.perf_counter()
        run(i)
        times.append(time.perf_counter() - start)
    return min(times)


def clone(source: Path, base: Path) -> Path:
    """A working clone of ``source`` with an uncommitted edit and an untracked file."""
    repo = base / "repo"
    subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True)
    readme = next(p for p in sorted(repo.iterdir()) if p.is_file() and not p.name.startswith("."))
    with open(readme, "a", encoding="utf-8") as fh:
        fh.write("\nan uncommitted line\n")
    (repo / "untracked.txt").write_text("not yet added\n", encoding="utf-8")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=DEFAULT_REPO)
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        repo = clone(args.repo, base)
        files = int(subprocess.run(["git", "-C", str(repo), "ls-files", "--cached", "--others", "--exclude-standard"],
                                   check=True, capture_output=True, text=True).stdout.count("\n"))
        size = sum(p.stat().st_size for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)

        def copy_prepare(i: int) -> None:
            shutil.rmtree(base / f"cp-{i}", ignore_errors=True)

        def copy_tree_only(i: int) -> None:
            target = base / f"cp-{i}"
            target.mkdir()
            entries = [str(p) for p in repo.iterdir() if p.name not in (".git", ".agent")]
            subprocess.run(["cp", "-r", *entries, str(target)], check=True)

        def stage_prepare(i: int) -> None:
            if f"run-{i}" in Workspace.list(repo):
                Workspace.open(repo, f"run-{i}").discard()

        cp_time = best(args.repeat, copy_prepare, copy_tree_only)
        create_time = best(args.repeat, stage_prepare, lambda i: Workspace.create(repo, f"run-{i}"))
        space = Workspace.open(repo, "run-0")
        hash_time = best(args.repeat, lambda i: None, lambda i: space.content_hash())
        changes_time = best(args.repeat, lambda i: None, lambda i: space.changes())
        print(f"repository: {args.repo} ({files} files, {size / 1e6:.1f} MB in the working tree)")
        print(f"cp -r of the working tree (reference): {cp_time * 1000:.1f} ms")
        print(f"Workspace.create: {create_time * 1000:.1f} ms")
        print(f"content_hash: {hash_time * 1000:.1f} ms")
        print(f"changes (nothing changed): {changes_time * 1000:.1f} ms")
        print(f"create ratio vs cp -r: {create_time / cp_time:.2f}")


if __name__ == "__main__":
    main()
