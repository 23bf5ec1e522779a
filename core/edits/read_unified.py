"""The reader of unified diffs: ``git diff``, plain ``diff -u``/``diff -ur`` and ``git format-patch`` mails.

A pure function from text to an :class:`EditPlan`. One parser serves the
three formats; it reads each hunk by its header's line counts, as ``git
apply`` does, so where a hunk ends is never guessed from line prefixes. A
``+`` or ``-`` line right after a hunk's counted lines is refused as a count
that does not match (``git apply`` would drop it unread).

What it reads:

* ``git`` — ``diff --git`` sections with their extended headers: ``new file
  mode`` (a ``create`` block), ``deleted file mode`` (``delete``, carrying the
  old content), ``old mode``/``new mode`` (``mode``), ``rename from``/``rename
  to`` (``move``, then the renamed file's hunks as ``edit`` blocks on the new
  path). A copy, a symbolic link (mode ``120000``), a submodule (``160000``)
  and a combined (merge) diff are refused as unsupported; a binary change as
  binary, suggesting to leave the file out of the diff.
* ``unified`` — ``--- old<TAB>time`` / ``+++ new<TAB>time`` sections: the
  file is the ``+++`` path unless that is ``/dev/null`` (then the ``---`` path is
  deleted); a ``/dev/null`` ``---`` creates it. A Unix-epoch timestamp
  (``diff -N``'s mark of a missing file) counts as ``/dev/null``, as GNU patch
  and ``git apply`` read it. ``diff -u a b`` and ``Only in`` lines are not
  changes and are ignored.
* ``mbox`` — ``git format-patch`` mails, several commits in one text: each
  ``From <sha>`` line starts a commit whose subject (``[PATCH n/m]`` taken off)
  becomes the blocks' ``commit``; the message, the diffstat and the ``-- ``
  signature are not read as changes.

A hunk's block points at its ``@@`` line. A file-level block (a create
without hunks, a delete, a move, a mode) points at the line that says what
happens: ``new file mode``, ``deleted file mode`` (for a plain diff, the
``+++`` line), ``rename from``, ``new mode``. A ``-U0`` insertion (no old
lines) is refused unless it fills an empty file: it could only be placed by
its line number.

Each file section is one entry, named by its path; a later section of the
same path (a patch series) is ``path@2``, ``path@3`` … and applies to the
result of the earlier ones. Text outside any file section is ignored.

Line breaks: lines are broken at ``\\n`` only, and a hunk line keeps all it
holds, a ``\\r`` before its break included (CRLF files). When the whole diff
was saved with CRLF line breaks, its header lines are still read (one ``\\r``
before the break is dropped from every header line), but its hunk lines keep
their ``\\r``: such a diff applies to files with CRLF line breaks, as with
``git apply``. An empty line inside a hunk's counted range is an empty context
line that lost its leading space (``\\r\\n`` as well as ``\\n``); the text's last
line, when it lacks a line break, is read as if it had one.

Paths: ``strip=None`` strips one leading component from git names (``a/``,
``b/``), and from plain names when they are ``a/…`` and ``b/…``, none
otherwise; an explicit ``strip`` removes that many, as ``patch -pN`` does
(``rename``/``copy`` lines, written without a prefix, lose one fewer).
"""

from __future__ import annotations

import re

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import EXECUTABLE, EditPlan, PlanParseError
from ljtui.core.edits.read_unified_blocks import BlockMaker, FileLine, Section, mode_of
from ljtui.core.edits.read_unified_hunks import Line, extent, read_hunk, split_lines
from ljtui.core.edits.read_unified_mail import FROM_LINE, read_mail_headers
from ljtui.core.edits.read_unified_names import DEV_NULL, BadName, is_epoch, split_side, strip_path
from ljtui.core.edits.read_unified_sections import GitHeader, read_git_header

__all__ = ["parse_unified"]

_BINARY = re.compile(r"Binary files (.+) and (.+) differ\Z")
_COMBINED = ("diff --cc ", "diff --combined ")


def parse_unified(text: str, *, strip: int | None = None) -> EditPlan:
    """Read a unified diff, a git diff or a ``git format-patch`` series into an :class:`EditPlan`.

    Args:
        text: The diff, decoded from bytes as UTF-8 with ``surrogateescape``.
        strip: Leading path components to remove from every file name (``patch -pN``);
            ``None`` decides per section (see the module's docstring).

    Returns:
        The plan: its blocks in the order of the text, one entry per file section.

    Raises:
        PlanParseError: The text holds no file section (``NoBlocks``), or breaks the
            format (``MalformedPatch``, ``BinaryPatch``, ``UnsupportedPatch``,
            ``UnanchoredHunk``); every problem found is named.
    """
    if strip is not None and strip < 0:
        raise ValueError(f"strip must be 0 or more, not {strip}")
    reader = _Reader(text, strip)
    reader.read()
    errors = reader.errors + reader.maker.errors
    if errors:
        raise PlanParseError(errors)
    if not reader.maker.blocks:
        raise PlanParseError([E.NoBlocks(None, "the text holds no file section of a diff"
                                               " ('diff --git' or '---'/'+++' lines followed by hunks)")])
    return EditPlan(tuple(reader.maker.blocks))


