"""How one file's change is drawn as unified diff lines: what a reader approves is what is written, byte for byte.

The two sides of a change are matched as lines
(:mod:`ljtui.core.edits.diff_sides`): text lines, or hex lines for binary
content. How the lines a diff shows are drawn is decided once per diff,
over those lines (both sides, so a context line looks the same whichever
side it is read from):

* **Text.** A line is drawn as its characters, without its line break. A
  carriage return before the line feed is marked ``␍`` at the line's end,
  unless every line break shown is CRLF (then a note says so and nothing is
  marked); a last line without a line feed is followed by
  ``\\ No newline at end of file``; a byte order mark that opens the file is
  drawn ``\\ufeff`` at the start of line 1.
* **Escaped.** When a line shown holds something that would not show as
  itself — a byte that is not UTF-8, a control character (a carriage return
  inside a line too), a bidirectional or invisible character (those
  :func:`ljtui.core.display.shown` makes visible in exact text, and Unicode
  tag characters), a ``␍`` typed as text, ``\\ufeff`` typed at the start of
  the file — or when a changed line ends in whitespace (which a terminal
  and the Diff pane do not show) or differs from the line it replaces in
  spaces and tabs only, every line shown is escaped: ``\\xNN`` is the byte
  NN, ``\\uNNNN`` (``\\UNNNNNNNN``) the character U+NNNN, ``\\r`` a
  carriage return, ``\\t`` a tab, ``\\\\`` a backslash, and whitespace at
  the end of a line is escaped too (``\\x20`` a space). A note says so;
  without it every character drawn is itself.
* **Hex.** When either side holds a NUL byte, or more than a quarter of its
  bytes are not UTF-8, both sides are drawn as lines of 16 bytes: offset,
  bytes in hex, printable ASCII.

Notes (line endings changed, the final newline or a byte order mark added or
removed, the escaping or the hex legend, an empty file created or removed)
go between the ``+++`` line and the first hunk.
"""

from __future__ import annotations

import difflib
import re
from typing import Iterable, Iterator, NamedTuple, Sequence, TypeVar

from ljtui.core.display import BIDI_CONTROLS, ESCAPED_CONTROLS, INVISIBLE, shown
from ljtui.core.edits.diff_sides import BOM, HEX_WIDTH, UNDECODED, Sides

T = TypeVar("T")
"""What two compared sequences hold."""

NO_NEWLINE = "\\ No newline at end of file"
CR_MARK = "\u240d"
"""Drawn at the end of a line whose line break is CRLF (or that ends in a CR with no line feed)."""
BOM_DRAWN = "\\ufeff"
PAIR_MAX_PRODUCT = 250_000
"""Lines are paired by text (to count line-ending changes, to find changes in spaces and tabs only) by their
common head and tail, and between them by :mod:`difflib` when the two middles multiply to at most this."""
ESCAPED_NOTE = ("escaped: \\xNN is the byte NN, \\uNNNN (\\UNNNNNNNN) the character U+NNNN, \\r a carriage return, "
                "\\t a tab, \\\\ a backslash; whitespace at the end of a line is escaped too (\\x20 a space)")
EMPTY_CREATED = "empty file: created with no content"
EMPTY_REMOVED = "empty file: removed (it had no content)"

Opcode = tuple[str, int, int, int, int]
"""A :mod:`difflib` opcode: ``(tag, i1, i2, j1, j2)``."""
OLD, NEW = 0, 1

TAG_CHARACTERS = re.compile("[\U000e0000-\U000e007f]")
"""Unicode tag characters: invisible wherever they are drawn, and able to spell hidden ASCII text."""
_UNSHOWN = re.compile("|".join((ESCAPED_CONTROLS.pattern, BIDI_CONTROLS.pattern, INVISIBLE.pattern,
                                TAG_CHARACTERS.pattern, UNDECODED.pattern, CR_MARK)))
