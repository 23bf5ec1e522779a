"""A block's unified diff, computed in bounded time whatever its size.

Small changes go through :func:`ljtui.core.edits.diffs.unified_diff`, so the
Diff pane shows exactly what ``ljtui apply --dry-run`` prints. When the
differing middle of a file is large, :mod:`difflib` can take minutes (its
matcher is roughly quadratic in the number of changed regions); those
changes are matched the patience way instead — lines that occur once on
each side anchor the match, and only the small gaps between anchors go to
:mod:`difflib` — which is close to linear and gives the same kind of diff. Either way the
lines are drawn by :mod:`ljtui.core.edits.diff_drawing`, so what the pane
shows is exactly what the apply writes.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from typing import Iterator, Sequence

from ljtui.core.edits.diff_drawing import Opcode, draw
from ljtui.core.edits.diff_sides import file_names, file_sides
from ljtui.core.edits.diffs import DIFF_CONTEXT_LINES, unified_diff
from ljtui.core.edits.validate import FileChange

DIFFLIB_MAX_LINES = 2_000
"""A differing middle longer than this (either side) is matched the patience way."""
GAP_MAX_PRODUCT = 250_000
"""A gap between anchors whose sides multiply to at most this goes to :mod:`difflib`."""

Match = tuple[int, int, int]
"""``(i, j, size)``: ``a[i:i+size] == b[j:j+size]``."""


def diff_lines(change: FileChange, *, difflib_max: int = DIFFLIB_MAX_LINES,
               gap_max: int = GAP_MAX_PRODUCT) -> list[str]:
    """The unified diff of ``change`` as lines without line breaks.

    Args:
        change: One file's bytes before and after.
        difflib_max: Longest differing middle handed to :mod:`difflib` as a whole.
        gap_max: Largest gap between anchors (product of its sides) handed to :mod:`difflib`.
    """
    sides = file_sides(change)
    if _middle(sides.old, sides.new) <= difflib_max:
        return unified_diff(change).splitlines()
    groups = grouped(opcodes(matching_blocks(sides.old, sides.new, gap_max)))
    return list(draw(sides, groups, *file_names(change)))


def _common_prefix(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> int:
    n = 0
    while alo + n < ahi and blo + n < bhi and a[alo + n] == b[blo + n]:
        n += 1
    return n


def _common_suffix(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> int:
    n = 0
    while ahi - n > alo and bhi - n > blo and a[ahi - n - 1] == b[bhi - n - 1]:
        n += 1
    return n


def _middle(a: list[str], b: list[str]) -> int:
    """Length of the longer side once the common start and end are cut."""
    prefix = _common_prefix(a, b, 0, len(a), 0, len(b))
    suffix = _common_suffix(a, b, prefix, len(a), prefix, len(b))
    return max(len(a), len(b)) - prefix - suffix


def _anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Lines unique on both sides, in the longest order both sides agree on (patience sorting)."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
    tops: list[int] = []
    top_at: list[int] = []
    back: list[int] = []
    for index, (_, j) in enumerate(pairs):
        pile = bisect.bisect_left(tops, j)
        back.append(top_at[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_at.append(index)
        else:
            tops[pile] = j
            top_at[pile] = index
    chain = []
    at = top_at[-1] if top_at else -1
    while at >= 0:
        chain.append(pairs[at])
        at = back[at]
    return chain[::-1]


def matching_blocks(a: Sequence[str], b: Sequence[str], gap_max: int = GAP_MAX_PRODUCT) -> list[Match]:
    """Matching runs of ``a`` and ``b``, in order, ending with ``(len(a), len(b), 0)``."""
    found: list[Match] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        head = _common_prefix(a, b, alo, ahi, blo, bhi)
        if head:
            found.append((alo, blo, head))
            alo, blo = alo + head, blo + head
        tail = _common_suffix(a, b, alo, ahi, blo, bhi)
        if tail:
            found.append((ahi - tail, bhi - tail, tail))
            ahi, bhi = ahi - tail, bhi - tail
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= gap_max:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            found += [(alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n]
            continue
        anchors = _anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            continue  # nothing in common that is worth the time: the whole gap is replaced
        prev_a, prev_b = alo, blo
        for i, j in anchors:
            found.append((i, j, 1))
            stack.append((prev_a, i, prev_b, j))
            prev_a, prev_b = i + 1, j + 1
        stack.append((prev_a, ahi, prev_b, bhi))
    return _merged(sorted(found)) + [(len(a), len(b), 0)]


def _merged(blocks: list[Match]) -> list[Match]:
    out: list[Match] = []
    for i, j, n in blocks:
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            pi, pj, pn = out[-1]
            out[-1] = (pi, pj, pn + n)
        else:
            out.append((i, j, n))
    return out


def opcodes(blocks: list[Match]) -> list[Opcode]:
    """``difflib``-style opcodes from matching blocks."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, size in blocks:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            out.append((tag, i, ai, j, bj))
        if size:
            out.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return out


def grouped(codes: list[Opcode], n: int = DIFF_CONTEXT_LINES) -> Iterator[list[Opcode]]:
    """Hunks of opcodes with ``n`` lines of context, as :meth:`difflib.SequenceMatcher.get_grouped_opcodes`."""
    codes = list(codes) or [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > n * 2:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group
