"""The planner's grep engines: ripgrep when present, RE2 otherwise (PLN-4, PLN-5).

Both engines search the same files the same way: a directory is walked in
name order without following symlinks, skipping version-control and cache
folders, files over :data:`GREP_MAX_FILE_BYTES` and binary files (a NUL
byte anywhere); at most :data:`GREP_MAX_HITS` matching lines are kept, and
a call stops after :data:`GREP_TIMEOUT_S`. Patterns are checked and
compiled with RE2 by the caller first, so both engines only ever see
patterns a linear-time engine can run.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import re2

GREP_MAX_HITS = 100
"""Matching lines returned by one grep call."""
GREP_MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are not searched."""
GREP_TIMEOUT_S = 10.0
"""Wall-clock bound of one grep call; partial results are returned."""
GREP_MAX_LINE_CHARS = 300
"""A matching line is cut to this many characters."""
SKIP_DIRS: tuple[str, ...] = (
    ".git", ".hg", ".svn", ".agent", "node_modules", "__pycache__", ".venv", ".mypy_cache",
    ".pytest_cache", ".tox",
)
"""Folders never searched: version control, ljtui's own state, dependencies, caches."""
RG_EXIT_ERROR = 2
"""ripgrep's exit status for errors (bad pattern, unreadable path)."""

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


def find_rg() -> str | None:
    """The ripgrep binary: the one installed with this Python first, then PATH."""
    candidate = Path(sysconfig.get_path("scripts")) / "rg"
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which("rg")


def search(
    regex: re2._Regexp,
    pattern: str,
    base: Path,
    *,
    engine: str = "auto",
    max_hits: int = GREP_MAX_HITS,
    timeout: float = GREP_TIMEOUT_S,
) -> GrepOutcome:
    """Search the file or tree at ``base`` (a real, sandboxed path).

    Args:
        regex: ``pattern`` compiled by :func:`ljtui.core.regex_guard.compile_pattern`.
        pattern: the pattern's source, handed to ripgrep.
        base: file or directory to search.
        engine: ``auto``, ``rg`` or ``re2``.
        max_hits: lines to keep.
        timeout: seconds before the search stops.
    """
    rg = find_rg() if engine in ("auto", "rg") else None
    if rg is not None and base.is_dir():
        outcome = _search_rg(rg, pattern, base, max_hits, timeout)
        if outcome is not None:
            return outcome
    return _search_re2(regex, base, max_hits, timeout)


def _search_re2(regex: re2._Regexp, base: Path, max_hits: int, timeout: float) -> GrepOutcome:
    deadline = time.monotonic() + timeout
    outcome = GrepOutcome(engine="re2")
    files = [str(base)] if base.is_file() else _walk(str(base))
    for path in files:
        if time.monotonic() > deadline:
            outcome.timed_out = True
            break
        data = _read_searchable(path)
        if data is None:
            continue
        for line_no, text in _matching_lines(regex, data):
            if len(outcome.hits) == max_hits:
                outcome.truncated = True
                return outcome
            outcome.hits.append(GrepHit(Path(path), line_no, text))
    return outcome


def _walk(root: str) -> Iterator[str]:
    """Regular files under ``root`` in name order; symlinks and SKIP_DIRS left out.

    Paths stay strings: building a ``Path`` per file costs more than the walk.
    """
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if entry.name not in SKIP_DIRS:
                yield from _walk(entry.path)
        elif entry.is_file():
            yield entry.path


def _read_searchable(path: str) -> bytes | None:
    """The file's bytes, or None when it is too large, binary or unreadable."""
    try:
        with open(path, "rb", buffering=0) as fh:
            if os.fstat(fh.fileno()).st_size > GREP_MAX_FILE_BYTES:
                return None
            data = fh.readall()
    except OSError:
        return None
    return None if b"\0" in data else data


def _matching_lines(regex: re2._Regexp, data: bytes) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line holding a match, in order."""
    pos, line_no, counted_to = 0, 1, 0
    while pos <= len(data):
        m = regex.search(data, pos)
        if m is None:
            return
        start = m.start()
        if start == len(data) and data.endswith(b"\n"):
            return  # an empty match after the final line break is not a line
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", start)
        if line_end < 0:
            line_end = len(data)
        line_no += data.count(b"\n", counted_to, line_start)
        counted_to = line_start
        yield line_no, clip_line(data[line_start:line_end])
        pos = line_end + 1


def clip_line(raw: bytes) -> str:
    """A matching line as text, without its line break, cut to a readable length."""
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    if len(text) > GREP_MAX_LINE_CHARS:
        return text[:GREP_MAX_LINE_CHARS] + " …"
    return text


def _search_rg(rg: str, pattern: str, base: Path, max_hits: int, timeout: float) -> GrepOutcome | None:
    """Search with ripgrep; None when it cannot start or refuses the pattern (RE2 then runs)."""
    args = [
        rg, "--json", "--no-config", "--hidden", "--no-ignore", "--sort", "path",
        "--max-filesize", str(GREP_MAX_FILE_BYTES),
        *(arg for name in SKIP_DIRS for arg in ("--glob", f"!{name}/")),
        "--regexp", pattern, "--", ".",
    ]
    outcome = GrepOutcome(engine="rg")
    expired = threading.Event()
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(args, cwd=base, stdout=subprocess.PIPE, stderr=errors,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError:
            return None
        timer = threading.Timer(timeout, lambda: proc.poll() is None and (expired.set(), _kill_group(proc)))
        timer.start()
        saw_output = False
        try:
            assert proc.stdout is not None
            pending: list[GrepHit] = []
            for raw in proc.stdout:
                saw_output = True
                msg = json.loads(raw)
                kind, data = msg.get("type"), msg.get("data", {})
                if kind == "begin":
                    pending = []
                elif kind == "match":
                    pending.append(GrepHit(base / _rg_text(data["path"]), data["line_number"],
                                           clip_line(_rg_bytes(data["lines"]))))
                elif kind == "end" and data.get("binary_offset") is None:
                    outcome.hits.extend(pending)
                    if len(outcome.hits) > max_hits:
                        outcome.truncated = True
                        break
        finally:
            if outcome.truncated:
                _kill_group(proc)
            proc.stdout.close()  # an early exit makes ripgrep stop on a broken pipe
            proc.wait()
            timer.cancel()
        outcome.timed_out = expired.is_set()
        if proc.returncode == RG_EXIT_ERROR and not saw_output:
            return None
    del outcome.hits[max_hits:]
    return outcome


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ripgrep and anything it started (its own session), so the pipe closes."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _rg_text(field_: dict[str, Any]) -> str:
    return field_["text"] if "text" in field_ else os.fsdecode(base64.b64decode(field_["bytes"]))


def _rg_bytes(field_: dict[str, Any]) -> bytes:
    return field_["text"].encode("utf-8") if "text" in field_ else base64.b64decode(field_["bytes"])
