"""Hunks of a unified diff, read by their header's line counts as ``git apply`` reads them.

A hunk ends when as many old and new lines as its header counts have been
read; nothing is guessed from prefixes alone, so a trailing ``-- `` mail
signature or a file line ``--- x`` inside a hunk is read for what it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_COUNT_DIGITS = 9
HUNK_HEADER = re.compile(r"@@ -(\d{1,%d})(?:,(\d{1,%d}))? \+(\d{1,%d})(?:,(\d{1,%d}))? @@(.*)\Z"
                         % ((MAX_COUNT_DIGITS,) * 4), re.S)
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_BLANK = ("\n", "\r\n")
_HEADERS = ("diff ", "@@", "From ", "Only in ", "Binary files ", "index ", "GIT binary patch")


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the diff text.

    Attributes:
        text: The line as written, with its line break.
        head: The line without its line break and one ``\\r`` before it: how a header line is read.
        number: 1-based line number in the text.
    """

    text: str
    head: str
    number: int


def split_lines(text: str) -> list[Line]:
    """The text's lines, broken at ``\\n`` only (a ``\\r`` stays part of the line)."""
    lines = []
    for number, match in enumerate(_LINE.finditer(text), 1):
        raw = match.group(0)
        head = raw[:-1] if raw.endswith("\n") else raw
        lines.append(Line(raw, head[:-1] if head.endswith("\r") else head, number))
    return lines


@dataclass(frozen=True)
class Hunk:
    """One hunk, read.

    Attributes:
        header: The ``@@`` line as written.
        line: Its line number in the text.
        old_start: First old line, as the header says.
        old_count: Old lines, as the header says.
        where: The header's function context, or ``None``.
        old: Context and removed lines, with their line breaks.
        new: Context and added lines, with their line breaks.
        removed: How many ``-`` lines.
        added: How many ``+`` lines.
        at_end: No context follows the change, or the last old line has no line break.
    """

    header: str
    line: int
    old_start: int
    old_count: int
    where: str | None
    old: str
    new: str
    removed: int
    added: int
    at_end: bool

    @property
    def at_start(self) -> bool:
        """The hunk begins at the file's first line (an insertion: before it)."""
        return self.old_start == 0 if self.old_count == 0 else self.old_start <= 1


def starts_section(lines: list[Line], i: int) -> bool:
    """True when ``lines[i]`` begins a plain file header (``--- `` then ``+++ ``) or is a ``+++ `` line."""
    head = lines[i].head
    if head.startswith("+++ "):
        return True
    return head.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].head.startswith("+++ ")


def _signature(lines: list[Line], i: int) -> bool:
    """True when ``lines[i]`` is a mail signature's ``-- `` separator, not a hunk line."""
    if lines[i].head != "-- ":
        return False
    return i + 1 >= len(lines) or not _hunk_like(lines, i + 1)


def _hunk_like(lines: list[Line], i: int) -> bool:
    text = lines[i].text
    if text in _BLANK:
        return True
    return text[:1] in (" ", "-", "+", "\\") and not starts_section(lines, i)


def extent(lines: list[Line], start: int) -> tuple[int, int, int]:
    """How many old and new lines follow the header at ``start`` by their prefixes, for messages.

    Blank lines count as context unless only blank lines and non-hunk lines follow.

    Returns:
        ``(old, new, stop)``: ``stop`` is the index of the first line after them.
    """
    old = new = 0
    i = start + 1
    while i < len(lines) and _hunk_like(lines, i) and not _signature(lines, i):
        text = lines[i].text
        if text in _BLANK:
            k = i
            while k < len(lines) and lines[k].text in _BLANK:
                k += 1
            if k >= len(lines) or not _hunk_like(lines, k):
                break
        kind = " " if text in _BLANK else text[0]
        old += kind in " -"
        new += kind in " +"
        i += 1
    return old, new, i


def _lines(count: int, side: str) -> str:
    return f"{count} {side} line" + ("" if count == 1 else "s")


