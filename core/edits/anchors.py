"""Byte-level anchor matching and replacement (SPEC EDIT-2).

Plans are text; files are bytes. Matching is byte-exact first: ``old`` is
searched as written (UTF-8) and ``new`` is written as written, so a plan
that says it changed line breaks really changes them.

Two rules make a match mean what the plan's author meant:

* An ``old`` that ends with a line break or begins with whitespace matches
  only at the start of a line: ``    y = 1`` never matches inside
  ``        y = 1``, nor ``aa\\n`` inside ``aaa\\n``. A fence body is whole
  lines, so an ``old`` that begins with a line break begins with an empty
  line, and an empty line starts at the start of a line too: a leading line
  break counts as whitespace. Occurrences are counted by the same rule.
* The end of a file is not a line break: ``x\\n`` does not match the final
  ``x`` of a file that ends without one.

Two fallbacks apply only when the exact search finds nothing, and each
says so in the :class:`Replacement` so the result can tell the user:

* when the file uses one line-break style throughout, ``old`` is searched
  again with its line breaks converted to that style; a unique match is
  replaced by ``new`` converted the same way (``converted_to``);
* when the file ends without a final line break and ``old`` is whole lines,
  ``old`` without its last line break may match the file's last line(s);
  ``new`` then loses its last line break too, so the file still ends
  without one (``at_end``). There is one end of a file, so this match is
  unique by construction — unless ``old`` also occurs earlier in another
  line-break style (a file that mixes styles), which makes it ambiguous:
  then nothing matches.
"""

from __future__ import annotations

from dataclasses import dataclass

CRLF = b"\r\n"
LF = b"\n"
CR = b"\r"
STYLE_NAMES = {CRLF: "CRLF", LF: "LF"}
"""How each line-break style is named in messages."""
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
        converted_to: ``"CRLF"`` or ``"LF"`` when ``old`` was found only after
            converting its line breaks to the file's style (``new`` was
            converted the same way); ``None`` for an exact match.
        at_end: ``old`` matched the last line(s) of a file that ends without
            a line break, its own last line break left out (and ``new``'s).
    """

    result: bytes | None
    lines: tuple[int, ...]
    count: int
    converted_to: str | None = None
    at_end: bool = False


def line_break_style(data: bytes) -> bytes | None:
    """``CRLF`` or ``LF`` when every line break in ``data`` is that one, else ``None``."""
    if CR not in data:
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


def starts_at_line(old: str) -> bool:
    """True when ``old`` may only match at the start of a line.

    That is when it ends with a line break or begins with whitespace (a
    leading line break included).
    """
    return old[:1].isspace() or old.endswith(("\n", "\r"))


def is_line_start(data: bytes, offset: int) -> bool:
    """True when ``offset`` is the first byte of a line of ``data``.

    A line starts at offset 0 and after ``\\n``; after ``\\r`` only when no
    ``\\n`` follows (a ``\\r\\n`` pair is one line break).
    """
    if offset == 0:
        return True
    before = data[offset - 1:offset]
    return before == LF or (before == CR and data[offset:offset + 1] != LF)


def occurrences(haystack: bytes, needle: bytes, limit: int = MAX_REPORTED_OCCURRENCES, *,
                line_start: bool = False) -> tuple[list[int], int]:
    """Start offsets of ``needle`` in ``haystack`` (overlaps count) and their total.

    Args:
        haystack: The bytes searched.
        needle: The bytes looked for (non-empty).
        limit: At most this many offsets are returned; all are counted.
        line_start: Count only occurrences that start a line.
    """
    offsets: list[int] = []
    count = 0
    at = haystack.find(needle)
    while at != -1:
        if not line_start or is_line_start(haystack, at):
            count += 1
            if len(offsets) < limit:
                offsets.append(at)
        at = haystack.find(needle, at + 1)
    return offsets, count


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of ``offset``."""
    return data.count(LF, 0, offset) + 1


def _replace(data: bytes, old_b: bytes, new_b: bytes, line_start: bool, converted_to: str | None) -> Replacement:
    offsets, count = occurrences(data, old_b, line_start=line_start)
    if count != 1:
        return Replacement(None, tuple(line_of(data, o) for o in offsets), count, converted_to)
    at = offsets[0]
    return Replacement(data[:at] + new_b + data[at + len(old_b):], (), 1, converted_to)


def replace_once(data: bytes, old: str, new: str) -> Replacement:
    """Replace the single occurrence of ``old`` in ``data`` with ``new``.

    Args:
        data: Current bytes of the file.
        old: Non-empty anchor text from the plan.
        new: Replacement text from the plan.

    Returns:
        A :class:`Replacement`; ``result`` is ``None`` unless ``old`` occurs
        once, exactly or (failing any exact occurrence) with its line
        breaks converted to the file's single style.
    """
    line_start = starts_at_line(old)
    old_b = encode_for(old, None)
    exact = _replace(data, old_b, encode_for(new, None), line_start, None)
    if exact.count:
        return exact
    style = line_break_style(data)
    if style is not None and encode_for(old, style) != old_b:
        converted = _replace(data, encode_for(old, style), encode_for(new, style), line_start, STYLE_NAMES[style])
        if converted.count:
            return converted
    return _replace_at_end(data, old, new, style) or exact


def _without_final_break(text: str) -> str:
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith(("\n", "\r")) else text


def _replace_at_end(data: bytes, old: str, new: str, style: bytes | None) -> Replacement | None:
    """``old`` (whole lines) matched against the final line(s) of a file without a final line break."""
    if not old.endswith(("\n", "\r")) or not data or data.endswith((LF, CR)):
        return None
    line_start = starts_at_line(old)
    if any(_replace(data, encode_for(old, each), b"", line_start, None).count for each in (LF, CRLF)):
        return None  # the lines also occur, in another line-break style, before the end: ambiguous
    stem = _without_final_break(old)
    for each in dict.fromkeys((None, style)):
        tail = encode_for(stem, each)
        at = len(data) - len(tail)
        if tail and data.endswith(tail) and is_line_start(data, at):
            converted = STYLE_NAMES[each] if each is not None and tail != encode_for(stem, None) else None
            return Replacement(data[:at] + encode_for(_without_final_break(new), each), (), 1, converted, True)
    return None


def create_bytes(new: str) -> bytes:
    """Bytes of a file created from ``new``, exactly as the plan wrote it."""
    return new.encode("utf-8", "surrogateescape")
