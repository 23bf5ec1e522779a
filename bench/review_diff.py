"""Benchmark: reviewing and applying a 2,000-hunk ``git diff``, against ``git apply`` in the same run.

Builds a git repository of 400 generated files (200 lines each), changes
five places in every file and takes ``git diff`` of it: 2,000 hunks. Then
times, each on a fresh copy of the repository, the best of ``--repeat`` runs:

* first screen: ``ReviewService.open_text`` from the diff's text to the
  ``PlanOpened`` event (the Diff pane's first picture: the diff read, the
  first blocks placed), against ``git apply --check`` of the same diff
  (git reading and placing every hunk, writing nothing);
* apply in process: read the diff, place every hunk, write every file in
  the patcher's journaled transaction, against ``git apply`` (a process);
* whole processes: ``ljtui apply --yes --no-checks DIFF`` against ``git apply DIFF``.

After each apply the two trees are compared byte for byte. Prints each time
and its ratio to git's.

Usage: ``python bench/review_diff.py [--files N] [--repeat N] [--keep]``
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ljtui.core.clock import SystemClock
from ljtui.core.edits.read_change import read_change
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import validate_plan
from ljtui.core.events import Event
from ljtui.core.review import events as R
from ljtui.core.review.service import ReviewService

LINES_PER_FILE = 200
HUNKS_PER_FILE = 5
DEFAULT_FILES = 400
DEFAULT_REPEAT = 3


def git(cwd: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def make_repo(base: Path, files: int) -> tuple[Path, bytes]:
    """A committed repository, and ``git diff`` of five changes to each of its files."""
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "bench")
    for f in range(files):
        path = repo / f"pkg{f % 20}" / f"mod{f}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"value_{f}_{n} = {n * 7 % 101}  # line {n} of module {f}\n"
                                for n in range(LINES_PER_FILE)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    step = LINES_PER_FILE // HUNKS_PER_FILE
    for f in range(files):
        path = repo / f"pkg{f % 20}" / f"mod{f}.py"
        lines = path.read_text().splitlines(keepends=True)
        for h in range(HUNKS_PER_FILE):
            at = h * step + step // 2
            lines[at] = lines[at].replace(" = ", " = 1 + ", 1)
        path.write_text("".join(lines))
    diff = git(repo, "diff", "--no-color")
    git(repo, "checkout", "-q", "--", ".")
    return repo, diff


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*.py") if ".git" not in p.parts and ".agent" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class FirstPicture:
    """A sink noting when the first picture of the review was emitted."""

    def __init__(self) -> None:
        self.at: float | None = None
        self.blocks = 0

    def emit(self, event: Event) -> None:
        if isinstance(event, R.PlanOpened) and self.at is None:
            self.at = time.perf_counter()
            self.blocks = len(event.blocks or ())


async def _never(_request):  # the bench opens a review; it never asks
    raise AssertionError("the review asked a question")


def first_screen(repo: Path, text: str) -> tuple[float, int]:
    sink = FirstPicture()
    service = ReviewService(repo, sink, _never, SystemClock())
    start = time.perf_counter()
    assert service.open_text(text, "bench.diff")
    assert sink.at is not None
    return sink.at - start, sink.blocks


def apply_in_process(repo: Path, text: str) -> float:
    start = time.perf_counter()
    plan, _ = read_change(text)
    report = validate_plan(plan, repo, evidence=False)
    assert report.ok, report.errors[:3]
    outcome = apply_changes(repo, list(report.changes.values()))
    assert outcome.ok, outcome.error
    return time.perf_counter() - start


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def best(repeat: int, base: Path, repo: Path, run) -> tuple[float, Path]:
    """The best time of ``run(copy)`` over ``repeat`` fresh copies, and the last copy."""
    times = []
    copy = repo
    for n in range(repeat):
        copy = base / f"copy-{run.__name__}-{n}"
        shutil.copytree(repo, copy, symlinks=True)
        times.append(run(copy))
    return min(times), copy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=DEFAULT_FILES)
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ljtui-review-bench-"))
    try:
        repo, diff = make_repo(base, args.files)
        patch = base / "change.diff"
        patch.write_bytes(diff)
        text = diff.decode()
        hunks = text.count("\n@@ ")
        print(f"diff: {args.files} files, {hunks:,} hunks, {len(diff) / 1e6:.1f} MB")
        ljtui = [str(Path(sys.executable).parent / "ljtui"), "apply", "--yes", "--no-checks", str(patch)]

        def screen(copy: Path) -> float:
            seconds, shown = first_screen(copy, text)
            screen.shown = shown
            return seconds

        def check(copy: Path) -> float:
            return timed(["git", "apply", "--check", str(patch)], copy)

        def ours(copy: Path) -> float:
            return apply_in_process(copy, text)

        def theirs(copy: Path) -> float:
            return timed(["git", "apply", str(patch)], copy)

        def ours_process(copy: Path) -> float:
            return timed(ljtui, copy)

        shown_s, _ = best(args.repeat, base, repo, screen)
        check_s, _ = best(args.repeat, base, repo, check)
        print(f"first screen: {shown_s * 1000:.0f} ms ({screen.shown:,} blocks, the first placed); "
              f"git apply --check: {check_s * 1000:.0f} ms; ratio {shown_s / check_s:.2f}")
        ours_s, ours_tree = best(args.repeat, base, repo, ours)
        theirs_s, theirs_tree = best(args.repeat, base, repo, theirs)
        same = tree_digest(ours_tree) == tree_digest(theirs_tree)
        print(f"apply in process: {ours_s * 1000:.0f} ms; git apply: {theirs_s * 1000:.0f} ms; "
              f"ratio {ours_s / theirs_s:.2f}; bytes equal to git apply's: {same}")
        proc_s, proc_tree = best(args.repeat, base, repo, ours_process)
        same_proc = tree_digest(proc_tree) == tree_digest(theirs_tree)
        print(f"whole process: ljtui apply {proc_s * 1000:.0f} ms; git apply {theirs_s * 1000:.0f} ms; "
              f"ratio {proc_s / theirs_s:.2f}; bytes equal: {same_proc}")
        return 0 if same and same_proc else 1
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