"""What would not show as itself in a line drawn plain."""
_TO_ESCAPE = re.compile("\\\\|\t|" + _UNSHOWN.pattern)
_TRAILING_SPACE = re.compile(r"\s+$")
_BLANKS = re.compile("[ \t]+")


def draw(sides: Sides, groups: Iterable[Sequence[Opcode]], old_name: str, new_name: str) -> list[str]:
    """The unified diff lines (without line breaks) of ``sides`` for hunks ``groups``.

    Args:
        sides: both sides, from :func:`~ljtui.core.edits.diff_sides.file_sides`.
        groups: hunks of opcodes indexing ``sides.old`` and ``sides.new``
            (as :meth:`difflib.SequenceMatcher.get_grouped_opcodes` gives them).
        old_name: the ``---`` name.
        new_name: the ``+++`` name.
    """
    if sides.before == sides.after:
        return []
    hunks = [list(group) for group in groups]
    drawing = _Drawing(sides, hunks)
    out = [f"--- {old_name}", f"+++ {new_name}", *drawing.notes]
    for group in hunks:
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                drawing.add(out, " ", OLD, i1, i2)
                continue
            drawing.add(out, "-", OLD, i1, i2)
            drawing.add(out, "+", NEW, j1, j2)
    # every line is drawn to show as itself; shown() over the whole diff (one pass) keeps it so
    return shown("\n".join(out), exact=True).split("\n")


def _range(start: int, stop: int) -> str:
    """A hunk range as :func:`difflib.unified_diff` writes it."""
    length = stop - start
    first = start + 1
    if length == 1:
        return str(first)
    return f"{first - 1 if not length else first},{length}"


class _Parts(NamedTuple):
    """A text line taken apart: a leading byte order mark, its characters, a final CR, a line feed."""

    bom: bool
    body: str
    cr: bool
    lf: bool


def _parts(line: str, first: bool) -> _Parts:
    lf = line.endswith("\n")
    body = line[:-1] if lf else line
    cr = body.endswith("\r")
    if cr:
        body = body[:-1]
    bom = first and body.startswith(BOM)
    return _Parts(bom, body[1:] if bom else body, cr, lf)


class _Run(NamedTuple):
    """Lines ``start`` to ``stop`` of one side as one text: line-ending CRs and a leading byte order mark
    taken off, so what is left is what the lines' characters are (``\\n`` between lines)."""

    start: int
    stop: int
    text: str
    breaks: int
    crlf: int
    end_cr: bool

    @property
    def bodies(self) -> list[str]:
        """Each line's characters."""
        return self.text.split("\n")[:self.stop - self.start]


def _run(lines: Sequence[str], start: int, stop: int) -> _Run:
    raw = "".join(lines[start:stop])
    if start == 0 and raw.startswith(BOM):
        raw = raw[1:]
    text = raw.replace("\r\n", "\n")
    end_cr = text.endswith("\r")  # only the last line of a file can end without a line feed
    return _Run(start, stop, text[:-1] if end_cr else text, raw.count("\n"), raw.count("\r\n"), end_cr)


