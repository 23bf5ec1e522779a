"""Benchmark: durable ``apply`` against a naive in-place patcher, measured in one run.

Copies the Python standard library into a temporary git repository,
generates an EDIT plan of 1,000 blocks over 500 files, and times:

* parsing the plan (reported on its own: the naive baseline gets the blocks
  already parsed, so both sides start from the same blocks);
* validation alone and ``--dry-run`` (validation + unified diffs);
* apply: validation + snapshot + journal + temp/fsync/rename/dir-fsync + verify;
* the naive baseline: read, check ``old`` occurs once, ``str.replace``, write
  in place (no temp files, no fsync);
* whole processes: ``ljtui apply --yes --no-checks PLAN`` (the syntax
  checks are left out, as on the in-process side) against a ``python``
  process that parses the plan file with a regular expression and writes
  naively, interpreter start and imports included on both sides.

Each side runs on its own fresh copy; the best of ``--repeat`` runs is kept.
Prints ``apply ratio vs naive: X`` and ``whole-process ratio vs naive: X`` (targets ≤ 3).

Usage: ``python bench/apply.py [--repeat N] [--keep]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable

from ljtui.core.edits.apply import commit_plan, preview_plan
from ljtui.core.edits.diffs import render_diffs
from ljtui.core.edits.plan_format import EditPlan, parse_plan

FILE_COUNT = 500
BLOCKS_PER_FILE = 2
MIN_ANCHOR_CHARS = 24
MIN_FILE_BYTES = 2_000
DEFAULT_REPEAT = 3
TARGET_RATIO = 3.0
EDIT_SUFFIX = "  # edited by the benchmark"
EXCLUDED_DIRS = ("site-packages", "dist-packages", "__pycache__")


def stdlib_files() -> list[Path]:
    """Python sources of the standard library, sorted."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in lib.rglob("*.py")
                  if not set(p.relative_to(lib).parts) & set(EXCLUDED_DIRS) and p.is_file())


def make_repo(base: Path, files: list[Path]) -> Path:
    """A git repository holding a copy of the standard library sources."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    repo = base / "stdlib"
    for src in files:
        dst = repo / src.relative_to(lib)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.invalid", "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(base)}
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "stdlib"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    return repo


def unique_lines(data: str) -> list[str]:
    """Lines (with their line break) that occur exactly once as a substring."""
    lines = data.splitlines(keepends=True)
    return [ln for ln in lines if len(ln.strip()) >= MIN_ANCHOR_CHARS and ln.endswith("\n")
            and "`" not in ln and "~~~" not in ln and data.count(ln) == 1]


def make_plan(repo: Path) -> str:
    """``FILE_COUNT`` files × ``BLOCKS_PER_FILE`` blocks, each replacing one unique line."""
    blocks: list[str] = []
    number = 0
    for path in sorted(repo.rglob("*.py")):
        if len(blocks) == FILE_COUNT * BLOCKS_PER_FILE:
            break
        raw = path.read_bytes()
        if len(raw) < MIN_FILE_BYTES or b"\r" in raw:
            continue
        try:
            anchors = unique_lines(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue
        if len(anchors) < BLOCKS_PER_FILE:
            continue
        step = len(anchors) // BLOCKS_PER_FILE
        rel = path.relative_to(repo).as_posix()
        for k in range(BLOCKS_PER_FILE):
            line = anchors[k * step]
            number += 1
            blocks.append(f"### EDIT {number}\n\n- file: `{rel}`\n\n```old\n{line}```\n\n"
                          f"```new\n{line.rstrip(chr(10))}{EDIT_SUFFIX}\n```\n\n")
    if len(blocks) != FILE_COUNT * BLOCKS_PER_FILE:
        raise SystemExit(f"only {len(blocks)} blocks could be generated")
    return "".join(blocks) + '```json\n{"will_modify": [], "will_add": [], "will_remove": []}\n```\n'


def naive_apply(plan: EditPlan, root: Path) -> None:
    """The baseline: read, check once, replace, write in place; no temp file, no fsync."""
    for block in plan.blocks:
        path = root / block.file
        text = path.read_text(encoding="utf-8")
        if text.count(block.old) != 1:
            raise SystemExit(f"naive: block {block.number} does not match once")
        path.write_text(text.replace(block.old, block.new), encoding="utf-8")


NAIVE_PROCESS = r"""
import re, sys
from pathlib import Path
root = Path(sys.argv[2])
text = Path(sys.argv[1]).read_text(encoding="utf-8")
for name, old, new in re.findall(r"- file: `([^`]+)`\n\n```old\n(.*?)```\n\n```new\n(.*?)```", text, re.S):
    path = root / name
    data = path.read_text(encoding="utf-8")
    if data.count(old) != 1:
        sys.exit(f"naive: {name} does not match once")
    path.write_text(data.replace(old, new), encoding="utf-8")
