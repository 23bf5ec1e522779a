"""Driving ripgrep for the planner's grep: its arguments and its JSON output.

ripgrep runs from the sandbox root so that reported paths are
root-relative. A search is two steps, so that the secret-file policy sees
every file before anything reads it: ``rg --files`` lists the files under
the searched folder (reading none of them), each listed path goes through
the same :class:`~ljtui.core.secret_files.SecretFiles` policy the RE2 engine
uses, and only the files it lets through are named to the searching ripgrep
(in runs that fit a command line). ripgrep's own globs are not trusted with
the policy: they do not apply to a folder named as the search root (such as
``.git``) nor to a file named on the command line.

Output is read with bounded memory: ``--max-count`` stops a file at the hit
limit, and a message longer than :data:`RG_LINE_BYTES` (one long line with
many matches can make a JSON message of hundreds of megabytes) is never
held whole: only its path and line number are kept, and the line's text is
read back from the file.
"""

from __future__ import annotations

import base64
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ljtui.core.planner.grep_proc import READ_CHUNK_BYTES, BoundedChild
from ljtui.core.planner.grep_re2 import clip_line
from ljtui.core.sandbox import STATE_DIR
from ljtui.core.secret_files import SecretFiles

RG_EXIT_ERROR = 2
"""ripgrep's exit status for errors (bad pattern, unreadable path)."""
RG_DFA_SIZE_LIMIT_BYTES = 16 * 1024 * 1024
"""Memory ripgrep's regex engine may use for its DFA cache. ripgrep's own
default (1000M) lets one hostile pattern on one long line grow it to about
800 MB; at this size the same search used 36 MB and ran faster."""
RG_LINE_BYTES = 1024 * 1024
"""Longest JSON message from ripgrep that is parsed whole."""
RG_BATCH_ARG_BYTES = 256 * 1024
"""Bytes of file paths named to one searching ripgrep; Linux allows 2 MiB of arguments and
environment together, and one process per run of files costs a few milliseconds."""
POLICY_CHUNK = 4096
"""Listed paths checked against the secret-file policy between two looks at the deadline."""
_LINE_NUMBER = re.compile(rb',"line_number":(\d+),')
"""In a match message the line number follows the line's text. Inside a JSON
string every quote is escaped, so ``,"`` only occurs between fields."""
_NEEDLE_TAIL = 64
"""Bytes kept from one chunk to the next so the line-number field is found across chunks."""


@dataclass(frozen=True)
class RgMatch:
    """One matching line ripgrep reported, before its file is known to be text."""

    rel: str
    line: int
    text: str


def list_args(rg: str, rel_base: str, *, max_file_bytes: int, skip_dirs: tuple[str, ...]) -> list[str]:
    """ripgrep's arguments to list, without reading them, the files a search of ``rel_base`` covers.

    The listing walks as the RE2 engine does: hidden files included, ignore
    files not consulted, symlinks not followed, ``skip_dirs`` left out below
    ``rel_base`` (``rel_base`` itself is searched even when it is one, like
    ``.git``), files over ``max_file_bytes`` left out.
    """
    return [rg, "--files", "--null", "--no-config", "--hidden", "--no-ignore", "--sort", "path",
            "--max-filesize", str(max_file_bytes), *_skip_globs(skip_dirs), "--", rel_base]


def _skip_globs(skip_dirs: tuple[str, ...]) -> list[str]:
    """Globs that leave out folders named in ``skip_dirs``, and ljtui's state folder in any case, at any depth
    (as the RE2 walk does)."""
    return [*(arg for name in skip_dirs for arg in ("--glob", f"!{name}/")), "--iglob", f"!{STATE_DIR}/"]


def listed_paths(child: BoundedChild) -> list[str] | None:
    """The paths a :func:`list_args` child printed, as it printed them; None when it did not finish.

    Exit status 2 with a listing (some folder could not be read) still
    leaves a usable listing of everything else; with none, ripgrep could
    not run as asked.
    """
    data = child.read_all()
    code = child.finish()
    if child.expired.is_set() or code not in (0, 1, RG_EXIT_ERROR) or (code == RG_EXIT_ERROR and not data):
        return None
    return [os.fsdecode(raw) for raw in data.split(b"\0") if raw]


