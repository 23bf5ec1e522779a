"""The planner's tool belt: list, read and grep, and nothing that writes (PLN-2).

Every argument comes from model JSON, so every method checks its types and
answers a bad call with a failed :class:`ToolResult` whose text tells the
model what to send instead; no method raises on model input.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from ljtui.core.planner.grep import (
    ENGINES, GREP_MAX_FILE_BYTES, GREP_MAX_HITS, GREP_TIMEOUT_S, GrepOutcome, search,
)
from ljtui.core.regex_guard import PatternRefused, compile_pattern
from ljtui.core.tool_result import ToolResult
from ljtui.core.sandbox import HANDBOOK_MOUNT, MountTable, PathRefused, Sandbox, is_state_name
from ljtui.core.secret_files import SecretFiles

READ_MAX_CHARS = 60_000
"""Characters one read_file call returns at most."""
READ_MAX_FILE_BYTES = 20 * 1024 * 1024
"""Files larger than this are not read at all (grep them instead)."""
BINARY_SNIFF_BYTES = 8192
"""A NUL byte in this many leading bytes marks a file as binary."""
LIST_MAX_ENTRIES = 500
"""Entries one list_dir call shows."""
ARG_MAX_CHARS = 4096
"""Longest string argument (a path or a pattern) a tool accepts."""
SECRET_ENTRY_NOTE = "(secret file: not readable)"
"""How list_dir marks a secret file: shown, so the model knows it exists and does not plan to create it."""

NAME_MAX_BYTES = 255
"""Longest file or folder name (UTF-8 bytes) common filesystems hold; a longer one is refused before any lookup."""
BOM = "\ufeff"
BOM_NOTE = ("note: this file starts with a UTF-8 byte order mark, not shown above; edits keep it, and "
            "write_file content without it removes it")
NOT_UTF8_NOTE = ("note: this file is not valid UTF-8 (first bad byte at line {line}); the replaced bytes are shown "
                 "as U+FFFD (\ufffd), which is not what the file holds, so edit_file and write_file refuse this "
                 "file: change it with the bash tool, or ask the user")

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
"""A line: up to and including a line feed (the only line break counted, as edit_file, grep and plans count)."""
_BACKTICKS = re.compile(r"`+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _error(message: str) -> ToolResult:
    return ToolResult(False, f"error: {message}", f"error: {message.splitlines()[0][:160]}")


def _require_str(name: str, value: Any) -> str | ToolResult:
    if value is None:
        return _error(f"missing argument '{name}' (a string)")
    if not isinstance(value, str):
        return _error(f"argument '{name}' must be a string, got {type(value).__name__} {shown_value(value)}")
    if "\0" in value:
        return _error(f"argument '{name}' contains a NUL character; send plain text")
    if _SURROGATE.search(value):
        return _error(f"argument '{name}' contains an unpaired surrogate (like \\ud800), which is not valid text")
    if len(value) > ARG_MAX_CHARS:
        return _error(f"argument '{name}' is {len(value)} characters long; the limit is {ARG_MAX_CHARS}")
    return value


def shown_value(value: Any, limit: int = 60) -> str:
    """A model-supplied value as short printable text, whatever its type or content."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        text = f"<{type(value).__name__}>"
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[:limit] + "…"