class _Drawing:
    """The drawing rules of one diff, decided over the lines it shows.

    The decision reads each run of lines as one text, and plain lines are
    drawn run by run, so a diff of a large file costs string operations
    rather than work per line.
    """

    def __init__(self, sides: Sides, groups: list[list[Opcode]]) -> None:
        self.sides = sides
        self.lines = (sides.old, sides.new)
        self.escaped = self.marked = False
        self.notes: list[str] = []
        if sides.binary:
            self.notes.append(f"binary ({sides.binary}): shown as hex, {HEX_WIDTH} bytes a line "
                              "(offset, bytes, printable ASCII)")
            return
        self._runs: dict[tuple[int, int, int], _Run] = {}
        runs = [(tag != "equal", self._run(side, start, stop))
                for group in groups for tag, i1, i2, j1, j2 in group
                for side, start, stop in ((OLD, i1, i2), (NEW, j1, j2))
                if start < stop and (tag != "equal" or side == OLD or (i1 == 0) != (j1 == 0))]
        replaced = [(i1, i2, j1, j2) for group in groups for tag, i1, i2, j1, j2 in group if tag == "replace"]
        self.escaped = (any(_UNSHOWN.search(run.text) or (run.start == 0 and run.text.startswith(BOM_DRAWN))
                            for _, run in runs)
                        or any(body[-1:].isspace() for changed, run in runs if changed for body in run.bodies)
                        or any(self._blank_only(*spans) for spans in replaced))
        breaks, crlf = sum(run.breaks for _, run in runs), sum(run.crlf for _, run in runs)
        end_cr = any(run.end_cr for _, run in runs)
        uniform = breaks > 0 and crlf == breaks and not end_cr
        self.marked = not uniform
        self.notes = self._text_notes(uniform, crlf > 0 or end_cr, groups)

    def _run(self, side: int, start: int, stop: int) -> _Run:
        key = (side, start, stop)
        if key not in self._runs:
            self._runs[key] = _run(self.lines[side], start, stop)
        return self._runs[key]

    def add(self, out: list[str], mark: str, side: int, start: int, stop: int) -> None:
        """Append to ``out`` the drawn lines ``start`` to ``stop`` of ``side``, each after ``mark``."""
        lines = self.lines[side]
        if start >= stop:
            return
        if self.sides.binary:
            out.extend(mark + line for line in lines[start:stop])
            return
        if self.escaped:
            for n in range(start, stop):
                parts = _parts(lines[n], n == 0)
                end = CR_MARK if parts.cr and self.marked else ""
                out.append(f"{mark}{BOM_DRAWN if parts.bom else ''}{_escape(parts.body)}{end}")
                if not parts.lf:
                    out.append(NO_NEWLINE)
            return
        raw = "".join(lines[start:stop])
        bom = start == 0 and raw.startswith(BOM)
        if bom:
            raw = raw[1:]
        if self.marked:  # plain text holds no other CR: these are the line ends
            raw = raw.replace("\r\n", CR_MARK + "\n")
            raw = raw[:-1] + CR_MARK if raw.endswith("\r") else raw
        else:
            raw = raw.replace("\r\n", "\n")
        drawn = raw.split("\n")[:stop - start]
        if bom:
            drawn[0] = BOM_DRAWN + drawn[0]
        out.extend([mark + text for text in drawn])
        if not lines[stop - 1].endswith("\n"):
            out.append(NO_NEWLINE)

    def _blank_only(self, i1: int, i2: int, j1: int, j2: int) -> bool:
        """Whether a replaced line differs from its counterpart in spaces and tabs only."""
        old_run, new_run = self._run(OLD, i1, i2), self._run(NEW, j1, j2)
        if old_run.text == new_run.text:  # only line endings changed
            return False
        old, new = old_run.bodies, new_run.bodies
        head, tail = _common_ends(old, new)
        old, new = old[head:len(old) - tail], new[head:len(new) - tail]
        pairs = _pairs([_BLANKS.sub("", body) for body in old], [_BLANKS.sub("", body) for body in new])
        return any(old[i] != new[j] for i, j in pairs)

    def _text_notes(self, uniform: bool, any_cr: bool, groups: list[list[Opcode]]) -> list[str]:
        before, after = self.sides.before, self.sides.after
        notes = []
        if not groups:
            notes.append(EMPTY_CREATED if before is None else EMPTY_REMOVED)
        endings = []
        if before is not None and after is not None:
            old_style, new_style = _style(before), _style(after)
            count = self._ending_changes()
            if old_style and new_style and (old_style != new_style or count):
                lines = f" ({count} line{'s' * (count != 1)})" if count else ""
                endings.append(f"{old_style} → {new_style}{lines}")
        if uniform:
            endings.append("CRLF on every line shown, not marked")
        elif any_cr:
            endings.append(f"{CR_MARK} marks a carriage return (CR) at the end of a line")
        if endings:
            notes.append("line endings: " + "; ".join(endings))
        if before and after:
            if before.endswith(b"\n") != after.endswith(b"\n"):
                notes.append("final newline: " + ("added" if after.endswith(b"\n") else "removed"))
            bom = BOM.encode("utf-8")
            if before.startswith(bom) != after.startswith(bom):
                notes.append(f"byte order mark: {'added' if after.startswith(bom) else 'removed'}")
        if self.escaped:
            notes.append(ESCAPED_NOTE)
        return notes

    def _ending_changes(self) -> int:
        """Lines whose text stays and whose carriage return comes or goes, the sides paired by text (so the
        count does not depend on how the hunks were matched)."""
        if not (b"\r" in (self.sides.before or b"") or b"\r" in (self.sides.after or b"")):
            return 0
        old, new = self.lines
        head, tail = _common_ends(old, new)
        texts_old, crs_old = _endings(old[head:len(old) - tail], head == 0)
        texts_new, crs_new = _endings(new[head:len(new) - tail], head == 0)
        if texts_old == texts_new:  # only line endings changed: the lines pair one to one
            return sum(a != b for a, b in zip(crs_old, crs_new))
        return sum(crs_old[i] != crs_new[j] for i, j in _pairs(texts_old, texts_new))


