"""The planner's grep engines: ripgrep when present, RE2 otherwise (PLN-4, PLN-5).

Both engines search the same files the same way: a directory is walked
without following symlinks, skipping version-control and cache folders
below it and ljtui's state folder, secret files
(:mod:`ljtui.core.secret_files`), files over :data:`GREP_MAX_FILE_BYTES`
and binary files (a NUL byte anywhere); hits come in path order, at most
:data:`GREP_MAX_HITS` matching lines. Neither opens a secret file: the RE2
walk checks each file with the rule before opening it; ripgrep is given
the rule as exclusion globs, and a listing of the files they leave out is
checked with the rule to count the secret ones and search the cleared
ones (:func:`_search_rg`), and whatever ripgrep reports is checked with
the rule again before it is kept. The starting path is resolved, links
included, and checked before anything runs.

Both run as child processes killed when the call's :data:`GREP_TIMEOUT_S`
has passed (:mod:`ljtui.core.planner.grep_proc`), so the bound covers the
whole call, however long one line is. Patterns are checked and compiled
with RE2 by the caller first, so both engines only ever see patterns a
linear-time engine can run.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.planner import grep_re2, grep_rg, grep_scan
from ljtui.core.planner.grep_proc import BoundedChild
from ljtui.core.planner.grep_re2 import MAX_LINE_CHARS
from ljtui.core.planner.grep_rg import RgMatch
from ljtui.core.repo import SKIP_DIRS
from ljtui.core.sandbox import in_state_dir, state_refusal
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
UNORDERED_HITS_FACTOR = 10
"""A ripgrep walk on every thread may report this many times the hit limit before it is stopped and walked
again in path order: below that, picking the first lines from all of them is cheaper than a second walk on
one thread."""
_SKIP = frozenset(SKIP_DIRS)


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
    """Secret files skipped (never searched, or their lines dropped); None when the count did not finish
    in time."""
    error: str = ""
    """Why the search could not run at all (the hits are then empty)."""


@functools.lru_cache(maxsize=1)
def find_rg() -> str | None:
    """The ripgrep binary: the one installed with this Python first, then PATH (looked for once)."""
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
    """Search the file or tree at ``base``, inside ``root``.

    ``base`` is resolved first (a link to ``.git`` is searched as ``.git``,
    a link to a secret file is that file); a ``base`` outside ``root`` or
    in ljtui's state folder is refused with :attr:`GrepOutcome.error`.

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
    real = base.resolve()
    shown_root = root if root is not None else (real if real.is_dir() else real.parent)
    real_root = shown_root.resolve()
    try:
        rel_parts = real.relative_to(real_root).parts
    except ValueError:
        return GrepOutcome(error=f"{str(base)!r} is outside the searched tree {str(shown_root)!r}")
    if in_state_dir(rel_parts):
        return GrepOutcome(error=state_refusal("/".join(rel_parts)))
    rg = find_rg() if engine in ("auto", "rg") else None
    outcome = None
    if rg is not None and real.is_dir():
        outcome = _search_rg(rg, pattern, real, real_root, secrets, max_hits, deadline)
    if outcome is None:
        outcome = _search_re2(pattern, real, real_root, secrets, max_hits, deadline)
    if shown_root != real_root:
        outcome.hits = [GrepHit(shown_root / h.path.relative_to(real_root), h.line, h.text) for h in outcome.hits]
    return outcome


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


@dataclass
class _Kept:
    """The lines ripgrep reported that the search keeps: each file's path is checked with the rule again.

    A file the rule calls secret is dropped and remembered (the globs kept
    ripgrep from it unless they missed a name: then it is counted as
    skipped all the same); a file in ljtui's state folder or in a skipped
    folder below the searched one (which the walk's globs leave out) is
    dropped too.
    """

    root: Path
    depth: int
    """Path components of the searched folder below ``root``."""
    secrets: SecretFiles
    max_hits: int
    hits: list[RgMatch] = field(default_factory=list)
    secret: set[str] = field(default_factory=set)
    """Secret files whose lines were dropped."""

    def add(self, matches: list[RgMatch]) -> None:
        """Keep one file's matches, unless the file is one no search returns."""
        rel = matches[0].rel
        if self.secrets.is_secret(rel):
            self.secret.add(rel)
            return
        parts = rel.split("/")
        if in_state_dir(parts) or any(name in _SKIP for name in parts[self.depth:-1]):
            return
        self.hits += matches

    @property
    def full(self) -> bool:
        """More lines than the limit are kept: the search has what it needs."""
        return len(self.hits) > self.max_hits

    def first(self) -> list[GrepHit]:
        """The kept lines in path order, each once, at most the limit."""
        unique = {(m.rel, m.line): m for m in self.hits}.values()
        ordered = sorted(unique, key=lambda m: (_path_order(m.rel), m.line))[:self.max_hits]
        return [GrepHit(self.root / m.rel, m.line, m.text) for m in ordered]


