"""Driving ripgrep for the planner's grep: its arguments and its JSON output.

ripgrep runs from the sandbox root so that reported paths are
root-relative. A folder search is one ripgrep walk on every thread that
never opens a file the secret-file rule could name: its exclusion globs
come from :meth:`~ljtui.core.secret_files.SecretFiles.globs`, which match
every secret file (and perhaps more). The files they leave out are found
beside it (:mod:`ljtui.core.planner.grep_scan`) and the rule itself says
which are secret and which it clears (searched by name here). ripgrep's
globs do not apply to the folder named as the search root, nor to a file
named on the command line: the caller checks those, and checks every
reported path with the rule again.

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
from dataclasses import dataclass
from json.decoder import scanstring
from pathlib import Path
from typing import Any, Iterator

from ljtui.core.planner.grep_proc import READ_CHUNK_BYTES, BoundedChild
from ljtui.core.planner.grep_re2 import clip_line, clip_text
from ljtui.core.sandbox import STATE_DIR

RG_EXIT_ERROR = 2
"""ripgrep's exit status for errors (bad pattern, unreadable path)."""
RG_DFA_SIZE_LIMIT_BYTES = 16 * 1024 * 1024
"""Memory ripgrep's regex engine may use for its DFA cache. ripgrep's own
default (1000M) lets one hostile pattern on one long line grow it to about
800 MB; at this size the same search used 36 MB and ran faster."""
RG_MEMORY_BYTES = 256 * 1024 * 1024
"""ripgrep's data memory (``RLIMIT_DATA``). Its JSON printer holds a whole matching line's message: one 5 MB
line with five million matches made ripgrep's walk use 519 MB. Past this bound ripgrep stops, and the RE2
engine searches instead (30 MB for the same line); a normal search uses a few tens of megabytes."""
RG_LINE_BYTES = 1024 * 1024
"""Longest JSON message from ripgrep that is parsed whole."""
RG_BATCH_ARG_BYTES = 256 * 1024
"""Bytes of file paths named to one searching ripgrep; Linux allows 2 MiB of arguments and
environment together."""
_LINE_NUMBER = re.compile(rb',"line_number":(\d+),')
"""In a match message the line number follows the line's text. Inside a JSON
string every quote is escaped, so ``,"`` only occurs between fields."""
_NEEDLE_TAIL = 64
"""Bytes kept from one chunk to the next so the line-number field is found across chunks."""
_BEGIN = b'{"type":"begin",'
_END = b'{"type":"end",'
_NOT_BINARY = b'"binary_offset":null'
_MATCH_PATH = '{"type":"match","data":{"path":{"text":"'
_MATCH_LINES = '},"lines":{"text":"'
_MATCH_NUMBER = '},"line_number":'
WALK = ("--no-config", "--hidden", "--no-ignore")
"""How every ripgrep here walks: hidden files included, ignore files and config files not read, symlinks
not followed (as the RE2 engine walks)."""


@dataclass(frozen=True)
class RgMatch:
    """One matching line ripgrep reported, before its file is known to be text."""

    rel: str
    line: int
    text: str


def walk_args(rg: str, pattern: str, rel_base: str, *, secret_globs: tuple[str, ...], skip_dirs: tuple[str, ...],
              max_file_bytes: int, max_hits: int, in_order: bool) -> list[str]:
    """ripgrep's arguments to search the folder ``rel_base``, never opening a file ``secret_globs`` match.

    The walk is the RE2 engine's (see :data:`WALK`), with ``skip_dirs``
    left out below ``rel_base`` and files over ``max_file_bytes`` not
    searched. ``in_order`` reports files in path order, on one thread;
    otherwise every thread searches and files come in any order.
    """
    return [rg, "--json", *WALK, *(("--sort", "path") if in_order else ()), "--max-filesize", str(max_file_bytes),
            *_limits(max_hits), *walk_filters(secret_globs, skip_dirs), "--regexp", pattern, "--", rel_base]