def searchable(listed: list[str], secrets: SecretFiles, deadline: float) -> tuple[list[str], int] | None:
    """The listed paths the policy lets be read, and how many secret ones were left out.

    None when the :func:`time.monotonic` ``deadline`` passes first (a huge
    listing takes seconds to check).
    """
    kept: list[str] = []
    for start in range(0, len(listed), POLICY_CHUNK):
        if time.monotonic() >= deadline:
            return None
        chunk = listed[start:start + POLICY_CHUNK]
        kept += [path for path in chunk if not secrets.is_secret(path.removeprefix("./"))]
    return kept, len(listed) - len(kept)


def batches(paths: list[str], limit: int) -> Iterator[list[str]]:
    """``paths`` in order, cut into runs whose command-line size stays under ``limit`` bytes."""
    batch: list[str] = []
    size = 0
    for path in paths:
        cost = len(os.fsencode(path)) + 1
        if batch and size + cost > limit:
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += cost
    if batch:
        yield batch


def search_args(rg: str, pattern: str, paths: list[str], *, max_hits: int) -> list[str]:
    """ripgrep's arguments to search exactly the files ``paths`` (relative to the sandbox root).

    ripgrep searches a file named on its command line whatever its globs,
    ignore rules or size limit say, so only files already checked by
    :func:`searchable` may be named here. ``--sort path`` keeps one thread,
    so files are reported in the order given.
    """
    return [
        rg, "--json", "--no-config", "--sort", "path", "--max-count", str(max_hits + 1),
        "--dfa-size-limit", str(RG_DFA_SIZE_LIMIT_BYTES), "--regexp", pattern, "--", *paths,
    ]


def read_matches(child: BoundedChild, root: Path, max_hits: int) -> Iterator[list[RgMatch]]:
    """The matches of each text file, file by file, as ripgrep reports them.

    Matches are held until ripgrep's ``end`` message says the file was not
    binary; a file holds at most ``max_hits + 1`` of them (``--max-count``).
    """
    pending: list[RgMatch] = []
    for raw in child.lines(RG_LINE_BYTES):
        message = _parse(child, raw, root)
        if message is None:
            continue
        kind, data = message.get("type"), message.get("data") or {}
        if kind == "begin":
            pending = []
        elif kind == "match" and len(pending) <= max_hits:
            pending.append(message["match"])
        elif kind == "end" and data.get("binary_offset") is None and pending:
            yield pending
            pending = []


def _parse(child: BoundedChild, raw: bytes, root: Path) -> dict[str, Any] | None:
    """One ripgrep message with any match turned into a :class:`RgMatch`; None for an unusable one."""
    if not raw.endswith(b"\n"):
        return _parse_long_match(child, raw, root)
    try:
        message = json.loads(raw)
        if message.get("type") == "match":
            data = message["data"]
            message["match"] = RgMatch(_rel(data["path"]), int(data["line_number"]),
                                       clip_line(_field_bytes(data["lines"])))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return message if isinstance(message, dict) else None


def _parse_long_match(child: BoundedChild, head: bytes, root: Path) -> dict[str, Any] | None:
    """A match message too long to hold: keep its path and line number, skip the rest."""
    prefix = b'{"type":"match","data":{"path":'
    if not head.startswith(prefix):
        child.drain_line()
        return None
    try:
        path_field, _ = json.JSONDecoder().raw_decode(head.decode("utf-8", "replace"), len(prefix))
    except ValueError:
        child.drain_line()
        return None
    line = _find_line_number(child, head)
    if line is None:
        return None
    rel = _rel(path_field)
    return {"type": "match", "data": {}, "match": RgMatch(rel, line, _line_text(root / rel, line))}


def _find_line_number(child: BoundedChild, head: bytes) -> int | None:
    """Read on through the current line until its line-number field; skip the rest of the line."""
    window = head
    while True:
        found = _LINE_NUMBER.search(window)
        if found is not None:
            if not window.endswith(b"\n"):
                child.drain_line()
            return int(found.group(1))
        if window.endswith(b"\n"):
            return None
        chunk = child.stdout.readline(READ_CHUNK_BYTES)
        if not chunk:
            child.cut_line = True
            return None
        window = window[-_NEEDLE_TAIL:] + chunk


def _line_text(path: Path, line: int) -> str:
    """The clipped text of line ``line`` of ``path``, read from the file (at most the grep size limit)."""
    try:
        with open(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if number == line:
                    return clip_line(raw)
    except OSError:
        pass
    return ""


def _rel(field: dict[str, Any]) -> str:
    text = field["text"] if "text" in field else os.fsdecode(base64.b64decode(field["bytes"]))
    return text.removeprefix("./")


def _field_bytes(field: dict[str, Any]) -> bytes:
    return field["text"].encode("utf-8", "surrogatepass") if "text" in field else base64.b64decode(field["bytes"])
