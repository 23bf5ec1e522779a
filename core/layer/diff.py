"""The layer's net change as a git diff: the text the review reads, as it reads any other change.

Each text entry becomes one file section in git's own format (``diff
--git``, ``new file mode``, ``deleted file mode``, ``old mode``/``new
mode``, ``rename from``/``rename to``, hunks with three lines of context
and ``\\ No newline at end of file``), names quoted as git quotes them. The
review then places every hunk by its text, exactly once, in the tree as
it is when the user applies.

A binary file or a symbolic link cannot travel in a text diff: such
entries are left out of the text and named by :func:`text_entries`'
caller, with their size and hash.
"""

from __future__ import annotations

import difflib
import hashlib
from typing import Iterable

from ljtui.core.layer.scan import CREATE, DELETE, MOVE, LayerEntry, Side

CONTEXT_LINES = 3


def quoted(path: str) -> str:
    """``path`` as git writes it in a header: C-quoted when it holds a control character, a quote, a backslash
    or a byte past ASCII."""
    raw = path.encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) for b in raw):
        return path
    escapes = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
               0x22: '\\"', 0x5C: "\\\\"}
    out = []
    for b in raw:
        if b in escapes:
            out.append(escapes[b])
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def _name(prefix: str, path: str) -> str:
    q = quoted(path)
    return f'"{prefix}{q[1:]}' if q.startswith('"') else f"{prefix}{q}"


def _mode(side: Side) -> str:
    return "100755" if side.executable else "100644"


def _lines(data: bytes) -> list[str]:
    """The lines of a text file, broken at line feeds only, as git breaks them (a form feed, a lone carriage
    return or a Unicode line separator is part of its line)."""
    text = data.decode("utf-8")
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _hunks(before: bytes, after: bytes) -> list[str]:
    """The hunks turning ``before`` into ``after`` (text), each line ending in a line feed."""
    a, b = _lines(before), _lines(after)
    out: list[str] = []
    for line in list(difflib.unified_diff(a, b, n=CONTEXT_LINES, lineterm=""))[2:]:
        if line.startswith("@@"):
            out.append(line.rstrip("\n") + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return out


def describe_whole(entry: LayerEntry) -> str:
    """A binary file's or a link's entry in one line: what it is, its size and hash."""
    side = entry.after if entry.after.exists else entry.before
    data = side.data or b""
    what = "symbolic link" if side.link else "binary file"
    digest = hashlib.sha256(data).hexdigest()[:12]
    return f"{entry.kind} {entry.path} ({what}, {len(data)} bytes, sha256 {digest})"


def section(entry: LayerEntry) -> str:
    """The git diff section of one text entry."""
    old = entry.moved_from or entry.path
    head = [f"diff --git {_name('a/', old)} {_name('b/', entry.path)}\n"]
    before = entry.before.data or b""
    after = entry.after.data or b""
    if entry.kind == CREATE:
        head.append(f"new file mode {_mode(entry.after)}\n")
    elif entry.kind == DELETE:
        head.append(f"deleted file mode {_mode(entry.before)}\n")
    else:
        if entry.before.executable != entry.after.executable:
            head += [f"old mode {_mode(entry.before)}\n", f"new mode {_mode(entry.after)}\n"]
        if entry.kind == MOVE:
            same = 100 if before == after else 50
            head += [f"similarity index {same}%\n", f"rename from {quoted(old)}\n", f"rename to {quoted(entry.path)}\n"]
    if before == after:
        return "".join(head)
    minus = "/dev/null" if entry.kind == CREATE else _name("a/", old)
    plus = "/dev/null" if entry.kind == DELETE else _name("b/", entry.path)
    return "".join([*head, f"--- {minus}\n", f"+++ {plus}\n", *_hunks(before, after)])


def diff_text(entries: Iterable[LayerEntry]) -> str:
    """The git diff of the text entries among ``entries`` (binary files and links are left out)."""
    return "".join(section(e) for e in entries if not (e.binary or e.link))