def walk_filters(secret_globs: tuple[str, ...], skip_dirs: tuple[str, ...]) -> list[str]:
    """The globs of a walk: every file but those ``secret_globs`` match, every folder but those named in
    ``skip_dirs`` and ljtui's state folder (in any case), at any depth below the walk's root.

    ripgrep lets the last glob that matches a path decide (a glob ending in
    ``/`` matches only folders), and once any glob keeps something it leaves
    out every file no glob keeps: so ``*`` keeps everything, the secret
    globs leave their files out, ``*/`` takes every folder back (folders are
    never secret), and the folders never searched go last. Every one is a
    ``--glob``: ripgrep applies ``--iglob`` globs after all ``--glob`` ones,
    whatever the command line's order, so case is spelt out (``[aA]``).
    """
    secret = ["--glob", "*", "--glob", f"!{one_glob(secret_globs)}", "--glob", "*/"] if secret_globs else []
    state = "".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in STATE_DIR)
    return [*secret, *(arg for name in skip_dirs for arg in ("--glob", f"!{name}/")), "--glob", f"!{state}/"]


def one_glob(globs: tuple[str, ...]) -> str:
    """``globs`` (each ``**/`` and a tail without braces) as one alternation ``**/{tail,tail,…}``.

    ripgrep matches each path against every glob it is given; one
    alternation is matched in one pass (on the standard library, the 36
    secret globs given one by one cost the walk about 4.5 ms of CPU, their
    alternation about 1.6 ms).
    """
    return "**/{" + ",".join(glob.removeprefix("**/") for glob in globs) + "}"


def named_args(rg: str, pattern: str, paths: list[str], *, max_hits: int) -> list[str]:
    """ripgrep's arguments to search exactly the files ``paths`` (relative to the sandbox root), in order.

    ripgrep searches a file named on its command line whatever its globs,
    ignore rules or size limit say, so only files the secret-file rule
    cleared, and not over the size limit, may be named here.
    """
    return [rg, "--json", "--no-config", "--sort", "path", *_limits(max_hits), "--regexp", pattern, "--", *paths]


def _limits(max_hits: int) -> list[str]:
    return ["--max-count", str(max_hits + 1), "--dfa-size-limit", str(RG_DFA_SIZE_LIMIT_BYTES)]


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
    """One ripgrep message with any match turned into a :class:`RgMatch`; None for an unusable one.

    ``begin`` and ``end`` messages (two per matching file) are read by
    their first bytes, as only an ``end``'s binary offset is used: ripgrep
    writes the type first, and inside a JSON string every quote is escaped,
    so ``"binary_offset":null`` is found only as that field.
    """
    if not raw.endswith(b"\n"):
        return _parse_long_match(child, raw, root)
    if raw.startswith(_BEGIN):
        return {"type": "begin"}
    if raw.startswith(_END):
        return {"type": "end", "data": {"binary_offset": None if _NOT_BINARY in raw else 0}}
    quick = _quick_match(raw)
    if quick is not None:
        return {"type": "match", "match": quick}
    try:
        message = json.loads(raw)
        if message.get("type") == "match":
            data = message["data"]
            message["match"] = RgMatch(_rel(data["path"]), int(data["line_number"]),
                                       clip_line(_field_bytes(data["lines"])))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return message if isinstance(message, dict) else None


def _quick_match(raw: bytes) -> RgMatch | None:
    """A match message in its usual form (path and line as text, then the line number), read up to the
    line number only; None for any other form, which :func:`json.loads` then reads whole."""
    try:
        text = raw.decode("utf-8")
        if not text.startswith(_MATCH_PATH):
            return None
        path, end = scanstring(text, len(_MATCH_PATH))
        if not text.startswith(_MATCH_LINES, end):
            return None
        line, end = scanstring(text, end + len(_MATCH_LINES))
        if not text.startswith(_MATCH_NUMBER, end):
            return None
        start = end + len(_MATCH_NUMBER)
        number = int(text[start:text.index(",", start)])
    except ValueError:
        return None
    return RgMatch(path.removeprefix("./"), number, clip_text(line))


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
