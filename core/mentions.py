"""What ``@`` in the prompt offers: the repository's files as git sees them, ranked by a fuzzy query.

:func:`list_candidates` asks git for the tracked files and the untracked ones
it does not ignore (``git ls-files -co --exclude-standard``); outside a git
repository, or when git fails, a bounded walk of the folder stands in. Secret
files (:class:`~ljtui.core.secret_files.SecretFiles`) and ljtui's own state
(``.agent/``) are never offered. Every folder that holds an offered file is
offered too, with a trailing ``/`` (``@folder/`` attaches its listing).
Both the listing and the candidates are bounded: a huge repository is cut,
and says so.

:func:`rank` orders candidates for what was typed after ``@``: every typed
character must appear in order (a subsequence, case ignored); matches in the
file's own name, runs of adjacent characters and characters at the start of a
word rank first, then shorter paths. Pure Python; call both from a worker.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from ljtui.core.childenv import child_env
from ljtui.core.secret_files import SecretFiles

MAX_CANDIDATES = 20_000
"""Files offered at most; a bigger repository's listing is cut (and says so)."""
MAX_WALK_ENTRIES = 50_000
"""Directory entries the fallback walk looks at, at most."""
LIST_TIMEOUT = 10.0
"""Seconds ``git ls-files`` may take before the walk stands in."""
READ_BYTES = 64 * 1024
MAX_SHOWN = 50
"""Ranked candidates returned for one query."""
STATE_DIRS = frozenset({".agent", ".git"})
"""Top-level folders never offered: ljtui's runtime state and git's own."""
WALK_SKIPPED = frozenset({".git", ".agent", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"})
"""Folders the fallback walk never enters (git is not there to say they are ignored)."""
WORD_START = frozenset("/_-. ")
"""Characters after which a match starts a word (and ranks higher)."""


@dataclass(frozen=True)
class Candidates:
    """What ``@`` offers: repository-relative paths (folders end in ``/``), and whether the listing was cut."""

    paths: tuple[str, ...]
    cut: bool = False
    source: str = "git"
    """``git`` or ``walk`` (no git repository, or git failed)."""


def list_candidates(root: Path, secrets: SecretFiles, *, limit: int = MAX_CANDIDATES) -> Candidates:
    """The files (and their folders) ``@`` offers in ``root``. Disk and process work: call from a worker."""
    listed = _git_files(root, limit)
    source = "git"
    if listed is None:
        listed, source = _walked_files(root, limit), "walk"
    files, cut = listed
    kept = sorted(f for f in files if offered(f, secrets))
    folders = sorted({f[:i + 1] for f in kept for i, ch in enumerate(f) if ch == "/"})
    return Candidates(tuple(folders) + tuple(kept), cut, source)


def offered(rel_path: str, secrets: SecretFiles) -> bool:
    """Whether ``rel_path`` (repository-relative, ``/``-separated) may be offered and attached."""
    first = rel_path.split("/", 1)[0]
    return first not in STATE_DIRS and not secrets.is_secret(rel_path)


def _git_files(root: Path, limit: int) -> tuple[list[str], bool] | None:
    """The files git lists (tracked, and untracked not ignored), read until ``limit`` are found, or ``None`` when
    git cannot list them (no repository, no git, or slower than :data:`LIST_TIMEOUT`)."""
    try:
        proc = subprocess.Popen(
            ["git", "-c", "core.quotepath=off", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=root, env=child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    timer = threading.Timer(LIST_TIMEOUT, proc.kill)
    timer.start()
    names: dict[str, None] = {}  # a conflicted file is listed once per stage
    rest = b""
    out = proc.stdout
    assert out is not None
    try:
        while len(names) <= limit:
            chunk = out.read1(READ_BYTES)
            if not chunk:
                break
            *whole, rest = (rest + chunk).split(b"\0")
            names.update((n.decode("utf-8", "surrogateescape"), None) for n in whole if n)
        cut = len(names) > limit
        if cut:
            proc.kill()
        code = proc.wait()
    finally:
        timer.cancel()
        out.close()
    if code != 0 and not cut:
        return None
    return list(names)[:limit], cut


def _walked_files(root: Path, limit: int) -> tuple[list[str], bool]:
    """The files below ``root`` found by a walk of at most :data:`MAX_WALK_ENTRIES` entries."""
    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in WALK_SKIPPED)
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        for name in sorted(files):
            seen += 1
            if len(found) >= limit or seen > MAX_WALK_ENTRIES:
                return found, True
            found.append(prefix + name)
        seen += len(dirs)
    return found, False


# --- ranking ---------------------------------------------------------------------------------


def rank(query: str, candidates: tuple[str, ...], *, limit: int = MAX_SHOWN) -> list[str]:
    """The candidates matching ``query`` best first (at most ``limit``); an empty query keeps their order,
    files before folders; a folder's path ending in ``/`` lists what it holds."""
    query = query.strip().lower()
    inside = [c for c in candidates if len(c) > len(query) and c.lower().startswith(query)] \
        if query.endswith("/") else []
    if inside:  # a folder typed whole: what is in it, nearest first
        return sorted(inside, key=lambda c: (c.count("/", len(query)) - c.endswith("/"), c.endswith("/"), c))[:limit]
    if not query:
        files = [c for c in candidates if not c.endswith("/")]
        return (files + [c for c in candidates if c.endswith("/")])[:limit]
    loose = re.compile(".*?".join(map(re.escape, query)), re.IGNORECASE)
    scored = []
    for path in candidates:
        if loose.search(path) is None:
            continue
        scored.append((-score(query, path), len(path), path))
    scored.sort()
    return [path for _, _, path in scored[:limit]]


def score(query: str, path: str) -> int:
    """How well lower-case ``query`` matches ``path`` (higher is better); 0 when it does not match at all."""
    lower = path.lower()
    trimmed = lower.rstrip("/")
    base_start = trimmed.rfind("/") + 1
    best = 0
    base = _subsequence(query, lower, base_start)
    if base:
        best = base + 40 + (60 if lower[base_start:].startswith(query) else 0)
    whole = _subsequence(query, lower, 0)
    best = max(best, whole)
    if query in lower:
        best += 30
    return best


def _subsequence(query: str, text: str, start: int) -> int:
    """The score of the best of a few left-to-right matches of ``query`` in ``text[start:]``; 0 for none.

    Each match starts at one of the first few places the first character occurs and takes each next
    character as early as it can: adjacent characters and characters starting a word score more.
    """
    best = 0
    first = text.find(query[0], start)
    tries = 0
    while first != -1 and tries < 8:
        total, position, previous = 0, first, -2
        for ch in query:
            position = text.find(ch, position)
            if position == -1:
                total = 0
                break
            total += 1
            if position == previous + 1:
                total += 8
            if position == 0 or text[position - 1] in WORD_START:
                total += 5
            previous = position
            position += 1
        best = max(best, total)
        tries += 1
        first = text.find(query[0], first + 1)
    return best
