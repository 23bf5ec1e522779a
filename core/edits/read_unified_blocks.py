"""Turning the file sections of a diff into EDIT blocks: one entry per section."""

from __future__ import annotations

from dataclasses import dataclass, field

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import (
    CREATE,
    DELETE,
    EDIT,
    EXECUTABLE,
    MODE,
    MOVE,
    REGULAR,
    BlockSource,
    EditBlock,
    HunkAnchor,
)
from ljtui.core.edits.read_unified_hunks import Hunk


@dataclass(frozen=True)
class FileLine:
    """A file-level header line (``rename from a``, ``deleted file mode 100644``) and where it is."""

    text: str
    line: int


@dataclass
class Section:
    """One file's part of a diff, as read from its headers and hunks.

    Attributes:
        format: ``git``, ``unified`` or ``mbox``.
        commit: The subject of the commit it belongs to (``mbox``), else ``None``.
        line: Line of the section's first header.
        old: The file's path before the change (``None``: it did not exist).
        new: The file's path after the change (``None``: it is deleted).
        created: The line that says the file is new (``new file mode``, or the ``@@`` of a plain diff).
        created_mode: The mode a new file gets (:data:`EXECUTABLE` or ``None``).
        deleted: The line that says the file is deleted.
        moved: The ``rename from`` line of a rename.
        mode: The mode a changed file gets, and the ``new mode`` line.
        hunks: The hunks, in order.
    """

    format: str
    commit: str | None
    line: int
    old: str | None = None
    new: str | None = None
    created: FileLine | None = None
    created_mode: int | None = None
    deleted: FileLine | None = None
    moved: FileLine | None = None
    mode: tuple[int, FileLine] | None = None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The path the section's entry is named by: the new path, or the deleted one."""
        return self.new if self.new is not None else self.old or ""

    @property
    def label(self) -> str:
        """The file as the change names it, ``old → new`` for a rename."""
        return f"{self.old} → {self.new}" if self.moved else self.path


def mode_of(mode: int) -> int:
    """The mode ljtui writes for a git regular-file mode: executable when the owner may run it."""
    return EXECUTABLE if mode & 0o100 else REGULAR


class BlockMaker:
    """Numbers blocks over the whole text and names each section's entry (``path``, ``path@2`` …)."""

    def __init__(self) -> None:
        self.blocks: list[EditBlock] = []
        self.errors: list[E.EditError] = []
        self._seen: dict[str, int] = {}

    def add(self, section: Section) -> None:
        """Make the blocks of ``section``, or record why it cannot be read."""
        drafts = self._drafts(section)
        if drafts is None:
            return
        path = section.path
        self._seen[path] = self._seen.get(path, 0) + 1
        entry = path if self._seen[path] == 1 else f"{path}@{self._seen[path]}"
        for fields, origin in drafts:
            source = BlockSource(section.format, section.label, hunks=len(section.hunks), commit=section.commit,
                                 **origin)
            self.blocks.append(EditBlock(number=len(self.blocks) + 1, entry=entry, prose="", source=source,
                                         line=source.line, **fields))

    def _fail(self, section: Section, message: str, kind: type[E.EditError] = E.MalformedPatch) -> None:
        self.errors.append(kind(None, message, section.path))

    def _drafts(self, section: Section) -> list[tuple[dict, dict]] | None:
        """Each block's fields and source fields; ``None`` (problems recorded) when the section cannot apply."""
        path, hunks = section.path, section.hunks
        drafts: list[tuple[dict, dict]] = []
        if section.created is not None:
            olds = [h for h in hunks if h.old_count or h.old]
            if olds:
                self._fail(section, f"line {olds[0].line}: {path} is a new file, but its hunk has old lines")
                return None
            head = hunks[0] if hunks else None
            at = FileLine(head.header, head.line) if head else section.created
            drafts.append((dict(file=path, where=head.where if head else None, old="",
                                new="".join(h.new for h in hunks), action=CREATE, mode=section.created_mode),
                           dict(hunk=1 if hunks else 0, header=at.text, line=at.line)))
            return drafts
        if section.deleted is not None:
            news = [h for h in hunks if h.added or h.new]
            if news:
                self._fail(section, f"line {news[0].line}: {path} is deleted, but its hunk still has new lines")
                return None
            drafts.append((dict(file=path, where=None, old="".join(h.old for h in hunks), new="", action=DELETE,
                                anchor=HunkAnchor(at_start=True, at_end=True)),
                           dict(header=section.deleted.text, line=section.deleted.line)))
            return drafts
        if section.moved is not None:
            drafts.append((dict(file=path, where=None, old="", new="", action=MOVE, moved_from=section.old),
                           dict(header=section.moved.text, line=section.moved.line)))
        if section.mode is not None:
            mode, at = section.mode
            drafts.append((dict(file=path, where=None, old="", new="", action=MODE, mode=mode),
                           dict(header=at.text, line=at.line)))
        unanchored = False
        for number, hunk in enumerate(hunks, 1):
            anchor = HunkAnchor(at_start=hunk.at_start, at_end=hunk.at_end, line=hunk.old_start)
            if not hunk.old and not (anchor.at_start and anchor.at_end):
                self._fail(section, f"line {hunk.line}: the hunk {hunk.header!r} of {path} has no old lines to"
                                    " place it by (a diff made with -U0?): it would apply by line number alone;"
                                    " make the diff with context lines (git diff -U3)", E.UnanchoredHunk)
                unanchored = True
            drafts.append((dict(file=path, where=hunk.where, old=hunk.old, new=hunk.new, action=EDIT,
                                anchor=anchor),
                           dict(hunk=number, header=hunk.header, line=hunk.line)))
        return None if unanchored else drafts
