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

import dataclasses
import re
from dataclasses import dataclass

BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark: not part of line 1's text for matching, and kept where it is."""
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


def lines_of(data: bytes, offsets: list[int]) -> tuple[int, ...]:
    """1-based line numbers of ascending ``offsets``, counted in one pass."""
    lines = []
    line, at = 1, 0
    for offset in offsets:
        line += data.count(LF, at, offset)
        at = offset
        lines.append(line)
    return tuple(lines)


def _replace(data: bytes, old_b: bytes, new_b: bytes, line_start: bool, converted_to: str | None) -> Replacement:
    offsets, count = occurrences(data, old_b, line_start=line_start)
    if count != 1:
        return Replacement(None, lines_of(data, offsets), count, converted_to)
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
        breaks converted to the file's single style. A byte order mark that
        opens ``data`` is not part of line 1 (unless ``old`` itself starts
        with one) and stays in ``result``.
    """
    if data.startswith(BOM) and not old.startswith("\ufeff"):
        found = _replace_in_body(data[len(BOM):], old, new)
        return dataclasses.replace(found, result=BOM + found.result) if found.result is not None else found
    return _replace_in_body(data, old, new)


def _replace_in_body(data: bytes, old: str, new: str) -> Replacement:
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


_LINE = re.compile(rb"[^\n]*\n|[^\n]+")
_TRAILING_BEFORE_BREAK = re.compile(rb"[ \t]+(?=\r?\n)")
_TRAILING_IN_FILE = re.compile(rb"[ \t]+(?=\r?\n|\Z)")


def explain_miss(data: bytes, old: str, file: str) -> str | None:
    """Why ``old`` does not occur in ``data`` when it nearly does, as the message for the author; else ``None``.

    Three near misses are named, in this order: ``old`` occurs, but only
    mid-line while it must start a line; it differs from the file only in
    line endings (CRLF vs LF); only in whitespace at the ends of lines.
    """
    body = data[len(BOM):] if data.startswith(BOM) and not old.startswith("\ufeff") else data
    old_b = encode_for(old, None)
    line_start = starts_at_line(old)
    if line_start:
        offsets, count = occurrences(body, old_b, 1)
        if count:
            if old[:1].isspace() and old[:1] not in "\r\n":
                why, alternative = "starts with whitespace", " (or leave the leading whitespace out)"
            else:
                why, alternative = ("starts with a line break" if old[:1] in "\r\n" else "ends with a line break"), ""
            return (f"`old` occurs in {file} only mid-line (first at line {line_of(body, offsets[0])}), and an "
                    f"`old` that {why} must start a line: copy that line from its first character{alternative}")
    offsets, _ = occurrences(body.replace(CRLF, LF), old_b.replace(CRLF, LF), 1, line_start=line_start)
    if offsets:
        start = line_of(body.replace(CRLF, LF), offsets[0])
        line, in_file = _first_break_difference(body, old_b, start)
        theirs = "LF" if in_file == "CRLF" else "CRLF"
        return (f"`old` does not occur in {file}: it differs only in line endings (CRLF vs LF) at line {line}, "
                f"which ends with {in_file} in the file and with {theirs} in `old`; copy the line endings exactly "
                "(\\r\\n or \\n)")
    offsets, _ = occurrences(_TRAILING_IN_FILE.sub(b"", body), _TRAILING_BEFORE_BREAK.sub(b"", old_b), 1,
                             line_start=line_start)
    if offsets:
        start = line_of(body, offsets[0])
        line = _first_trailing_difference(body, old_b, start)
        return (f"`old` does not occur in {file}: it differs only in trailing whitespace at line {line}; copy "
                "that line exactly, with the spaces and tabs at its end (or none)")
    return None


def _line_pairs(body: bytes, old_b: bytes, start: int) -> list[tuple[int, bytes, bytes]]:
    """``(line number, file line, old line)`` for each line of ``old`` that ends with a line break."""
    file_lines = _LINE.findall(body)
    pairs = []
    for index, mine in enumerate(_LINE.findall(old_b)):
        number = start + index
        if number > len(file_lines) or not mine.endswith(LF):
            break
        pairs.append((number, file_lines[number - 1], mine))
    return pairs


def _first_break_difference(body: bytes, old_b: bytes, start: int) -> tuple[int, str]:
    for number, theirs, mine in _line_pairs(body, old_b, start):
        if theirs.endswith(LF) and theirs.endswith(CRLF) != mine.endswith(CRLF):
            return number, "CRLF" if theirs.endswith(CRLF) else "LF"
    return start, "CRLF" if CRLF in body else "LF"


def _trailing_space(line: bytes) -> bytes:
    text = line.rstrip(b"\r\n")
    return text[len(text.rstrip(b" \t")):]


def _first_trailing_difference(body: bytes, old_b: bytes, start: int) -> int:
    for number, theirs, mine in _line_pairs(body, old_b, start):
        if _trailing_space(theirs) != _trailing_space(mine):
            return number
    return start


def create_bytes(new: str) -> bytes:
    """Bytes of a file created from ``new``, exactly as the plan wrote it."""
    return new.encode("utf-8", "surrogateescape")