def _endings(lines: list[str], first: bool) -> tuple[list[str], list[bool]]:
    """Each line's text without its line break (and, for the ``first`` lines of a file, a byte order mark),
    and whether a CR ends it."""
    texts = [line[:-1] if line[-1:] == "\n" else line for line in lines]
    if first and texts and texts[0].startswith(BOM):
        texts[0] = texts[0][1:]
    crs = [text[-1:] == "\r" for text in texts]
    return [text[:-1] if cr else text for text, cr in zip(texts, crs)], crs


def _escape(body: str) -> str:
    body = _TO_ESCAPE.sub(lambda m: _escape_char(m.group()), body)
    return _TRAILING_SPACE.sub(lambda m: "".join(_escape_char(c) for c in m.group()), body)


def _escape_char(char: str) -> str:
    code = ord(char)
    if char in "\\\t\r":
        return {"\\": "\\\\", "\t": "\\t", "\r": "\\r"}[char]
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _style(data: bytes) -> str:
    """The line breaks of ``data``: ``CRLF``, ``LF``, ``mixed (2 CRLF, 5 LF)``, or ``""`` when it has none."""
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    if not crlf and not lf:
        return ""
    return "CRLF" if not lf else "LF" if not crlf else f"mixed ({crlf} CRLF, {lf} LF)"


def _pairs(a: Sequence[object], b: Sequence[object]) -> Iterator[tuple[int, int]]:
    """``(i, j)`` with ``a[i] == b[j]``, in order: the common head and tail, and between them :mod:`difflib`'s
    matches when the sides are small enough."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        yield head, head
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle_a, middle_b = a[head:len(a) - tail], b[head:len(b) - tail]
    if (middle_a and middle_b and len(middle_a) * len(middle_b) <= PAIR_MAX_PRODUCT
            and not set(middle_a).isdisjoint(middle_b)):
        matcher = difflib.SequenceMatcher(None, middle_a, middle_b, autojunk=False)
        for i, j, size in matcher.get_matching_blocks():
            yield from ((head + i + k, head + j + k) for k in range(size))
    yield from ((len(a) - tail + k, len(b) - tail + k) for k in range(tail))


def _common_ends(old: Sequence[T], new: Sequence[T]) -> tuple[int, int]:
    """How many items ``old`` and ``new`` share at their start, and then at their end."""
    shortest = min(len(old), len(new))
    head = 0
    while head < shortest and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail
