"""Picking one of the places where an ambiguous block's text occurs.

A block whose search text occurs at several places of its file does not
apply: which one is meant is not written anywhere. The refusal lists the
places; the user picks one (``1``–``9`` in the Diff pane, ``/pick N``), and
the block is made exact by taking in the lines around that place until its
text occurs only there. The block then applies like any other, through the
same transaction.
"""

from __future__ import annotations

from dataclasses import replace

from ljtui.core.edits import errors as E
from ljtui.core.edits.anchors import lines_of, occurrences
from ljtui.core.review.checking import replay
from ljtui.core.review.review_block import ReviewBlock
from ljtui.core.review.session import Review

MAX_PLACES = 9
"""Places a key can pick (``1``–``9``)."""


def places(rb: ReviewBlock) -> tuple[int, ...]:
    """The lines listed where ``rb``'s text occurs, when it occurs at several places (else none)."""
    if not isinstance(rb.error, E.AnchorAmbiguous):
        return ()
    return tuple(dict.fromkeys(c.line for c in rb.error.candidates))[:MAX_PLACES]


def pick(review: Review, number: int | None, index: int) -> list[str]:
    """Make block ``number`` exact at its ``index``-th place (1-based) and accept it.

    Raises:
        KeyError: with the sentence saying why not (no block, not ambiguous, no such place, the place is not an
            exact occurrence).
    """
    if number is None:
        raise KeyError("No block is selected.")
    rb = review.block(number)
    lines = places(rb)
    if not lines:
        raise KeyError(f"EDIT {number}'s text is not at several places: there is no place to pick.")
    if not 1 <= index <= len(lines):
        raise KeyError(f"EDIT {number} has {len(lines)} places: press 1–{len(lines)}.")
    data = replay(review.root, review.reader, [b for b in review.blocks if b.key == rb.key], rb)[0]
    block = rb.block
    needle = block.old.encode("utf-8", "surrogateescape")
    whole_lines = block.anchor is not None
    found = occurrences(data or b"", needle, line_start=whole_lines)[0] if data and needle else []
    at = next((o for o, line in zip(found, lines_of(data or b"", found)) if line == lines[index - 1]), None)
    if data is None or at is None:
        raise KeyError(f"EDIT {number}: line {lines[index - 1]} holds the text only once its line endings are "
                       "converted; pick the place by editing the block (E).")
    before, after = _context(data, at, at + len(needle), whole_lines)
    old = before + block.old + after
    return review.take_block(number, replace(block, old=old, new=before + block.new + after)) + [
        f"EDIT {number} now applies at line {lines[index - 1]} of {rb.key} (the place you picked)."]


def _context(data: bytes, start: int, end: int, whole_lines: bool) -> tuple[str, str]:
    """The fewest lines before ``start`` and after ``end`` that make ``data[start:end]`` with them occur once."""
    head, tail = data.rfind(b"\n", 0, start) + 1, end
    while True:
        text = data[head:tail]
        if len(occurrences(data, text, line_start=whole_lines)[0]) <= 1 or (head == 0 and tail == len(data)):
            break
        if head > 0:
            head = data.rfind(b"\n", 0, head - 1) + 1
        if tail < len(data):
            nxt = data.find(b"\n", tail)
            tail = len(data) if nxt == -1 else nxt + 1
    decode = lambda b: b.decode("utf-8", "surrogateescape")  # noqa: E731
    return decode(data[head:start]), decode(data[end:tail])
