"""The header of a ``diff --git`` section: its extended lines, its ``---``/``+++`` names, binary data."""

from __future__ import annotations

from dataclasses import dataclass, field

from ljtui.core.edits.read_unified_blocks import FileLine
from ljtui.core.edits.read_unified_hunks import Line
from ljtui.core.edits.read_unified_names import (
    DEV_NULL,
    SUBMODULE,
    SYMLINK,
    BadName,
    git_header_names,
    parse_mode,
    split_side,
    strip_path,
)

_MODE_KEYS = ("old mode ", "new mode ", "new file mode ", "deleted file mode ")
_NAME_KEYS = {"rename from ": "old", "rename old ": "old", "copy from ": "old",
              "rename to ": "new", "rename new ": "new", "copy to ": "new"}
_IGNORED = ("similarity index ", "dissimilarity index ", "index ")
_KINDS = {SYMLINK: "a symbolic link", SUBMODULE: "a submodule"}


@dataclass
class GitHeader:
    """What the lines between ``diff --git`` and the first hunk say.

    Attributes:
        line: The ``diff --git`` line.
        strip: Components the reader strips from ``---``/``+++`` and ``diff --git`` names.
        old_name: The name before the change, not yet stripped (``/dev/null``: none), or ``None`` if unknown.
        new_name: The name after it, likewise.
        old_line: The line ``old_name`` was read from.
        new_line: The line ``new_name`` was read from.
        old_strip: Components to strip from ``old_name`` when not the reader's (``rename from`` lines).
        new_strip: Likewise for ``new_name``.
        created: The ``new file mode`` line; ``created_mode`` its mode.
        deleted: The ``deleted file mode`` line.
        renamed: The ``rename from`` line.
        old_mode: The ``old mode``.
        new_mode: The ``new mode`` and its line.
        binary: The line that says the change is binary.
        unsupported: Why the change cannot be read, with ``{path}`` for the file's path.
        problems: Messages of lines that break the format.
        copied_from: The ``copy from`` line of a copy.
    """

    line: Line
    strip: int = 1
    old_name: str | None = None
    new_name: str | None = None
    old_line: Line | None = None
    new_line: Line | None = None
    old_strip: int | None = None
    new_strip: int | None = None
    created: FileLine | None = None
    created_mode: int | None = None
    deleted: FileLine | None = None
    renamed: FileLine | None = None
    old_mode: int | None = None
    new_mode: tuple[int, FileLine] | None = None
    binary: FileLine | None = None
    unsupported: str | None = None
    problems: list[str] = field(default_factory=list)
    copied_from: str | None = None

    @property
    def usable(self) -> bool:
        """True when the header breaks no rule and names its file."""
        return not self.problems

    @property
    def path(self) -> str | None:
        """The file's name, for messages about the header itself (the ``diff --git`` line's when no other)."""
        name = self.new_name if self.new_name not in (None, DEV_NULL) else self.old_name
        if name in (None, DEV_NULL):
            names = git_header_names(self.line.head[len("diff --git "):], self.strip)
            name = names[1] if names else None
        if name is None:
            return None
        return strip_path(name, self.strip if self.new_strip is None else self.new_strip) or name


def read_git_header(lines: list[Line], start: int, strip: int) -> tuple[GitHeader, int]:
    """Read the header of the ``diff --git`` section at ``lines[start]``.

    Args:
        lines: The diff's lines.
        start: Index of the ``diff --git`` line.
        strip: Components the reader strips from names (for splitting the ``diff --git`` names).

    Returns:
        The header and the index of its first hunk (or of the line after the section's header).
    """
    header = GitHeader(lines[start], strip)
    i = start + 1
    while i < len(lines):
        line = lines[i]
        head = line.head
        if head.startswith("--- "):
            if i + 1 >= len(lines) or not lines[i + 1].head.startswith("+++ "):
                header.problems.append(f"line {line.number}: {head!r} is not followed by a '+++' line")
                return header, i + 1
            _side(header, "old", head[4:], line, None)
            _side(header, "new", lines[i + 1].head[4:], lines[i + 1], None)
            i += 2
            break
        if head.startswith("+++ "):
            header.problems.append(f"line {line.number}: {head!r} has no '---' line before it")
            return header, i + 1
        if head.startswith("Binary files ") and head.endswith(" differ"):
            header.binary = FileLine(head, line.number)
            i += 1
            break
        if head == "GIT binary patch":
            header.binary = FileLine(head, line.number)
            i += 1
            while i < len(lines) and not lines[i].head.startswith(("diff ", "From ")):
                i += 1
            break
        if not _extended(header, line, strip):
            break
        i += 1
    if not header.problems:
        _names_from_diff_line(header, strip)
    return header, i