class _Reader:
    """One pass over the text's lines: mail headers, file sections and their hunks, in order."""

    def __init__(self, text: str, strip: int | None) -> None:
        self.lines = split_lines(text)
        self.strip = strip
        self.errors: list[E.EditError] = []
        self.maker = BlockMaker()
        self.commit: str | None = None
        self.in_mail = False

    def fail(self, message: str, file: str | None = None, kind: type[E.EditError] = E.MalformedPatch) -> None:
        """Record a problem (a ``MalformedPatch`` unless ``kind`` says otherwise)."""
        self.errors.append(kind(None, message, file))

    def read(self) -> None:
        """Read the whole text; lines that start no section are skipped."""
        lines, i = self.lines, 0
        while i < len(lines):
            head = lines[i].head
            if FROM_LINE.match(head):
                self.commit, i = read_mail_headers(lines, i)
                self.in_mail = True
            elif head.startswith("diff --git "):
                i = self._git(i)
            elif head.startswith(_COMBINED):
                i = self._combined(i)
            elif head.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].head.startswith("+++ "):
                i = self._plain(i) if i + 2 < len(lines) and lines[i + 2].head.startswith("@@") else i + 2
            elif head.startswith("+++ "):
                self.fail(f"line {lines[i].number}: {head!r} has no '---' line before it")
                i = self._hunks(i + 1, None)
            elif head.startswith("@@ -"):
                self.fail(f"line {lines[i].number}: the hunk {head!r} comes before any file header"
                          " ('diff --git', or '---' and '+++' lines)")
                i = extent(lines, i)[2]
            elif _BINARY.match(head):
                self._plain_binary(lines[i])
                i += 1
            else:
                i += 1

    def _format(self, git: bool) -> str:
        """The format of a section read now: ``mbox`` inside a mail, else ``git`` or ``unified``."""
        return "mbox" if self.in_mail else "git" if git else "unified"

    def _hunks(self, i: int, section: Section | None) -> int:
        """Read the hunks from ``lines[i]`` on; ``section=None`` reads them only to step over them."""
        while i < len(self.lines) and self.lines[i].head.startswith("@@"):
            hunk, i, problem = read_hunk(self.lines, i)
            if problem is not None:
                self.fail(problem, section.path if section else None)
            elif section is not None and hunk is not None:
                section.hunks.append(hunk)
        return i

    def _path(self, name: str, line: Line, strip: int) -> str | None:
        """``name`` stripped of ``strip`` components; ``None`` (and a problem recorded) when it cannot be a path."""
        if not name:
            self.fail(f"line {line.number}: {line.head!r} names no file")
            return None
        path = strip_path(name, strip)
        if path is None:
            hint = " (a diff made with --no-prefix is read with strip 0, as patch -p0)" if self.strip is None else ""
            self.fail(f"line {line.number}: stripping {strip} leading component{'s' * (strip != 1)} from"
                      f" {name!r} leaves no file name{hint}")
        elif "\0" in path:
            self.fail(f"line {line.number}: the file name {path!r} holds a NUL character")
            return None
        return path

    def _git(self, i: int) -> int:
        """Read the ``diff --git`` section at ``lines[i]``; the index of the line after it."""
        header, i = read_git_header(self.lines, i, 1 if self.strip is None else self.strip)
        for message in header.problems:
            self.fail(message, header.path)
        section = Section(self._format(True), self.commit, header.line.number) if header.usable else None
        if section is not None and not self._git_section(header, section):
            section = None
        before = len(self.errors)
        i = self._hunks(i, section)
        if section is not None and len(self.errors) == before:
            self.maker.add(section)
        return i

    def _git_section(self, header: GitHeader, section: Section) -> bool:
        """Fill ``section`` from its git header; False (problems recorded) when it cannot be applied."""
        strip = 1 if self.strip is None else self.strip
        names = []
        for name, line, own_strip in ((header.old_name, header.old_line, header.old_strip),
                                      (header.new_name, header.new_line, header.new_strip)):
            if name is None or name == DEV_NULL:
                names.append(None)
                continue
            path = self._path(name, line, strip if own_strip is None else own_strip)
            if path is None:
                return False
            names.append(path)
        section.old, section.new = names
        if header.unsupported:
            self.fail(header.unsupported.replace("{path}", section.path), section.path, E.UnsupportedPatch)
            return False
        if header.binary is not None:
            self._binary(section.path, header.binary, True)
            return False
        if section.old is None and section.new is None:
            self.fail(f"line {header.line.number}: both sides of the file are /dev/null")
            return False
        if section.old is None or header.created is not None:
            section.created = header.created or FileLine(header.line.head, header.line.number)
            mode = header.created_mode
            section.created_mode = EXECUTABLE if mode is not None and mode_of(mode) == EXECUTABLE else None
        elif section.new is None or header.deleted is not None:
            section.deleted = header.deleted or FileLine(header.new_line.head, header.new_line.number)
        else:
            if header.renamed is not None and section.old != section.new:
                section.moved = header.renamed
            if header.new_mode is not None:
                new_mode, at = header.new_mode
                if header.old_mode is None or mode_of(header.old_mode) != mode_of(new_mode):
                    section.mode = (mode_of(new_mode), at)
        return True

    def _plain(self, i: int) -> int:
        """Read the plain ``---``/``+++`` section at ``lines[i]``; the index of the line after it."""
        lines = self.lines
        sides = []
        for line in (lines[i], lines[i + 1]):
            try:
                name, stamp = split_side(line.head[4:], stamps=True)
            except BadName as exc:
                self.fail(f"line {line.number}: {exc}")
                return self._hunks(i + 2, None)
            sides.append((name, name == DEV_NULL or is_epoch(stamp), line))
        (old, old_gone, old_line), (new, new_gone, new_line) = sides
        strip = self.strip
        if strip is None:
            named = [(name, prefix) for name, prefix in ((old, "a/"), (new, "b/")) if name != DEV_NULL]
            strip = int(bool(named) and all(name.startswith(prefix) for name, prefix in named))
        section = Section(self._format(False), self.commit, old_line.number)
        if old_gone and new_gone:
            self.fail(f"line {old_line.number}: both sides of the file are absent (/dev/null or the epoch)")
            return self._hunks(i + 2, None)
        paths = []
        for name, _, line in sides:
            path = None if name == DEV_NULL else self._path(name, line, strip)
            if path is None and name != DEV_NULL:
                return self._hunks(i + 2, None)
            paths.append(path)
        section.old = None if old_gone else paths[0]
        section.new = None if new_gone else paths[1]
        if old_gone:
            section.created = FileLine(lines[i + 2].head, lines[i + 2].number)
        elif new_gone:
            section.deleted = FileLine(new_line.head, new_line.number)
        before = len(self.errors)
        i = self._hunks(i + 2, section)
        if len(self.errors) == before:
            self.maker.add(section)
        return i

    def _combined(self, i: int) -> int:
        """Refuse the combined (merge) diff at ``lines[i]`` and step over it."""
        line = self.lines[i]
        name = line.head.split(" ", 2)[2]
        self.fail(f"line {line.number}: {name} has a combined (merge) diff, which ljtui does not read;"
                  " make the diff against one parent (git diff HEAD)", name, E.UnsupportedPatch)
        i += 1
        while i < len(self.lines) and not self.lines[i].head.startswith(("diff ", "From ")):
            i += 1
        return i

    def _plain_binary(self, line: Line) -> None:
        """Refuse a ``diff -r`` binary line (``Binary files a/x and b/x differ``)."""
        match = _BINARY.match(line.head)
        assert match is not None
        old, new = (_unquoted(name) for name in match.groups())
        name = old if new == DEV_NULL else new
        strip = self.strip
        if strip is None:
            strip = int(old.startswith("a/") and new.startswith("b/"))
        path = strip_path(name, strip) or name
        self._binary(path, FileLine(line.head, line.number), False)

    def _binary(self, path: str, at: FileLine, git: bool) -> None:
        """Refuse a binary change to ``path``, saying how to leave the file out of the diff."""
        hint = f"git diff -- . ':!{path}'" if git else f"diff -ur -x '{path.rsplit('/', 1)[-1]}'"
        self.fail(f"line {at.line}: {path} has a binary change ({at.text!r}); ljtui reads text hunks only:"
                  f" leave the file out of the diff (e.g. {hint})", path, E.BinaryPatch)


def _unquoted(name: str) -> str:
    if name.startswith('"'):
        try:
            return split_side(name, stamps=False)[0]
        except BadName:
            return name
    return name
