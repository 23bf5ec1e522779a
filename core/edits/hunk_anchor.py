"""Placing a diff hunk in a file: by its text, exactly once, never by its line number.

A hunk read from a unified diff or a Codex patch is whole lines: its
context and removed lines (``old``) must occur at the start of a line, and
the :class:`~ljtui.core.edits.plan.HunkAnchor` may narrow that further, as
``git apply`` does: a hunk that starts on line 1 must match at the start of
the file, one with no context after its change at the end, and a Codex
hunk under ``@@ def name`` only after that line. Matching is byte-exact,
with none of the fallbacks of EDIT blocks: a hunk matches where ``git
apply`` would match it, or it does not apply. A hunk whose text occurs more
than once is ambiguous even where its line number would pick one: the
number says where the file was, not where it is.
"""

from __future__ import annotations

from ljtui.core.edits import errors as E
from ljtui.core.edits.anchors import MAX_REPORTED_OCCURRENCES, Replacement, is_line_start, lines_of, occurrences
from ljtui.core.edits.plan import EditBlock, HunkAnchor

LF = b"\n"


def place_hunk(data: bytes, old: str, new: str, anchor: HunkAnchor) -> Replacement:
    """Replace ``old`` by ``new`` in ``data`` where ``anchor`` allows, if that is exactly one place.

    Args:
        data: The file's bytes.
        old: The hunk's context and removed lines.
        new: The hunk's context and added lines.
        anchor: Where the hunk may match.

    Returns:
        A :class:`Replacement`: the new bytes when exactly one place allows ``old``, else the lines of
        every place that does (empty when none does) and their count.
    """
    needle = old.encode("utf-8", "surrogateescape")
    starts = _places(data, needle, anchor)
    if len(starts) != 1:
        lines = lines_of(data, starts[:MAX_REPORTED_OCCURRENCES])
        return Replacement(None, lines, len(starts))
    at = starts[0]
    return Replacement(data[:at] + new.encode("utf-8", "surrogateescape") + data[at + len(needle):], (), 1)


def _places(data: bytes, needle: bytes, anchor: HunkAnchor) -> list[int]:
    """Offsets where ``needle`` starts a line of ``data`` and ``anchor`` allows it."""
    floor = _after(data, anchor.after) if anchor.after is not None else 0
    if floor is None:
        return []
    if anchor.at_end:
        at = len(data) - len(needle)
        ok = at >= floor and data.endswith(needle) and is_line_start(data, at)
        return [at] if ok and (not anchor.at_start or at == 0) else []
    if anchor.at_start:
        return [0] if floor == 0 and data.startswith(needle) and _ends_line(data, len(needle)) else []
    found = []
    at = data.find(needle, floor) if needle else -1
    while at != -1:
        if is_line_start(data, at) and _ends_line(data, at + len(needle)):
            found.append(at)
        at = data.find(needle, at + 1)
    return found


def _ends_line(data: bytes, end: int) -> bool:
    """True when a match ending at ``end`` ends a line (or the file)."""
    return end == len(data) or data[end - 1:end] == LF


def _after(data: bytes, marker: str) -> int | None:
    """The offset after the first line whose text, stripped, is ``marker`` stripped (``None``: no such line)."""
    wanted = marker.strip().encode("utf-8", "surrogateescape")
    at = 0
    for line in data.splitlines(keepends=True):
        at += len(line)
        if line.strip() == wanted:
            return at
    return None


def hunk_error(block: EditBlock, data: bytes, outcome: Replacement, candidates: tuple[E.Candidate, ...],
               where: str) -> E.EditError:
    """Why a hunk did not place: not found (with ``candidates``) or ambiguous (at ``where``, every place)."""
    anchor = block.anchor or HunkAnchor()
    made_at = f" (it was made at line {anchor.line})" if anchor.line else ""
    if outcome.count > 1:
        message = (f"the hunk's old lines occur {outcome.count} times in {block.file}, {where}{made_at}; "
                   "a line number alone does not say which is meant: nothing is applied")
        return E.AnchorAmbiguous(block.number, message, file=block.file, lines=outcome.lines,
                                 candidates=tuple(E.Candidate(block.file, n, 1.0, "", "strong")
                                                  for n in dict.fromkeys(outcome.lines)))
    needle = block.old.encode("utf-8", "surrogateescape")
    elsewhere = occurrences(data, needle, line_start=True)[0] if needle else []
    if elsewhere:
        where = ", ".join(str(n) for n in lines_of(data, elsewhere[:5]))
        return E.AnchorNotFound(block.number, f"the hunk's old lines occur in {block.file} at line(s) {where}, "
                                              f"but {_rule(anchor)}{made_at}", file=block.file,
                                candidates=candidates)
    best = candidates[0] if candidates else None
    nearest = f"; nearest: {best.file}:{best.line} ({best.score:.2f})" if best else ""
    return E.AnchorNotFound(block.number, f"the hunk's old lines do not occur in {block.file}{made_at}: the file "
                                          f"changed since the diff was made{nearest}", file=block.file,
                            candidates=candidates)


def _rule(anchor: HunkAnchor) -> str:
    rules = []
    if anchor.at_start:
        rules.append("it must match at the start of the file")
    if anchor.at_end:
        rules.append("it must match at the end of the file")
    if anchor.after is not None:
        rules.append(f"it must come after the line {anchor.after.strip()!r}")
    return " and ".join(rules) or "not at the start of a line"
