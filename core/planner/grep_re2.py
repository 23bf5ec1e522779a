"""The RE2 grep engine, run as a worker process the time bound can kill (PLN-5).

``python -I -m ljtui.core.planner.grep_re2`` reads one JSON request on
stdin (:func:`worker_request` builds it) and writes one JSON object per
line on stdout: ``{"type": "hit", "path", "line", "text"}`` for a matching
line and ``{"type": "secret"}`` for each secret file it left out. It walks
the folder in name order without following symlinks, skips the folders it
is told to, secret files, files over the size limit and binary files (a NUL
byte anywhere), and stops one hit past the limit. Paths are relative to
the sandbox root, ``/``-separated.

Searching happens here rather than in the planner's process because one
RE2 call cannot be interrupted: a hostile pattern on one long line can run
for minutes, and only killing the process bounds it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Iterator

import re2

from ljtui.core.regex_guard import PatternRefused, compile_pattern
from ljtui.core.sandbox import is_state_name
from ljtui.core.secret_files import SecretFiles

WORKER_MODULE = "ljtui.core.planner.grep_re2"
"""The module run as the worker."""
MAX_LINE_CHARS = 300
"""A matching line is cut to this many characters."""
EXIT_REFUSED = 2
"""The worker's exit status for a request it cannot run (the reason is on stderr)."""


def worker_argv() -> list[str]:
    """The command that starts a worker: this Python, isolated from the environment and the folder."""
    return [sys.executable, "-I", "-m", WORKER_MODULE]


def worker_request(pattern: str, base: str, root: str, *, secrets: SecretFiles, max_hits: int,
                   max_file_bytes: int, skip_dirs: tuple[str, ...]) -> bytes:
    """The JSON request a worker reads from stdin."""
    return json.dumps({
        "pattern": pattern, "base": base, "root": root, "max_hits": max_hits, "max_file_bytes": max_file_bytes,
        "skip_dirs": list(skip_dirs), "secret_patterns": list(secrets.patterns), "allowed": list(secrets.allowed),
    }).encode("ascii")


def clip_line(raw: bytes) -> str:
    """A matching line as text, without its line break, cut to a readable length."""
    return clip_text(raw.decode("utf-8", "replace"))


def clip_text(text: str) -> str:
    """A matching line already decoded, without its line break, cut to a readable length."""
    text = text.rstrip("\r\n")
    if len(text) > MAX_LINE_CHARS:
        return text[:MAX_LINE_CHARS] + " …"
    return text


def walk(root: str, skip_dirs: tuple[str, ...]) -> Iterator[str]:
    """Regular files under ``root`` in name order; symlinks, ``skip_dirs`` and ljtui's state folder (in any
    case) left out.

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
            if entry.name not in skip_dirs and not is_state_name(entry.name):
                yield from walk(entry.path, skip_dirs)
        elif entry.is_file():
            yield entry.path


def read_searchable(path: str, max_bytes: int) -> bytes | None:
    """The file's bytes, or None when it is too large, binary or unreadable."""
    try:
        with open(path, "rb", buffering=0) as fh:
            if os.fstat(fh.fileno()).st_size > max_bytes:
                return None
            data = fh.readall()
    except OSError:
        return None
    return None if b"\0" in data else data


def matching_lines(regex: re2._Regexp, data: bytes) -> Iterator[tuple[int, str]]:
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


def run(request: dict[str, Any], emit: Any) -> None:
    """Search as ``request`` says, calling ``emit(message)`` for each output object.

    Raises:
        PatternRefused: the pattern cannot run.
    """
    regex = compile_pattern(request["pattern"])
    secrets = SecretFiles(tuple(request["secret_patterns"]), tuple(request["allowed"]))
    root, base, max_hits = request["root"], request["base"], request["max_hits"]
    skip_dirs = tuple(request["skip_dirs"])
    files = [base] if os.path.isfile(base) else walk(base, skip_dirs)
    hits = 0
    for path in files:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if secrets.is_secret(rel):
            emit({"type": "secret"})
            continue
        data = read_searchable(path, request["max_file_bytes"])
        if data is None:
            continue
        for line_no, text in matching_lines(regex, data):
            emit({"type": "hit", "path": rel, "line": line_no, "text": text})
            hits += 1
            if hits > max_hits:
                return


def main() -> int:
    """Run one request from stdin; exit 0, or :data:`EXIT_REFUSED` with the reason on stderr."""
    out = sys.stdout

    def emit(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    try:
        run(json.loads(sys.stdin.buffer.read()), emit)
    except PatternRefused as exc:
        print(exc, file=sys.stderr)
        return EXIT_REFUSED
    except BrokenPipeError:
        pass  # the caller has all the hits it wants
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
