"""Aider's SEARCH/REPLACE edit blocks (its ``diff`` and ``diff-fenced`` edit formats) as an :class:`EditPlan`.

The grammar is the one Aider's own parser (``find_original_update_blocks`` in
``aider/coders/editblock_coder.py``) reads::

    mathweb/flask/app.py         (diff: the path alone on the line before the opening fence)
    ```python
    <<<<<<< SEARCH               (5 to 9 ``<``; ``SEARCH>`` too)
    from flask import Flask
    =======                      (5 to 9 ``=``)
    import math
    from flask import Flask
    >>>>>>> REPLACE              (5 to 9 ``>``; a second ``=======`` also ends a block, as in Aider)
    ```

    ```python                    (diff-fenced: the path is the first line inside the fence)
    mathweb/flask/app.py
    <<<<<<< SEARCH
    …

Markers are recognised on a line of their own, surrounding whitespace aside.
Fences are optional: everything outside a block is prose and ignored, and so
are shell-command fences (```` ```bash ```` and the other shells Aider knows)
unless a ``<<<<<<< SEARCH`` follows within two lines.

File name: the (at most three) lines right before ``<<<<<<< SEARCH`` are read
upwards, and the reading stops after the first line that is not a fence
opening (```` ``` ```` or one of Aider's tag fences such as ``<source>``).
Each line names a file by Aider's ``strip_filename`` rules: whitespace, a
trailing ``:``, leading ``#``, then surrounding backticks and ``*`` are
stripped; a bare fence and ``...`` name nothing, and a fence opening names the
file written after it when that holds a ``.`` or a ``/`` (```` ```app.py ````).
The first name with a ``.`` wins, else the first one. Any other text on such a
line is a name too, as in Aider (``Fix it:`` names ``Fix it``; the validator
then finds no such file). A block whose lines name
no file reuses the previous block's file, as Aider does; the first block
without one is malformed. Lines before the end of the previous block (or
shell fence) are never read as a name.

Each block becomes one :class:`EditBlock`: ``old`` = the SEARCH lines and
``new`` = the REPLACE lines, each with its line break, byte for byte (``\\r``
kept). An empty (or whitespace-only) SEARCH section creates the file
(``CREATE``): Aider appends to the file when it exists, ljtui refuses that at
validation (``FileExists``) rather than guess which was meant. Blocks apply by
the EDIT rules (``anchor`` is ``None``): ``old`` exactly once, with the line
break and end-of-file fallbacks of :mod:`ljtui.core.edits.anchors`; Aider's
own first-occurrence, whitespace-insensitive and ``...`` matching are not used.
Consecutive blocks of one file form one entry (``path``); a later run of
blocks of the same file forms ``path@2``, ``path@3`` …
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import CREATE, EDIT, BlockSource, EditBlock, EditPlan, PlanParseError

__all__ = ["DIVIDER", "FORMAT", "HEAD", "SHELL_FENCES", "TAG_FENCES", "UPDATED", "marker", "parse_aider",
           "strip_filename"]

FORMAT = "aider"
"""The :attr:`BlockSource.format` of every block read here."""
SHELL_FENCES = ("```bash", "```sh", "```shell", "```cmd", "```batch", "```powershell", "```ps1", "```zsh",
                "```fish", "```ksh", "```csh", "```tcsh")
"""Fence openings of Aider's shell-command blocks (matched as prefixes, as Aider does)."""
TAG_FENCES = ("<source>", "<code>", "<pre>", "<codeblock>", "<sourcecode>")
"""Aider's other fence openings, chosen when the files it shows hold triple backticks."""

_HEAD = re.compile(r"<{5,9} SEARCH>?\s*")
_DIVIDER = re.compile(r"={5,9}\s*")
_UPDATED = re.compile(r">{5,9} REPLACE\s*")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_NAME_LINES = 3
"""How many lines before ``<<<<<<< SEARCH`` may hold its file name (as in Aider)."""
HEAD, DIVIDER, UPDATED = "head", "divider", "updated"
"""The three marker lines: ``<<<<<<< SEARCH``, ``=======`` and ``>>>>>>> REPLACE``."""


def marker(line: str) -> str | None:
    """Which marker ``line`` is (:data:`HEAD`, :data:`DIVIDER`, :data:`UPDATED`), or ``None``."""
    text = line.strip()
    if _HEAD.fullmatch(text):
        return HEAD
    if _DIVIDER.fullmatch(text):
        return DIVIDER
    return UPDATED if _UPDATED.fullmatch(text) else None


