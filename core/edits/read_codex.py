"""OpenAI Codex's ``apply_patch`` envelope: a pure function from its text to an :class:`EditPlan`.

The grammar, as Codex documents it (``apply_patch_tool_instructions.md``) and
parses it (``codex-rs/apply-patch/src/parser.rs``)::

    *** Begin Patch
    *** Add File: <path>          then the content, every line starting with ``+``
    *** Delete File: <path>
    *** Update File: <path>
    *** Move to: <new path>       (optional, right after Update File)
    @@ [<a line of the file>]     (one or more in a row; the first hunk may have none)
     context / -removed / +added lines (an empty line is an empty context line)
    *** End of File               (optional, after a hunk's lines)
    *** End Patch

Read as Codex's lenient parser reads it: whitespace around the ``***``
markers, blank lines before a hunk, a heredoc wrapper (``<<'EOF'`` …
``EOF``, or ``apply_patch <<'EOF'`` as a shell call writes it). Each hunk
becomes an EDIT block placed by its text alone, exactly once, narrowed by a
:class:`~ljtui.core.edits.plan.HunkAnchor` (the ``@@`` line it follows,
``*** End of File``), never by the fuzzy line search Codex applies with.
Content lines keep their bytes: a CRLF patch's ``\\r`` stays in ``old`` and
``new``, where Codex drops it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import (
    CREATE,
    DELETE,
    EDIT,
    MOVE,
    BlockSource,
    EditBlock,
    EditPlan,
    HunkAnchor,
    PlanParseError,
)

__all__ = ["CONTEXT_JOIN", "FORMAT", "parse_codex"]

FORMAT = "codex"
BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, REMOVE, UPDATE, MOVE_TO = "*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:"
END_OF_FILE = "*** End of File"
SECTIONS = (ADD, REMOVE, UPDATE)
CONTEXT_JOIN = " › "
"""Joins the texts of nested ``@@`` lines (class, then method) in a block's ``where``."""
SHOWN_CHARS = 60
"""Longest excerpt of a patch line a message quotes."""

_HEREDOC = re.compile(r"""<<(?:EOF|'EOF'|"EOF")""")
"""The heredoc openers Codex's lenient parser strips (the closing line must end with ``EOF``)."""
_SHELL_HEREDOC = re.compile(r"""(?:apply_patch|applypatch)[ \t]*<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1""")
"""``apply_patch <<'WORD'``, as a shell call holds the patch (the closing line is ``WORD``)."""
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


@dataclass(frozen=True)
class _Line:
    """One line of the text, without its ``\\n``."""

    number: int
    raw: str
    """The line as written; a CRLF line keeps its ``\\r``."""

    @property
    def bare(self) -> str:
        """The line without the ``\\r`` of a CRLF line break."""
        return self.raw[:-1] if self.raw.endswith("\r") else self.raw

    @property
    def text(self) -> str:
        """The line stripped of surrounding whitespace, as markers are compared."""
        return self.bare.strip()


@dataclass
class _Hunk:
    """One hunk of an Update File section, as read."""

    line: int
    headers: list[str] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    rows: int = 0
    eof: bool = False

    def add(self, raw: str) -> None:
        """Add a context, removed or added line (an empty line is an empty context line)."""
        kind, text = (" ", raw) if raw in ("", "\r") else (raw[0], raw[1:])
        if kind != "+":
            self.old.append(text + "\n")
        if kind != "-":
            self.new.append(text + "\n")
        self.rows += 1


def patch_paths(text: str) -> list[str]:
    """The paths a Codex patch names (added, deleted, updated, moved to), in order, each once; nothing checked:
    what a patch is about, for a listing, before it is read (:func:`parse_codex`)."""
    found: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        for header in (*SECTIONS, MOVE_TO):
            if stripped.startswith(header):
                path = stripped[len(header):].strip()
                if path and path not in found:
                    found.append(path)
    return found