def _extended(header: GitHeader, line: Line, strip: int) -> bool:
    """Read one extended header line; False when ``line`` is none."""
    head = line.head
    for key in _MODE_KEYS:
        if head.startswith(key):
            _mode(header, key, head[len(key):], line)
            return True
    for key, side in _NAME_KEYS.items():
        if head.startswith(key):
            _side(header, side, head[len(key):], line, max(strip - 1, 0), plain=True)
            if key.startswith("rename") and side == "old":
                header.renamed = FileLine(head, line.number)
            if key == "copy from ":
                header.copied_from = head
            if key == "copy to " and header.unsupported is None:
                copied = header.copied_from or head
                header.unsupported = (f"line {line.number}: {{path}} is a copy ({copied!r}); ljtui does not"
                                      " copy files: make the diff without copy detection (no -C)")
            return True
    if head.startswith(_IGNORED):
        parts = head.split()
        if parts[0] == "index" and len(parts) == 3 and parse_mode(parts[2]) in _KINDS:
            _refuse(header, parse_mode(parts[2]) or 0, line)
        return True
    return False


def _mode(header: GitHeader, key: str, text: str, line: Line) -> None:
    mode = parse_mode(text)
    if mode is None:
        header.problems.append(f"line {line.number}: {text.strip()!r} in {line.head!r} is not a git file mode")
        return
    if mode in _KINDS or mode >> 12 != 0o10:
        _refuse(header, mode, line)
        return
    at = FileLine(line.head, line.number)
    if key == "old mode ":
        header.old_mode = mode
    elif key == "new mode ":
        header.new_mode = (mode, at)
    elif key == "new file mode ":
        header.created, header.created_mode = at, mode
        header.old_name = DEV_NULL if header.old_line is None else header.old_name
    else:
        header.deleted = at
        header.new_name = DEV_NULL if header.new_line is None else header.new_name


def _refuse(header: GitHeader, mode: int, line: Line) -> None:
    if header.unsupported is not None:
        return
    kind = _KINDS.get(mode, "not a regular file")
    why = {SYMLINK: "ljtui writes regular files only", SUBMODULE: "ljtui does not change submodules"}
    header.unsupported = (f"line {line.number}: {{path}} is {kind} (mode {mode:06o}, {line.head!r});"
                          f" {why.get(mode, 'ljtui writes regular files only')}: leave it out of the diff")


def _side(header: GitHeader, side: str, text: str, line: Line, own_strip: int | None, *, plain: bool = False) -> None:
    """Record the name of one side; names from ``rename``/``copy`` lines win over ``---``/``+++`` ones."""
    try:
        name = split_side(text, stamps=False)[0] if not plain or text.startswith('"') else text
    except BadName as exc:
        header.problems.append(f"line {line.number}: {exc}")
        return
    if not name:
        header.problems.append(f"line {line.number}: {line.head!r} names no file")
        return
    current = header.old_line if side == "old" else header.new_line
    if current is not None and _from_name_line(current) and not plain:
        return
    setattr(header, f"{side}_name", name)
    setattr(header, f"{side}_line", line)
    setattr(header, f"{side}_strip", own_strip)


def _from_name_line(line: Line) -> bool:
    return line.head.startswith(tuple(_NAME_KEYS))


def _names_from_diff_line(header: GitHeader, strip: int) -> None:
    """Fill the names the section's other lines left unknown from its ``diff --git`` line."""
    if header.old_name is not None and header.new_name is not None:
        return
    names = git_header_names(header.line.head[len("diff --git "):], strip)
    if names is None:
        header.problems.append(f"line {header.line.number}: cannot tell the file names apart in"
                               f" {header.line.head!r}")
        return
    if header.old_name is None:
        header.old_name, header.old_line = names[0], header.line
    if header.new_name is None:
        header.new_name, header.new_line = names[1], header.line