def _fence_opening(text: str) -> str | None:
    """The fence ``text`` opens with (a run of three or more backticks, or a tag fence), or ``None``."""
    if text.startswith("```"):
        return text[:len(text) - len(text.lstrip("`"))]
    return next((tag for tag in TAG_FENCES if text.startswith(tag)), None)


def strip_filename(line: str) -> str | None:
    """The file ``line`` names by Aider's ``strip_filename`` rules, or ``None`` when it names none.

    Args:
        line: One line of the text, line break included or not.

    Returns:
        The name: ``# a.py``, ``**a.py**``, ```` `a.py`: ```` and ```` ```a.py ```` all give ``a.py``;
        ``None`` for a blank line, ``...``, a bare fence (```` ```python ````) or a block marker.
    """
    name = line.strip()
    if not name or name == "..." or marker(name) is not None:
        return None
    fence = _fence_opening(name)
    if fence is not None:
        rest = name[len(fence):]
        return rest if rest and ("." in rest or "/" in rest) else None
    name = name.rstrip(":").lstrip("#").strip().strip("`").strip("*")
    return name or None


@dataclass(frozen=True)
class _Found:
    """A complete block, before entries and hunk counts are known."""

    number: int
    file: str
    line: int
    header: str
    old: str
    new: str


class _Reader:
    """One pass over the lines, collecting blocks and every error."""

    def __init__(self, text: str) -> None:
        self.lines: list[str] = _LINE.findall(text)
        self.errors: list[E.EditError] = []
        self.found: list[_Found] = []
        self.heads = 0
        self.floor = 0
        """Index of the first line a file name may be read from (after the previous block or shell fence)."""
        self.file: str | None = None
        """The previous block's file, reused by a block that names none."""
        self.stray_divider: int | None = None
        """Line of a ``=======`` outside any block since the last block ended."""
        self.divider_closed: tuple[int, int] | None = None
        """Lines of the last block's ``<<<<<<< SEARCH`` and of the ``=======`` that ended it, if one did."""

    def run(self) -> None:
        """Read every line."""
        i = 0
        while i < len(self.lines):
            i = self._step(i)

    def _step(self, i: int) -> int:
        kind = marker(self.lines[i])
        if kind == HEAD:
            return self._block(i)
        if kind == UPDATED:
            self._stray(i)
        elif kind == DIVIDER:
            if self.stray_divider is None:
                self.stray_divider = i + 1
        elif self._shell_fence(i):
            return self._skip_shell(i)
        return i + 1

    def _shell_fence(self, i: int) -> bool:
        """True when line ``i`` opens a shell-command fence that is not a diff-fenced block."""
        if not self.lines[i].strip().startswith(SHELL_FENCES):
            return False
        return not any(marker(line) == HEAD for line in self.lines[i + 1:i + 3])

    def _skip_shell(self, i: int) -> int:
        j = i + 1
        while j < len(self.lines) and not self.lines[j].strip().startswith("```"):
            j += 1
        self.floor = min(j + 1, len(self.lines))
        return self.floor

    def _error(self, number: int | None, message: str, file: str | None = None) -> None:
        self.errors.append(E.MalformedPatch(number, message, file=file))

    def _file_name(self, head: int, number: int) -> str | None:
        """The file the block at ``head`` names (``None``: it names none), reporting a NUL in it."""
        names: list[tuple[str, int]] = []
        for j in range(head - 1, max(self.floor, head - _NAME_LINES) - 1, -1):
            line = self.lines[j]
            name = strip_filename(line)
            if name:
                names.append((name, j + 1))
            if _fence_opening(line) is None:
                break
        if not names:
            return None
        name, line_no = next((pair for pair in names if "." in pair[0]), names[0])
        if "\0" in name:
            self._error(number, f"line {line_no}: the file name {name!r} holds a NUL character")
        return name

    def _block(self, head: int) -> int:
        """Read the block whose ``<<<<<<< SEARCH`` is line ``head``; the index to go on from."""
        self.heads += 1
        number, line_no = self.heads, head + 1
        self.divider_closed = None
        named = self._file_name(head, number)
        file = named if named is not None else self.file
        if file is None:
            self._error(number, f"line {line_no}: `<<<<<<< SEARCH` has no file name: the path must be alone on "
                                "the line before it or before its opening fence")
        else:
            self.file = file
        search, after = self._section(head + 1)
        if after >= len(self.lines):
            self._error(number, f"line {line_no}: the SEARCH section has no `=======` before the end of the text",
                        file)
            return len(self.lines)
        if marker(self.lines[after]) != DIVIDER:
            return self._cut(number, file, after, f"line {line_no}: the SEARCH section has no `=======`")
        replace, end = self._section(after + 1)
        opened = f"line {after + 1}: the `=======` of the block on line {line_no} has no `>>>>>>> REPLACE`"
        if end >= len(self.lines):
            self._error(number, f"{opened} before the end of the text", file)
            return len(self.lines)
        if marker(self.lines[end]) == HEAD:
            return self._cut(number, file, end, opened)
        if marker(self.lines[end]) == DIVIDER:
            self.divider_closed = (line_no, end + 1)
        self.stray_divider = None
        self.floor = end + 1
        if file is not None and "\0" not in file:
            header = self.lines[head].strip()
            self.found.append(_Found(number, file, line_no, header, "".join(search), "".join(replace)))
        return end + 1

    def _section(self, start: int) -> tuple[list[str], int]:
        """The lines from ``start`` up to the next marker line, and that line's index (or the line count)."""
        i = start
        while i < len(self.lines) and marker(self.lines[i]) is None:
            i += 1
        return self.lines[start:i], i

    def _cut(self, number: int, file: str | None, at: int, opened: str) -> int:
        """Report a block cut short by the marker on line ``at``; the index to go on from.

        A block cut by the next ``<<<<<<< SEARCH`` leaves the lines before that marker to name its file.
        """
        if marker(self.lines[at]) == HEAD:
            self._error(number, f"{opened} before the next `<<<<<<< SEARCH` on line {at + 1}", file)
            return at
        self._error(number, f"{opened}: `>>>>>>> REPLACE` on line {at + 1} ends it first", file)
        self.floor = at + 1
        return at + 1

    def _stray(self, i: int) -> None:
        """Report a ``>>>>>>> REPLACE`` outside any block."""
        line_no = i + 1
        if self.divider_closed is not None:
            head, divider = self.divider_closed
            self._error(None, f"line {line_no}: `>>>>>>> REPLACE` ends no block: the block on line {head} was "
                              f"already ended by the second `=======` on line {divider} (a REPLACE section cannot "
                              "hold a `=======` line)")
        elif self.stray_divider is not None:
            self._error(None, f"line {line_no}: `>>>>>>> REPLACE` ends a block that has no `<<<<<<< SEARCH` "
                              f"(its `=======` is on line {self.stray_divider})")
        else:
            self._error(None, f"line {line_no}: `>>>>>>> REPLACE` outside any block: no `<<<<<<< SEARCH` and "
                              "`=======` come before it")
        self.divider_closed = None
        self.stray_divider = None