def parse_codex(text: str) -> EditPlan:
    """Read a Codex ``*** Begin Patch`` … ``*** End Patch`` envelope.

    Args:
        text: The patch, decoded from bytes as UTF-8 with ``surrogateescape``.

    Returns:
        The plan: per file operation one entry (``path``, then ``path@2`` … for a path named again);
        ``*** Add File`` a ``create`` block, ``*** Delete File`` a ``delete`` block (its content is not
        carried), ``*** Update File`` an optional ``move`` block then one ``edit`` block per hunk, on the
        new path.

    Raises:
        PlanParseError: The text breaks the grammar (``MalformedPatch``, each naming its line), a hunk only
            adds lines with nothing to place them by (``UnanchoredHunk``), or it changes no file
            (``NoBlocks``).
    """
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    lines = [_Line(k, raw) for k, raw in enumerate(parts, 1)]
    body, errors = _envelope(lines)
    if errors:
        raise PlanParseError(errors)
    reader = _Reader(body)
    reader.run()
    if reader.errors:
        raise PlanParseError(reader.errors)
    if not reader.blocks:
        raise PlanParseError([E.NoBlocks(None, "the patch holds no file operation between '*** Begin Patch' "
                                               "and '*** End Patch'")])
    return EditPlan(tuple(reader.blocks))


def _envelope(lines: list[_Line]) -> tuple[list[_Line], list[E.EditError]]:
    """The lines between ``*** Begin Patch`` and ``*** End Patch`` (blank lines around, a heredoc aside)."""
    filled = [line for line in lines if line.text]
    if not filled:
        return [], [E.NoBlocks(None, "the text is empty: a Codex patch runs from '*** Begin Patch' to "
                                     "'*** End Patch'")]
    if filled[0].text != BEGIN and len(filled) >= 4:
        opener, closer = filled[0].text, filled[-1].text
        shell = _SHELL_HEREDOC.fullmatch(opener)
        if (_HEREDOC.fullmatch(opener) and closer.endswith("EOF")) or (shell and closer == shell.group(2)):
            filled = filled[1:-1]
    first, last = filled[0], filled[-1]
    errors: list[E.EditError] = []
    if first.text != BEGIN:
        errors.append(E.MalformedPatch(None, f"line {first.number}: a Codex patch starts with '{BEGIN}', "
                                             f"not {_show(first.text)}"))
    if last.text != END or last is first:
        errors.append(E.MalformedPatch(None, f"line {last.number}: a Codex patch ends with '{END}', "
                                             f"not {_show(last.text)}"))
    return lines[first.number:last.number - 1], errors


