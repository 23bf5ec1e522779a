"""Narrow, fast post-apply syntax checks of touched files, reported per file (SPEC EDIT-8).

Python, JSON, YAML and TOML are parsed in one bounded child process per
apply (``check_runner``): a file nested a hundred thousand levels deep,
one that exhausts memory or one that takes too long is a failed check
with a message, never an exception and never a lost result. JavaScript is
checked with ``node --check`` when ``node`` is on ``PATH``. Every child
gets an environment without provider keys.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ljtui.core.childenv import child_env
from ljtui.core.edits.check_runner import CHECK_TIMEOUT, CheckLimits, Verdict, WorkerJob, run_checks

__all__ = ["CHECKERS", "CHECK_TIMEOUT", "CheckLimits", "CheckResult", "check_files"]

MESSAGE_CHARS = 300
JS_SUFFIXES = (".js", ".mjs", ".cjs")
NODE = "node"
CHECKERS: dict[str, str] = {
    ".py": "python", ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
    **{suffix: NODE for suffix in JS_SUFFIXES},
}
"""Checker name per file suffix."""


@dataclass(frozen=True)
class CheckResult:
    """One file's check: which checker ran and what it said."""

    file: str
    checker: str
    ok: bool
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"file": self.file, "checker": self.checker, "ok": self.ok, "message": self.message}


def _node(node: str, path: Path, timeout: float) -> Verdict:
    try:
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, errors="replace",
                              stdin=subprocess.DEVNULL, timeout=timeout, env=child_env())
    except subprocess.TimeoutExpired:
        return Verdict(False, f"node --check took longer than {timeout:g}s")
    except OSError as exc:
        return Verdict(False, f"not checked: node could not run: {exc.strerror or exc}")
    if done.returncode == 0:
        return Verdict(True)
    return Verdict(False, done.stderr.strip() or f"exit {done.returncode}")


def _is_file(path: Path) -> bool | str:
    """True for a regular file, False when there is none; why, when it cannot be told."""
    try:
        return path.is_file()
    except OSError as exc:
        return f"not checked: cannot read the file: {exc.strerror or exc}"


def check_files(root: Path, paths: Iterable[str], limits: CheckLimits = CheckLimits()) -> list[CheckResult]:
    """Syntax-check each existing file of ``paths`` that has a checker; never raises.

    Args:
        root: The repository root ``paths`` are relative to.
        paths: Repo-relative files, in the order results are wanted.
        limits: Time, memory and depth bounds of the checks.

    Returns:
        One result per checked file, in the order of ``paths``. Files with
        no checker, missing files and JavaScript without ``node`` are skipped.
    """
    node = shutil.which(NODE)
    slots: list[tuple[str, str, Verdict | WorkerJob | Path]] = []
    for rel in paths:
        checker = CHECKERS.get(Path(rel).suffix.lower())
        if checker is None or (checker == NODE and node is None):
            continue
        path = root.absolute() / rel
        found = _is_file(path)
        if isinstance(found, str):
            slots.append((rel, checker, Verdict(False, found)))
        elif found:
            slots.append((rel, checker, path if checker == NODE else WorkerJob(rel, path, checker)))
    jobs = [slot for _, _, slot in slots if isinstance(slot, WorkerJob)]
    in_order = iter(run_checks(jobs, limits) if jobs else [])
    results = []
    for rel, checker, slot in slots:
        if isinstance(slot, WorkerJob):
            verdict = next(in_order)
        elif isinstance(slot, Path):
            verdict = _node(node or NODE, slot, limits.timeout)
        else:
            verdict = slot
        results.append(CheckResult(rel, checker, verdict.ok, verdict.message[:MESSAGE_CHARS]))
    return results
