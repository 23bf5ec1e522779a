"""Byte-level anchor matching and replacement, keeping the file's own bytes.

Plans are text; files are bytes. ``old`` and ``new`` are encoded as UTF-8
and, when the target file uses one line-break style throughout, their line
breaks are written in that style, so CRLF files keep CRLF. A file without a
final line break still matches an ``old`` whose last line ends with one:
the end of the file stands for that line break, and the result keeps the
file without a final line break.
"""

from __future__ import annotations

from dataclasses import dataclass

CRLF = b"\r\n"
LF = b"\n"
MAX_REPORTED_OCCURRENCES = 10_000
"""Occurrences beyond this many are counted but not located."""


@dataclass(frozen=True)
class Replacement:
    """The outcome of replacing ``old`` once in some bytes.

    Attributes:
        result: The new bytes when ``old`` occurred exactly once, else ``None``.
        lines: 1-based start lines of every located occurrence when it did
            not occur exactly once (empty on success: not needed, not computed).
        count: How many occurrences exist (may exceed ``len(lines)``).
    """

    result: bytes | None
    lines: tuple[int, ...]
    count: int


def line_break_style(data: bytes) -> bytes | None:
    """``CRLF`` or ``LF`` when every line break in ``data`` is that one, else ``None``."""
    if b"\r" not in data:
        return LF if LF in data else None
    lf = data.count(LF)
    if lf == 0:
        return None
    crlf = data.count(CRLF)
    if crlf == lf:
        return CRLF
    return LF if crlf == 0 else None


def encode_for(text: str, style: bytes | None) -> bytes:
    """``text`` as UTF-8 with its line breaks in ``style`` (verbatim when ``None``)."""
    raw = text.encode("utf-8", "surrogateescape")
    if style is None:
        return raw
    normal = raw.replace(CRLF, LF)
    return normal.replace(LF, CRLF) if style == CRLF else normal


def _trailing_break(data: bytes) -> bytes:
    if data.endswith(CRLF):
        return CRLF
    return data[-1:] if data.endswith((LF, b"\r")) else b""


def occurrences(haystack: bytes, needle: bytes, limit: int = MAX_REPORTED_OCCURRENCES) -> tuple[list[int], int]:
    """Start offsets of ``needle`` in ``haystack`` (overlaps count) and their total."""
    offsets: list[int] = []
    count = 0
    at = haystack.find(needle)
    while at != -1:
        count += 1
        if len(offsets) < limit:
            offsets.append(at)
        at = haystack.find(needle, at + 1)
    return offsets, count


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of ``offset``."""
    return data.count(LF, 0, offset) + 1


def replace_once(data: bytes, old: str, new: str) -> Replacement:
    """Replace the single occurrence of ``old`` in ``data`` with ``new``.

    Args:
        data: Current bytes of the file.
        old: Non-empty anchor text from the plan.
        new: Replacement text from the plan.

    Returns:
        A :class:`Replacement`; ``result`` is ``None`` unless ``old`` occurs once.
    """
    style = line_break_style(data)
    old_b, new_b = encode_for(old, style), encode_for(new, style)
    ending = _trailing_break(old_b)
    virtual = bool(ending) and bool(data) and not _trailing_break(data)
    hay = data + ending if virtual else data
    offsets, count = occurrences(hay, old_b)
    if count != 1:
        return Replacement(None, tuple(line_of(hay, o) for o in offsets), count)
    at = offsets[0]
    out = hay[:at] + new_b + hay[at + len(old_b):]
    if virtual and out.endswith(ending):
        out = out[: -len(ending)]
    return Replacement(out, (), 1)


def create_bytes(new: str) -> bytes:
    """Bytes of a file created from ``new``, exactly as the plan wrote it."""
    return new.encode("utf-8", "surrogateescape")