"""
"""The whole-process baseline: read the plan file, replace, write in place."""


def run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed: {done.stderr[-500:]}")


def timed(action: Callable[[], object]) -> float:
    """Wall-clock seconds ``action`` takes."""
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def fresh_copy(template: Path, base: Path, name: str) -> Path:
    """A copy of the template repository, so each measured side starts from the same bytes.

    The copy is flushed to disk first, so neither side pays for its dirty pages.
    """
    target = base / name
    shutil.copytree(template, target, symlinks=True)
    os.sync()
    return target


def main() -> int:
    """Build the repository and plan, measure every side, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ljtui-bench-"))
    try:
        template = make_repo(base, stdlib_files())
        text = make_plan(template)
        parse_s = min(timed(lambda: parse_plan(text)) for _ in range(args.repeat))
        plan = parse_plan(text)
        validate_s = min(timed(lambda: preview_plan(plan, template)) for _ in range(args.repeat))
        dry_s = min(timed(lambda: render_diffs(preview_plan(plan, template).changes)) for _ in range(args.repeat))
        apply_runs, naive_runs = [], []
        for n in range(args.repeat):
            naive_root = fresh_copy(template, base, f"naive{n}")
            naive_runs.append(timed(lambda: naive_apply(plan, naive_root)))
            apply_root = fresh_copy(template, base, f"apply{n}")
            outcome: list[str] = []
            apply_runs.append(timed(lambda: outcome.append(
                commit_plan(preview_plan(plan, apply_root), apply_root, run_checks=False).result.status)))
            if outcome != ["done"]:
                raise SystemExit(f"apply did not finish: {outcome}")
        apply_s, naive_s = min(apply_runs), min(naive_runs)
        plan_file = base / "PLAN.md"
        plan_file.write_text(text, encoding="utf-8")
        process_runs, naive_process_runs = [], []
        for n in range(args.repeat):
            naive_root = fresh_copy(template, base, f"naive-process{n}")
            naive_process_runs.append(timed(lambda: run([sys.executable, "-c", NAIVE_PROCESS, str(plan_file),
                                                         str(naive_root)])))
            apply_root = fresh_copy(template, base, f"process{n}")
            process_runs.append(timed(lambda: run([sys.executable, "-m", "ljtui.cli.main", "apply", "--yes",
                                                   "--no-checks", str(plan_file), "--repo", str(apply_root)])))
        process_s, naive_process_s = min(process_runs), min(naive_process_runs)
        print(f"plan: {len(plan.blocks)} blocks over {len({b.file for b in plan.blocks})} files")
        print(f"parse: {parse_s * 1000:.1f} ms (not part of either side)")
        print(f"validation: {validate_s * 1000:.1f} ms")
        print(f"dry-run (validation + diffs): {dry_s * 1000:.1f} ms")
        print(f"apply (durable): {apply_s * 1000:.1f} ms")
        print(f"naive: {naive_s * 1000:.1f} ms")
        ratio = apply_s / naive_s
        print(f"apply ratio vs naive: {ratio:.2f} (target <= {TARGET_RATIO:g})")
        print(f"whole process: ljtui apply {process_s * 1000:.1f} ms, naive {naive_process_s * 1000:.1f} ms")
        print(f"whole-process ratio vs naive: {process_s / naive_process_s:.2f} (target <= {TARGET_RATIO:g})")
        return 0
    finally:
        if args.keep:
            print(f"kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