def _search_rg(rg: str, pattern: str, base: Path, root: Path, secrets: SecretFiles, max_hits: int,
               deadline: float) -> GrepOutcome | None:
    """Search the folder ``base`` with ripgrep; None when ripgrep cannot run the search (RE2 then runs).

    One walk on every thread searches what the rule's globs leave in
    (:func:`~ljtui.core.planner.grep_rg.walk_args`). While it runs, the
    files the globs leave out are found without being read
    (:func:`~ljtui.core.planner.grep_scan.scan`): the rule counts the secret
    ones and clears the rest (files the user allows), searched by name.
    """
    rel_base = base.relative_to(root).as_posix() if base != root else "."
    globs = secrets.globs()
    kept = _Kept(root, 0 if rel_base == "." else rel_base.count("/") + 1, secrets, max_hits)
    walker = _start_walk(rg, pattern, rel_base, globs, kept, deadline, in_order=False)
    if walker is None:
        return None
    outcome = GrepOutcome(engine="rg")
    try:
        left_out = grep_scan.scan(str(root), rel_base, grep_scan.matcher(globs), _SKIP, deadline) if globs else []
        if not _walk(walker, rg, pattern, rel_base, globs, kept, deadline, outcome):
            return None
    finally:
        walker.finish()
    if left_out is None:
        outcome.timed_out, outcome.secret_files = True, None
    else:
        skipped = {rel for rel in left_out if secrets.is_secret(rel)}
        cleared = sorted((rel for rel in left_out if rel not in skipped and _searchable(root / rel)),
                         key=_path_order)
        if not _search_named(rg, pattern, cleared, kept, deadline, outcome):
            return None
        outcome.secret_files = len(skipped | kept.secret)
    outcome.truncated = kept.full
    outcome.hits = kept.first()
    return outcome


def _start_walk(rg: str, pattern: str, rel_base: str, globs: tuple[str, ...], kept: _Kept, deadline: float, *,
                in_order: bool) -> BoundedChild | None:
    return _start_quietly(grep_rg.walk_args(
        rg, pattern, rel_base, secret_globs=globs, skip_dirs=SKIP_DIRS, max_file_bytes=GREP_MAX_FILE_BYTES,
        max_hits=kept.max_hits, in_order=in_order), kept.root, deadline)


def _walk(walker: BoundedChild, rg: str, pattern: str, rel_base: str, globs: tuple[str, ...], kept: _Kept,
          deadline: float, outcome: GrepOutcome) -> bool:
    """Read the walk on every thread, ``walker``; False when ripgrep cannot run the search.

    Its files come in any order, so it is read to its end while it reports
    at most :data:`UNORDERED_HITS_FACTOR` times the limit, and the first
    lines in path order are picked from all of them. Past that, it is
    stopped and run again in path order (on one thread, stopped once past
    the limit), as the RE2 walk goes.
    """
    unordered = UNORDERED_HITS_FACTOR * kept.max_hits
    if _read_rg(walker, kept, outcome, stop_after=unordered):
        return False
    if len(kept.hits) > unordered and not outcome.timed_out:
        kept.hits.clear()
        again = _start_walk(rg, pattern, rel_base, globs, kept, deadline, in_order=True)
        if again is None or _read_rg(again, kept, outcome, stop_after=kept.max_hits):
            return False
    return True


def _search_named(rg: str, pattern: str, files: list[str], kept: _Kept, deadline: float,
                  outcome: GrepOutcome) -> bool:
    """Search the cleared files ``files`` by name, in order, adding their lines to ``kept``; False when
    ripgrep cannot start."""
    found = _Kept(kept.root, kept.depth, kept.secrets, kept.max_hits)
    for batch in grep_rg.batches(files, grep_rg.RG_BATCH_ARG_BYTES):
        if outcome.timed_out or found.full:
            break
        child = _start_quietly(grep_rg.named_args(rg, pattern, batch, max_hits=kept.max_hits), kept.root, deadline)
        if child is None:
            return False
        _read_rg(child, found, outcome, stop_after=kept.max_hits)
    kept.hits += found.hits
    kept.secret |= found.secret
    return True


def _read_rg(child: BoundedChild, kept: _Kept, outcome: GrepOutcome, *, stop_after: int) -> bool:
    """Add one ripgrep run's lines to ``kept``, stopping it once ``kept`` holds more than ``stop_after``;
    whether it could not do the search (an error and no output at all, or it died of a signal not ours).

    A search that ran writes at least its summary, even when it failed to
    read some folder (exit status 2 too); one that could not run (a pattern
    ripgrep refuses, an unusable option) writes nothing; one that ran out of
    its memory bound (:data:`~ljtui.core.planner.grep_rg.RG_MEMORY_BYTES`)
    aborts, and the lines of the file it was in were never reported.
    """
    try:
        for matches in grep_rg.read_matches(child, kept.root, kept.max_hits):
            kept.add(matches)
            if len(kept.hits) > stop_after:
                break
    finally:
        code = child.finish()
    if child.expired.is_set():
        outcome.timed_out = True
    crashed = code < 0 and not child.killed
    return crashed or (code == grep_rg.RG_EXIT_ERROR and not child.wrote and not outcome.timed_out)


def _searchable(path: Path) -> bool:
    """Whether a listed file may be named to ripgrep: a regular file, not a link, within the size limit."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size <= GREP_MAX_FILE_BYTES


def _path_order(rel: str) -> list[str]:
    """Sort key of a ``/``-separated path: folder by folder, as the walks go."""
    return rel.split("/")


def _start_quietly(argv: list[str], root: Path, deadline: float) -> BoundedChild | None:
    try:
        return BoundedChild(argv, cwd=str(root), deadline=deadline, memory_bytes=grep_rg.RG_MEMORY_BYTES)
    except OSError:
        return None
