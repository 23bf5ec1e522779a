"""Both sides of one file's change as the lines a diff matches: text lines, or hex lines for binary content.

Text lines are the UTF-8 text split after each line feed, every line with
its line break, a byte that is not UTF-8 kept (``surrogateescape``), so
joining the lines gives the bytes back exactly. When either side holds a
NUL byte, or more than :data:`BINARY_UNDECODABLE_SHARE` of its bytes are not
UTF-8, both sides are hex lines of :data:`HEX_WIDTH` bytes instead. How the
lines are drawn is :mod:`ljtui.core.edits.diff_drawing`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ljtui.core.display import shown_line
from ljtui.core.edits.validate import FileChange

HEX_WIDTH = 16
"""Bytes on one hex line."""
BINARY_UNDECODABLE_SHARE = 0.25
"""A side with more than this share of bytes that are not UTF-8 is drawn as hex."""
BOM = "\ufeff"
_LINES = re.compile(r"[^\n]*\n|[^\n]+")
UNDECODED = re.compile("[\udc80-\udcff]")
"""Where ``surrogateescape`` kept a byte that is not UTF-8."""


@dataclass(frozen=True)
class Sides:
    """Both sides of one file's change as the lines a diff matches.

    Attributes:
        old: the lines before (text lines with their line breaks, or hex lines); empty for a missing file.
        new: the lines after.
        binary: why the sides are hex lines (``""``: text lines).
        before: the bytes before (``None``: the file does not exist).
        after: the bytes after (``None``: the file is removed).
    """

    old: list[str]
    new: list[str]
    binary: str
    before: bytes | None
    after: bytes | None


def file_sides(change: FileChange) -> Sides:
    """``change`` as lines to match: text lines, or hex lines when either side is binary."""
    reason = _binary(change.before) or _binary(change.after)
    if reason:
        return Sides(_hex(change.before), _hex(change.after), reason, change.before, change.after)
    return Sides(_text(change.before), _text(change.after), "", change.before, change.after)


def file_names(change: FileChange) -> tuple[str, str]:
    """The ``---`` and ``+++`` names of ``change`` (``/dev/null`` for a missing side)."""
    name = shown_line(change.path)
    return (f"a/{name}" if change.before is not None else "/dev/null",
            f"b/{name}" if change.after is not None else "/dev/null")


def _binary(data: bytes | None) -> str:
    """Why ``data`` is drawn as hex (``""``: it is text)."""
    if not data:
        return ""
    if b"\0" in data:
        return "it holds a NUL byte"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        undecoded = len(UNDECODED.findall(data.decode("utf-8", "surrogateescape")))
        if undecoded > BINARY_UNDECODABLE_SHARE * len(data):
            return f"{undecoded} of its {len(data)} bytes are not UTF-8"
    return ""


def _text(data: bytes | None) -> list[str]:
    return _LINES.findall(data.decode("utf-8", "surrogateescape")) if data else []


def _hex(data: bytes | None) -> list[str]:
    """``data`` as hex lines: ``00000010  68 65 6c 6c 6f 0a …  |hello.|``."""
    out = []
    for at in range(0, len(data or b""), HEX_WIDTH):
        chunk = (data or b"")[at:at + HEX_WIDTH]
        half = HEX_WIDTH // 2
        codes = " ".join(f"{b:02x}" for b in chunk[:half]) + "  " + " ".join(f"{b:02x}" for b in chunk[half:])
        text = "".join(chr(b) if 0x20 <= b < 0x7f else "." for b in chunk)
        out.append(f"{at:08x}  {codes:<{HEX_WIDTH * 3 - 1}}  |{text}|")
    return out
