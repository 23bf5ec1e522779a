"""The planner's grep engines: ripgrep when present, RE2 otherwise (PLN-4, PLN-5).

Both engines search the same files the same way: a directory is walked in
name order without following symlinks, skipping version-control and cache
folders below it, secret files (:mod:`ljtui.core.secret_files`: each file
the walk reaches is checked before anything opens it, and counted for the
note), files over :data:`GREP_MAX_FILE_BYTES` and binary files (a NUL byte
anywhere); at most :data:`GREP_MAX_HITS` matching lines are kept. Both run
as child processes killed when the call's :data:`GREP_TIMEOUT_S` has passed
(:mod:`ljtui.core.planner.grep_proc`), so the bound covers the whole call,
however long one line is. Patterns are checked and compiled with RE2 by the
caller first, so both engines only ever see patterns a linear-time engine
can run.
"""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.planner import grep_re2, grep_rg
from ljtui.core.planner.grep_proc import BoundedChild
from ljtui.core.planner.grep_re2 import MAX_LINE_CHARS
from ljtui.core.repo import SKIP_DIRS
from ljtui.core.secret_files import SecretFiles

GREP_MAX_HITS = 100
"""Matching lines returned by one grep call."""
GREP_MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are not searched."""
GREP_TIMEOUT_S = 10.0
"""Wall-clock bound of one whole grep call; partial results are returned."""
GREP_MAX_LINE_CHARS = MAX_LINE_CHARS
"""A matching line is cut to this many characters."""
WORKER_LINE_BYTES = 64 * 1024
"""Longest message the RE2 worker writes (its lines are already clipped)."""

ENGINES = ("auto", "rg", "re2")
"""Engine choices: ``auto`` uses ripgrep when its binary is found."""


@dataclass(frozen=True)
class GrepHit:
    """One matching line."""

    path: Path
    line: int
    text: str


@dataclass
class GrepOutcome:
    """The hits of one search and how the search ended."""

    hits: list[GrepHit] = field(default_factory=list)
    truncated: bool = False
    """More lines matched than were kept."""
    timed_out: bool = False
    """The time bound stopped the search; hits are partial."""
    engine: str = "re2"
    secret_files: int | None = 0
    """Secret files left out of the search; None when the count did not finish in time."""
    error: str = ""
    """Why the search could not run at all (the hits are then empty)."""


def find_rg() -> str | None:
    """The ripgrep binary: the one installed with this Python first, then PATH."""
    candidate = Path(sysconfig.get_path("scripts")) / "rg"
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which("rg")


def search(
    pattern: str,
    base: Path,
    *,
    root: Path | None = None,
    secrets: SecretFiles = SecretFiles(),
    engine: str = "auto",
    max_hits: int = GREP_MAX_HITS,
    timeout: float = GREP_TIMEOUT_S,
) -> GrepOutcome:
    """Search the file or tree at ``base`` (a real, sandboxed path).

    Args:
        pattern: an RE2 pattern already accepted by
            :func:`ljtui.core.regex_guard.compile_pattern`.
        base: file or directory to search.
        root: the sandbox root that secret-file rules and hit paths are
            relative to (default: ``base`` itself, or its folder for a file).
        secrets: which files are left out.
        engine: ``auto``, ``rg`` or ``re2``.
        max_hits: lines to keep.
        timeout: seconds the whole call may take; the search is stopped then.
    """
    deadline = time.monotonic() + timeout
    root = root if root is not None else (base if base.is_dir() else base.parent)
    rg = find_rg() if engine in ("auto", "rg") else None
    if rg is not None and base.is_dir():
        outcome = _search_rg(rg, pattern, base, root, secrets, max_hits, deadline)
        if outcome is not None:
            return outcome
    return _search_re2(pattern, base, root, secrets, max_hits, deadline)


def _search_re2(pattern: str, base: Path, root: Path, secrets: SecretFiles, max_hits: int,
                deadline: float) -> GrepOutcome:
    outcome = GrepOutcome(engine="re2")
    request = grep_re2.worker_request(pattern, str(base), str(root), secrets=secrets, max_hits=max_hits,
                                      max_file_bytes=GREP_MAX_FILE_BYTES, skip_dirs=SKIP_DIRS)
    try:
        child = BoundedChild(grep_re2.worker_argv(), cwd=str(root), deadline=deadline, stdin_data=request)
    except OSError as exc:
        outcome.error = f"the search process could not start ({exc.strerror or exc})"
        return outcome
    try:
        for raw in child.lines(WORKER_LINE_BYTES):
            message = _worker_message(raw)
            if message.get("type") == "secret":
                outcome.secret_files = (outcome.secret_files or 0) + 1
            elif message.get("type") == "hit":
                if len(outcome.hits) == max_hits:
                    outcome.truncated = True
                    break
                outcome.hits.append(GrepHit(root / message["path"], message["line"], message["text"]))
    finally:
        code = child.finish()
    outcome.timed_out = child.expired.is_set()
    if outcome.timed_out:
        outcome.secret_files = None
    elif code != 0 and not outcome.truncated:
        outcome.error = _failure(code, child.stderr)
    return outcome


def _failure(code: int, stderr: str) -> str:
    if code == grep_re2.EXIT_REFUSED and stderr.strip():
        return stderr.strip()
    last = stderr.strip().splitlines()[-1:] or ["no message"]
    return f"the search process failed (exit status {code}: {last[0][:200]})"


def _worker_message(raw: bytes) -> dict:
    try:
        message = json.loads(raw)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _search_rg(rg: str, pattern: str, base: Path, root: Path, secrets: SecretFiles, max_hits: int,
               deadline: float) -> GrepOutcome | None:
    """Search with ripgrep; None when it cannot start or refuses the pattern (RE2 then runs).

    ripgrep first lists the files under ``base``; the secret-file policy
    checks each listed path, and only the files it lets through are named
    to the searching ripgrep, so no secret file is ever opened for a search.
    """
    rel_base = base.relative_to(root).as_posix() if base != root else "."
    lister = _start_quietly(grep_rg.list_args(rg, rel_base, max_file_bytes=GREP_MAX_FILE_BYTES,
                                              skip_dirs=SKIP_DIRS), root, deadline)
    if lister is None:
        return None
    listed = grep_rg.listed_paths(lister)
    outcome = GrepOutcome(engine="rg")
    if listed is None:
        if not lister.expired.is_set():
            return None
        outcome.timed_out, outcome.secret_files = True, None
        return outcome
    checked = grep_rg.searchable(listed, secrets, deadline)
    if checked is None:
        outcome.timed_out, outcome.secret_files = True, None
        return outcome
    files, outcome.secret_files = checked
    for number, batch in enumerate(grep_rg.batches(files, grep_rg.RG_BATCH_ARG_BYTES)):
        if time.monotonic() >= deadline:
            outcome.timed_out = True
            break
        child = _start_quietly(grep_rg.search_args(rg, pattern, batch, max_hits=max_hits), root, deadline)
        if child is None:
            return None
        refused = _read_rg(child, root, max_hits, outcome)
        if refused and number == 0:
            return None
        if outcome.truncated or outcome.timed_out:
            break
    return outcome


def _read_rg(child: BoundedChild, root: Path, max_hits: int, outcome: GrepOutcome) -> bool:
    """Add one ripgrep run's hits to ``outcome``; whether it refused the pattern (an error before any output)."""
    saw_output = False
    try:
        for matches in grep_rg.read_matches(child, root, max_hits):
            saw_output = True
            outcome.hits.extend(GrepHit(root / m.rel, m.line, m.text) for m in matches)
            if len(outcome.hits) > max_hits:
                outcome.truncated = True
                break
    finally:
        code = child.finish()
    if child.expired.is_set():
        outcome.timed_out = True
    del outcome.hits[max_hits:]
    return code == grep_rg.RG_EXIT_ERROR and not saw_output and not outcome.timed_out


def _start_quietly(argv: list[str], root: Path, deadline: float) -> BoundedChild | None:
    try:
        return BoundedChild(argv, cwd=str(root), deadline=deadline)
    except OSError:
        return None