def _blocks(found: list[_Found]) -> tuple[EditBlock, ...]:
    """Blocks with entries (one per run of one file's blocks) and per-file hunk numbers."""
    totals = Counter(f.file for f in found)
    seen: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    previous = None
    blocks = []
    for f in found:
        seen[f.file] += 1
        if f.file != previous:
            runs[f.file] += 1
            previous = f.file
        entry = f.file if runs[f.file] == 1 else f"{f.file}@{runs[f.file]}"
        creates = not f.old.strip()
        source = BlockSource(FORMAT, f.file, hunk=seen[f.file], hunks=totals[f.file], header=f.header, line=f.line)
        blocks.append(EditBlock(f.number, f.file, None, entry, "" if creates else f.old, f.new, line=f.line,
                                action=CREATE if creates else EDIT, source=source))
    return tuple(blocks)


def parse_aider(text: str) -> EditPlan:
    """Read Aider SEARCH/REPLACE blocks (``diff`` or ``diff-fenced``) from ``text``.

    Args:
        text: An Aider reply or edit file, decoded as UTF-8 with ``surrogateescape``.

    Returns:
        One block per SEARCH/REPLACE block, in order; no declarations.

    Raises:
        PlanParseError: ``MalformedPatch`` for every broken block (a SEARCH without ``=======``, a
            ``=======`` without ``>>>>>>> REPLACE``, a block without a file name, a ``>>>>>>> REPLACE``
            outside any block, a NUL in a file name), or ``NoBlocks`` when the text holds no block.
    """
    reader = _Reader(text)
    reader.run()
    if reader.errors:
        raise PlanParseError(reader.errors)
    if not reader.found:
        raise PlanParseError([E.NoBlocks(None, "the text holds no SEARCH/REPLACE block (`<<<<<<< SEARCH`, "
                                               "`=======`, `>>>>>>> REPLACE`)")])
    return EditPlan(_blocks(reader.found))