def _show(text: str) -> str:
    """``text`` quoted for a message, shortened."""
    return repr(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…")


def _absolute(path: str) -> bool:
    """True for a path Codex's instructions forbid: absolute (POSIX, Windows drive or UNC)."""
    return path.startswith(("/", "\\")) or _DRIVE.match(path) is not None


class _Reader:
    """Reads the file operations of a patch body into blocks, collecting every error it can name."""

    def __init__(self, body: list[_Line]) -> None:
        self.body = body
        self.blocks: list[EditBlock] = []
        self.errors: list[E.EditError] = []
        self._seen: dict[str, int] = {}
        self._last: tuple[str, str] = ("", "")
        """The previous section's marker and path, for the message about a stray line after it."""

    def run(self) -> None:
        """Read every section; after an error, go on at the next ``*** Add/Delete/Update File:`` line."""
        at = 0
        while at < len(self.body):
            line = self.body[at]
            if line.text.startswith(ADD):
                at = self._add(at)
            elif line.text.startswith(REMOVE):
                at = self._delete(at)
            elif line.text.startswith(UPDATE):
                at = self._update(at)
            else:
                self._fail(*self._stray(line))
                at = self._resync(at + 1)

    def _fail(self, message: str, file: str | None = None, kind: type[E.EditError] = E.MalformedPatch) -> None:
        """Record an error (``MalformedPatch`` unless told)."""
        self.errors.append(kind(None, message, file=file))

    def _resync(self, at: int) -> int:
        """The index of the next section header from ``at`` on (the end when there is none)."""
        while at < len(self.body) and not self.body[at].text.startswith(SECTIONS):
            at += 1
        return at

    def _stray(self, line: _Line) -> tuple[str, str | None]:
        """The message (and file) for a line where a section header should be, after the section ``_last``."""
        text, marker, path = line.text, *self._last
        where = f"line {line.number}: "
        if not text:
            hint = "; an empty line of a new file is written '+'" if marker == ADD else ""
            return where + "a blank line between file operations (Codex reads only '*** Add File: ', " \
                           f"'*** Delete File: ' or '*** Update File: ' there){hint}", None
        if marker == ADD and not text.startswith("*"):
            return where + f"{_show(line.bare)} in the Add File section of {path} does not start with '+'", path
        if marker == UPDATE and not text.startswith("***"):
            return where + f"{_show(line.bare)} in a hunk of {path} starts with none of ' ' (context), '-' " \
                           "(removed), '+' (added)", path
        if marker == REMOVE and not text.startswith("*"):
            return where + f"{_show(line.bare)} follows '*** Delete File: {path}', which takes no lines", path
        if text == END:
            return where + f"'{END}' before the end of the patch (only blank lines may follow it)", None
        if text == BEGIN:
            return where + f"a second '{BEGIN}' inside the patch", None
        if text.startswith(MOVE_TO):
            return where + f"'{MOVE_TO}' must directly follow an '{UPDATE}' line", None
        if text == END_OF_FILE:
            return where + f"'{END_OF_FILE}' must end the lines of a hunk of an Update File section", None
        if text.startswith("***"):
            return where + f"unknown marker {_show(text)} (Codex knows '{ADD} ', '{REMOVE} ', '{UPDATE} ', " \
                           f"'{MOVE_TO} ', '{END_OF_FILE}' and '{END}')", None
        return where + f"{_show(text)} is not a file operation: expected '{ADD} <path>', '{REMOVE} <path>' " \
                       f"or '{UPDATE} <path>'", None

    def _path(self, line: _Line, marker: str) -> str | None:
        """The path after ``marker`` on ``line``, or ``None`` (the error recorded) when it is unusable."""
        rest = line.text[len(marker):]
        where = f"line {line.number}: "
        path = rest.strip()
        if not path:
            self._fail(where + f"'{marker}' names no file")
        elif not rest.startswith(" "):
            self._fail(where + f"{_show(line.text)}: a space must follow '{marker}'")
        elif "\0" in path:
            self._fail(where + f"the path {_show(path)} holds a NUL character")
        elif _absolute(path):
            self._fail(where + f"{_show(path)} is an absolute path; a Codex patch names files relative to "
                               "the working directory", file=path)
        else:
            return path
        return None

    def _entry(self, file: str) -> str:
        """The entry id of a new section on ``file``: the path, then ``path@2`` … when named again."""
        count = self._seen[file] = self._seen.get(file, 0) + 1
        return file if count == 1 else f"{file}@{count}"

    def _block(self, file: str, entry: str, line: int, action: str, source: BlockSource, *, old: str = "",
               new: str = "", where: str | None = None, moved_from: str | None = None,
               anchor: HunkAnchor | None = None) -> None:
        """Append a block numbered after the previous one."""
        self.blocks.append(EditBlock(len(self.blocks) + 1, file, where, entry, old, new, line=line, action=action,
                                     moved_from=moved_from, anchor=anchor, source=source))

    def _add(self, at: int) -> int:
        """``*** Add File:`` and its ``+`` lines: a ``create`` block. Returns the index after the section."""
        head = self.body[at]
        path = self._path(head, ADD)
        end = at + 1
        while end < len(self.body) and self.body[end].raw.startswith("+"):
            end += 1
        if path is not None:
            content = "".join(line.raw[1:] + "\n" for line in self.body[at + 1:end])
            source = BlockSource(FORMAT, path, header=head.text, line=head.number)
            self._block(path, self._entry(path), head.number, CREATE, source, new=content)
        self._last = (ADD, path or "")
        return end

    def _delete(self, at: int) -> int:
        """``*** Delete File:``: a ``delete`` block without content. Returns the index after the line."""
        head = self.body[at]
        path = self._path(head, REMOVE)
        if path is not None:
            source = BlockSource(FORMAT, path, header=head.text, line=head.number)
            self._block(path, self._entry(path), head.number, DELETE, source)
        self._last = (REMOVE, path or "")
        return at + 1

    def _update(self, at: int) -> int:
        """``*** Update File:``, an optional ``*** Move to:``, and its hunks. Returns the index after them."""
        head = self.body[at]
        path = self._path(head, UPDATE)
        start, moved, move_line = at + 1, None, None
        if start < len(self.body) and self.body[start].text.startswith(MOVE_TO):
            move_line = self.body[start]
            moved = self._path(move_line, MOVE_TO)
            start += 1
        name = path or head.text
        errors = len(self.errors)
        hunks, end = self._hunks(start, name)
        self._last = (UPDATE, name)
        if path is None or (move_line is not None and moved is None) or len(self.errors) > errors:
            return end
        if not hunks:
            self._fail(f"line {head.number}: the Update File section of {path} has no hunk", file=path)
            return end
        file = moved or path
        for number, hunk in enumerate(hunks, 1):
            if not hunk.old and not hunk.eof:
                self._fail(f"line {hunk.line}: hunk {number} of {path} only adds lines, with no context line, "
                           f"removed line or '{END_OF_FILE}' to place them by (Codex would append them at the "
                           "end of the file)", file=file, kind=E.UnanchoredHunk)
        if len(self.errors) > errors:
            return end
        entry, label = self._entry(file), path if moved is None else f"{path} → {moved}"
        if move_line is not None:
            source = BlockSource(FORMAT, label, 0, len(hunks), move_line.text, line=move_line.number)
            self._block(file, entry, move_line.number, MOVE, source, moved_from=path)
        for number, hunk in enumerate(hunks, 1):
            after = hunk.contexts[-1] if hunk.contexts else None
            anchor = HunkAnchor(at_end=hunk.eof, after=after) if after is not None or hunk.eof else None
            source = BlockSource(FORMAT, label, number, len(hunks), " ".join(hunk.headers), line=hunk.line)
            self._block(file, entry, hunk.line, EDIT, source, old="".join(hunk.old), new="".join(hunk.new),
                        where=CONTEXT_JOIN.join(hunk.contexts) or None, anchor=anchor)
        return end

    def _hunks(self, at: int, name: str) -> tuple[list[_Hunk], int]:
        """The hunks of an Update File section from ``at``, and the index after them.

        A hunk opens at ``@@`` (``@@`` lines in a row nest their contexts), or at the section's first hunk
        line; it ends at the next ``@@``, at ``*** End of File``, at a line starting with ``*`` (the next
        section), or at a whitespace-only line not starting with a space (Codex skips it between hunks).
        """
        hunks: list[_Hunk] = []
        hunk: _Hunk | None = None
        while at < len(self.body):
            line = self.body[at]
            bare, where = line.bare, f"line {line.number}: "
            if bare.startswith("*"):
                if bare.rstrip() != END_OF_FILE:
                    break
                if hunk is None or not hunk.rows:
                    self._fail(where + f"'{END_OF_FILE}' follows no hunk line in {name}", file=name)
                else:
                    hunk.eof = True
                    hunks.append(hunk)
                hunk = None
            elif bare == "@@" or bare.startswith("@@ "):
                if hunk is not None and hunk.rows:
                    hunks.append(hunk)
                    hunk = None
                hunk = hunk or _Hunk(line.number)
                hunk.headers.append(bare.rstrip())
                if bare[3:].strip():
                    hunk.contexts.append(bare[3:].strip())
            elif hunk is None and not bare.strip():
                pass
            elif bare == "" or bare[0] in " +-":
                if hunk is None and hunks:
                    self._fail(where + f"{_show(bare)} starts a hunk of {name} without '@@' (only the first "
                                       "hunk may omit it)", file=name)
                    return hunks, self._resync(at + 1)
                hunk = hunk or _Hunk(line.number)
                hunk.add(line.raw)
            elif hunk is not None and hunk.rows and not bare.strip():
                hunks.append(hunk)
                hunk = None
            else:
                problem = ("is not a hunk header: Codex writes '@@' or '@@ <a line of the file>'"
                           if bare.startswith("@") else
                           f"in a hunk of {name} starts with none of ' ' (context), '-' (removed), '+' (added)")
                self._fail(where + f"{_show(bare)} {problem}", file=name)
                return hunks, self._resync(at + 1)
            at += 1
        if hunk is not None and hunk.rows:
            hunks.append(hunk)
        elif hunk is not None:
            self._fail(f"line {hunk.line}: the hunk {_show(hunk.headers[-1])} of {name} has no lines", file=name)
        return hunks, at
