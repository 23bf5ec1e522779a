"""Applying part of a change: the accepted blocks that apply, with the failing ones left out.

When some accepted blocks do not apply (their text is not in the file, or
occurs at several places), ``a`` offers to write the others: the question
names every block left out and why. Nothing is decided before the human
answers; on yes the failing blocks (and the later blocks of their files that
need them) are rejected, and the rest is applied as one transaction like any
apply, journaled and undoable.
"""

from __future__ import annotations

from ljtui.core.approval import ApprovalRequest, confirm
from ljtui.core.review.session import Review

PARTIAL_KIND = "apply"


def _trial(review: Review) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The blocks an apply would write once the failing accepted ones are rejected, and those left out (``None``:
    nothing would be left to write, or something other than failing blocks refuses the apply). ``review`` is
    left as it was."""
    failing = [rb.number for rb in review.accepted if rb.error is not None]
    if not failing or any(rb.stale for rb in review.accepted):
        return None
    chosen = {rb.number: rb.accepted for rb in review.blocks}
    try:
        for number in failing:
            review.set_accepted(number, False)
        kept = tuple(rb.number for rb in review.accepted)
        ok = bool(kept) and review.check_apply() is None
    finally:
        for rb in review.blocks:
            rb.accepted = chosen[rb.number]
        review.revalidate()
    left_out = tuple(number for number, accepted in chosen.items() if accepted and number not in kept)
    return (kept, left_out) if ok else None


def offer(review: Review) -> tuple[ApprovalRequest, tuple[int, ...]] | None:
    """The question "apply the blocks that apply?" and the blocks it would write, when some accepted blocks
    fail and the others apply on their own (``None``: no such offer). Call with the review's lock held."""
    found = _trial(review)
    if found is None:
        return None
    kept, left_out = found
    out = [review.block(n) for n in left_out]
    s = "" if len(kept) == 1 else "s"
    lines = [f"{len(kept)} block{s} appl{'ies' if len(kept) == 1 else 'y'}: EDIT {', '.join(map(str, kept))}, "
             f"written to {', '.join(dict.fromkeys(k for n in kept for k in review.block(n).keys))}.", "",
             f"Left out ({len(out)}), not written and marked rejected:"]
    for rb in out:
        why = f"{rb.error.kind}: {rb.error.message}" if rb.error is not None else "it needs a block left out"
        lines.append(f"  EDIT {rb.number} ({rb.key}): {why}")
    lines += ["", "The blocks are checked against the files again just before writing; u undoes the apply."]
    title = f"Apply the {len(kept)} block{s} that appl{'ies' if len(kept) == 1 else 'y'}?"
    label = f"apply {len(kept)} block{s}, leave {len(out)} out"
    return confirm(PARTIAL_KIND, title, lines, label), kept


def leave_out(review: Review, numbers: tuple[int, ...]) -> bool:
    """Reject the failing accepted blocks when that leaves exactly ``numbers`` accepted (what the user agreed
    to write); True when it did. Call with the review's lock held."""
    found = _trial(review)
    if found is None or found[0] != numbers:
        return False
    for number in found[1]:
        if review.block(number).accepted:
            review.set_accepted(number, False)
    return tuple(rb.number for rb in review.accepted) == numbers