def _count_error(lines: list[Line], start: int, old_count: int, new_count: int) -> tuple[str, int]:
    old, new, stop = extent(lines, start)
    number = lines[start].number
    parts = []
    if old != old_count:
        parts.append(f"{_lines(old_count, 'old')} but {old} follow")
    if new != new_count:
        parts.append(f"{_lines(new_count, 'new')} but {new} follow")
    last = lines[stop - 1].number
    span = f" (lines {number + 1}-{last})" if last > number else ""
    if not parts:
        return f"line {number}: the hunk's lines do not match its header's counts{span}", stop
    return f"line {number}: hunk header says " + ", and ".join(parts) + span, stop


def _stray(line: Line, start: Line, old_left: int, new_left: int) -> str:
    return (f"line {line.number}: {line.text[:1]!r} begins no hunk line (' ', '-', '+' or '\\'), but the hunk at"
            f" line {start.number} still expects {_lines(old_left, 'old')} and {_lines(new_left, 'new')}")


def read_hunk(lines: list[Line], start: int) -> tuple[Hunk | None, int, str | None]:
    """Read the hunk whose ``@@`` header is ``lines[start]``.

    An empty line inside the counted range is an empty context line whose
    leading space was lost (as ``git apply`` reads it). A ``\\`` line
    (``\\ No newline at end of file``) takes the line break off the line before it.
    The text's last line, when it has no line break, is read as if it had one.

    Returns:
        ``(hunk, next, None)``, or ``(None, next, message)`` when the hunk breaks the format;
        ``next`` is the index of the first line after the hunk.
    """
    first = lines[start]
    match = HUNK_HEADER.match(first.head)
    if not match:
        stop = extent(lines, start)[2]
        return None, stop, (f"line {first.number}: hunk header does not parse: {first.head!r}"
                            " (expected '@@ -start,count +start,count @@')")
    old_start, old_count = int(match.group(1)), int(match.group(2) or 1)
    new_count = int(match.group(4) or 1)
    old_left, new_left = old_count, new_count
    items: list[list[str]] = []
    closed = ""
    i = start + 1
    while old_left or new_left or (i < len(lines) and lines[i].text.startswith("\\") and items):
        if i >= len(lines):
            return None, i, _count_error(lines, start, old_count, new_count)[0]
        line = lines[i]
        text = line.text
        if text.startswith("\\"):
            if not items or not items[-1][1].endswith("\n"):
                return None, extent(lines, start)[2], (f"line {line.number}: {line.head!r} follows no line"
                                                       " whose line break it could take off")
            items[-1][1] = items[-1][1][:-1]
            closed += "-+" if items[-1][0] == " " else items[-1][0]
            i += 1
            continue
        kind, body = (" ", text) if text in _BLANK else (text[0], text[1:])
        if kind not in " -+":
            if any(text.startswith(h) for h in _HEADERS) or starts_section(lines, i):
                message, stop = _count_error(lines, start, old_count, new_count)
                return None, stop, message
            return None, extent(lines, start)[2], _stray(line, first, old_left, new_left)
        if (kind != "+" and old_left == 0) or (kind != "-" and new_left == 0):
            message, stop = _count_error(lines, start, old_count, new_count)
            return None, stop, message
        if (kind != "+" and "-" in closed) or (kind != "-" and "+" in closed):
            return None, extent(lines, start)[2], (f"line {line.number}: a line follows the one marked"
                                                   " '\\ No newline at end of file'")
        old_left -= kind != "+"
        new_left -= kind != "-"
        items.append([kind, body if body.endswith("\n") else body + "\n"])
        i += 1
    if i < len(lines) and lines[i].text[:1] in ("+", "-") and not starts_section(lines, i) \
            and not _signature(lines, i):
        message, stop = _count_error(lines, start, old_count, new_count)
        return None, stop, message
    last_old = next((body for kind, body in reversed(items) if kind != "+"), "\n")
    hunk = Hunk(
        header=first.head, line=first.number, old_start=old_start, old_count=old_count,
        where=match.group(5).strip() or None,
        old="".join(body for kind, body in items if kind != "+"),
        new="".join(body for kind, body in items if kind != "-"),
        removed=sum(kind == "-" for kind, _ in items), added=sum(kind == "+" for kind, _ in items),
        at_end=(not items or items[-1][0] != " " or not last_old.endswith("\n")))
    return hunk, i, None