def printable(name: str) -> str:
    """A file name as valid text: bytes that are not UTF-8 are shown as ``\\xNN``."""
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def first_bad_line(data: bytes) -> int | None:
    """The 1-based line of the first byte that is not UTF-8 in ``data``, or ``None`` when all of it is UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1
    return None


def _name_refusal(path: str) -> ToolResult | None:
    """A refusal of a path with a name too long for any filesystem to hold."""
    for name in path.split("/"):
        try:
            size = len(name.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError:
            size = len(name.encode("utf-8", "surrogatepass"))
        if size > NAME_MAX_BYTES:
            return _error(f"a name in the path {shown_value(path)} is {size} bytes long; file and folder names "
                          f"are at most {NAME_MAX_BYTES} bytes, so no such file exists")
    return None


def _optional_line(name: str, value: Any) -> int | None | ToolResult:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return _error(f"argument '{name}' must be a whole number (1-based line), got {shown_value(value)}")
    if value < 1:
        return _error(f"argument '{name}' must be 1 or more, got {value}")
    return value


class ReadOnlyTools:
    """List, read and grep inside a source tree and an optional handbook.

    There is deliberately no method that writes, moves or deletes anything.

    Args:
        source_root: the repository the plan is for.
        handbook_dir: a read-only handbook, mounted at ``__handbook__/``.
        grep_engine: ``auto`` (ripgrep when found, else RE2), ``rg`` or ``re2``.
        secrets: which files are never read, listed as readable or searched.
        grep_timeout: seconds one whole grep call may take.

    Raises:
        ValueError: an unknown ``grep_engine``.
    """

    def __init__(
        self,
        source_root: str | os.PathLike[str],
        handbook_dir: str | os.PathLike[str] | None = None,
        *,
        grep_engine: str = "auto",
        secrets: SecretFiles = SecretFiles(),
        grep_timeout: float = GREP_TIMEOUT_S,
    ) -> None:
        if grep_engine not in ENGINES:
            raise ValueError(f"grep_engine must be one of {', '.join(ENGINES)}, got {grep_engine!r}")
        self.mounts = MountTable.build(source_root, handbook_dir)
        self.grep_engine = grep_engine
        self.secrets = secrets
        self.grep_timeout = grep_timeout

    def _secret_refusal(self, path: str, box: Sandbox, real: Path) -> ToolResult | None:
        """A refusal when ``path`` (as asked, or where it leads) is a secret file."""
        asked = path.removeprefix(f"{box.label}/") if box.label else path
        for rel in (asked, box.relative(real)):
            rule = self.secrets.rule_for(rel)
            if rule is not None:
                return _error(self.secrets.refusal(path, rule))
        return None

    def list_dir(self, path: Any) -> ToolResult:
        """Entries of a directory: folders end in ``/``, files show their size; ``.agent`` is left out."""
        path = _require_str("path", path)
        if isinstance(path, ToolResult):
            return path
        refused = _name_refusal(path)
        if refused is not None:
            return refused
        try:
            box, real = self.mounts.locate(path)
        except PathRefused as exc:
            return _error(str(exc))
        if not real.is_dir():
            return _error(f"{path!r} is not a directory" + (" (it is a file: use read_file)" if real.is_file() else ""))
        try:  # ljtui's state folder is left out, as its contents are never read
            entries = sorted((e for e in os.scandir(real) if not is_state_name(e.name)),
                             key=lambda e: (not e.is_dir(), e.name))
        except OSError as exc:
            return _error(f"cannot list {path!r}: {exc.strerror}")
        folder = box.relative(real)
        lines = [self._entry_line(e, self.secrets.is_secret(f"{folder}/{e.name}"))
                 for e in entries[:LIST_MAX_ENTRIES]]
        count = len(entries)
        if box is self.mounts.source and real == box.root and self.mounts.handbook is not None:
            lines.insert(0, f"{HANDBOOK_MOUNT}/  (the handbook, read-only)")
            count += 1
        shown = box.display(real) or "."
        if len(entries) > LIST_MAX_ENTRIES:
            lines.append(f"[{len(entries) - LIST_MAX_ENTRIES} more entries not shown; list a subfolder]")
        body = "\n".join(lines) if lines else "(empty directory)"
        return ToolResult(True, f"list_dir {shown}\n{body}", f"{shown}: {count} entries")

    @staticmethod
    def _entry_line(entry: os.DirEntry[str], secret: bool) -> str:
        name = printable(entry.name)
        if entry.is_symlink():
            return f"{name} -> (symlink)" + (f"  {SECRET_ENTRY_NOTE}" if secret else "")
        if entry.is_dir():
            return f"{name}/"
        if secret:
            return f"{name}  {SECRET_ENTRY_NOTE}"
        try:
            return f"{name}  ({entry.stat().st_size} bytes)"
        except OSError:
            return name

    def read_file(self, path: Any, start_line: Any = None, end_line: Any = None, *,
                  list_tool: str = "list_dir") -> ToolResult:
        """Text of a file, or of lines ``start_line``..``end_line`` (1-based, inclusive).

        Lines end at line feeds only, so they are numbered as edit_file,
        grep and EDIT plans number them. At most :data:`READ_MAX_CHARS`
        characters come back; when more remain, the text says where it was
        cut and which ``start_line`` reads on. A file that is not valid
        UTF-8 is shown with U+FFFD for its bad bytes, and a note says so.

        Args:
            list_tool: the name of the caller's listing tool, named when
                ``path`` is a directory.
        """
        path = _require_str("path", path)
        if isinstance(path, ToolResult):
            return path
        start = _optional_line("start_line", start_line)
        end = _optional_line("end_line", end_line)
        for checked in (start, end):
            if isinstance(checked, ToolResult):
                return checked
        assert not isinstance(start, ToolResult) and not isinstance(end, ToolResult)
        if start is not None and end is not None and end < start:
            return _error(f"end_line {end} is before start_line {start}")
        refused = _name_refusal(path)
        if refused is not None:
            return refused
        try:
            box, real = self.mounts.locate(path)
        except PathRefused as exc:
            return _error(str(exc))
        problem = _unreadable(path, real, list_tool)
        if problem:
            return _error(problem)
        refusal = self._secret_refusal(path, box, real)
        if refusal is not None:
            return refusal
        try:
            data = real.read_bytes()
        except OSError as exc:
            return _error(f"cannot read {path!r}: {exc.strerror or exc}")
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            return _error(f"{path!r} is a binary file; only text files can be read")
        notes = []
        text = data.decode("utf-8", "replace")
        if text.startswith(BOM):
            text = text[1:]
            notes.append(BOM_NOTE)
        bad = first_bad_line(data)
        if bad is not None:
            notes.append(NOT_UTF8_NOTE.format(line=bad))
        return _render_read(printable(box.display(real)), text, start, end, notes)

    def grep(self, pattern: Any, path: Any) -> ToolResult:
        """Lines matching an RE2 ``pattern`` in the file or folder ``path``."""
        pattern = _require_str("pattern", pattern)
        if isinstance(pattern, ToolResult):
            return pattern
        path = _require_str("path", path)
        if isinstance(path, ToolResult):
            return path
        refused = _name_refusal(path)
        if refused is not None:
            return refused
        try:
            box, real = self.mounts.locate(path)
            compile_pattern(pattern)
        except (PathRefused, PatternRefused) as exc:
            return _error(str(exc))
        if not real.exists():
            return _error(f"{path!r} does not exist")
        refusal = self._secret_refusal(path, box, real) if real.is_file() else None
        if refusal is not None:
            return refusal
        found = search(pattern, real, root=box.root, secrets=self.secrets, engine=self.grep_engine,
                       timeout=self.grep_timeout)
        if found.error:
            return _error(f"grep could not run: {found.error}")
        return self._render_grep(pattern, box, real, found)

    def _render_grep(self, pattern: str, box: Sandbox, real: Path, found: GrepOutcome) -> ToolResult:
        shown = printable(box.display(real)) or "."
        lines = [f"{printable(box.display(h.path))}:{h.line}: {h.text}" for h in found.hits]
        count = f"{len(found.hits)}{'+' if found.truncated else ''}"
        header = f"grep `{pattern}` in {shown}: {count} matching lines"
        notes = [f"(binary files and files over {GREP_MAX_FILE_BYTES // (1024 * 1024)} MB are not searched)"]
        if found.secret_files:
            notes.append(self.secrets.skipped_note(found.secret_files))
        if found.truncated:
            notes.append(f"[only the first {GREP_MAX_HITS} shown; narrow the path or the pattern]")
        if found.timed_out:
            notes.append(f"[stopped after {self.grep_timeout:g} s; results are partial: narrow the path "
                         "or simplify the pattern]")
        body = "\n".join(lines) if lines else "(no matches)"
        noun = "hit" if count == "1" else "hits"
        return ToolResult(True, "\n".join([header, body, *notes]), f"{count} {noun} for `{pattern}` in {shown}")


def _unreadable(path: str, real: Path, list_tool: str = "list_dir") -> str | None:
    try:
        st = real.stat()
    except (FileNotFoundError, NotADirectoryError):
        return f"{path!r} does not exist"
    except OSError as exc:
        return f"cannot read {path!r}: {exc.strerror or exc}"
    if stat.S_ISDIR(st.st_mode):
        return f"{path!r} is a directory (use {list_tool})"
    if not stat.S_ISREG(st.st_mode):
        return f"{path!r} is not a regular file"
    size = st.st_size
    if size > READ_MAX_FILE_BYTES:
        return f"{path!r} is {size} bytes, over the {READ_MAX_FILE_BYTES} byte read limit; grep it instead"
    if not os.access(real, os.R_OK):
        return f"{path!r} is not readable"
    return None


def _render_read(shown: str, text: str, start: int | None, end: int | None,
                 notes: list[str] | None = None) -> ToolResult:
    lines = _LINE.findall(text)
    total = len(lines)
    first = start or 1
    if total and first > total:
        return _error(f"{shown!r} has {total} lines; start_line {first} is past the end")
    last = min(end or total, total)
    out: list[str] = []
    used = 0
    cut_note = ""
    for number in range(first, last + 1):
        line = lines[number - 1]
        if used + len(line) > READ_MAX_CHARS:
            room = READ_MAX_CHARS - used
            if not out:
                out.append(line[:room])
                cut_note = (f"[cut: line {number} is longer than {READ_MAX_CHARS} characters; "
                            f"shown up to column {room}]")
            else:
                cut_note = (f"[cut at {READ_MAX_CHARS} characters: shown lines {first}-{number - 1} "
                            f"of {total}; read on with start_line={number}]")
            break
        out.append(line)
        used += len(line)
    shown_last = first + len(out) - 1 if out else 0
    body = "".join(out)
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    header = f"read_file {shown} lines {first}-{shown_last} of {total}" if total else f"read_file {shown} (empty file)"
    parts = [header, fence, body[:-1] if body.endswith("\n") else body, fence]
    if cut_note:
        parts.append(cut_note)
    parts.extend(notes or ())
    summary = f"{shown} lines {first}-{shown_last} of {total}" + (" (cut)" if cut_note else "")
    return ToolResult(True, "\n".join(parts), summary)


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)
