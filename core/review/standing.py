"""Where a saved plan stands against the files as they are now: ready to apply, already applied, or stale.

A session keeps the last plan put under review; when it is resumed the files
may have moved on (the plan applied, undone, edited since). The review's own
check says whether every block still applies. When some do not, the plan is
*already applied* when undoing its blocks (each file's blocks in reverse,
``new`` back to ``old``) gives files from which the plan leads exactly to the
files now; otherwise it is *stale*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ljtui.core.edits.anchors import create_bytes, replace_once
from ljtui.core.edits.plan_format import EditBlock
from ljtui.core.edits.validate import Reader
from ljtui.core.review.review_block import ReviewBlock
from ljtui.core.review.session import Review

State = Literal["ready", "done", "stale"]
FAILED_SHOWN = 3
"""Blocks that no longer apply named in the stale notice; the rest are counted."""


@dataclass(frozen=True)
class Standing:
    """A plan's state now.

    Attributes:
        state: ``ready`` (every block applies), ``done`` (the files hold its result) or ``stale``.
        blocks: How many blocks the plan has.
        failed: ``(number, file, why)`` of each block that no longer applies.
        files: The plan's target files, in plan order.
    """

    state: State
    blocks: int
    failed: tuple[tuple[int, str, str], ...] = ()
    files: tuple[str, ...] = ()

    def message(self, origin: str) -> str:
        """What the user reads when the plan is not put under review again (empty when it is ready)."""
        if self.state == "done":
            return (f"The plan from the resumed session ({origin}) is already applied: "
                    f"{', '.join(self.files)} hold{'s' if len(self.files) == 1 else ''} its result. "
                    "Nothing is left to review.")
        if self.state == "stale":
            named = "; ".join(f"EDIT {n} ({file}): {why}" for n, file, why in self.failed[:FAILED_SHOWN])
            more = len(self.failed) - FAILED_SHOWN
            return (f"The plan from the resumed session ({origin}) is stale: {len(self.failed)} of {self.blocks} "
                    f"block{'s' if self.blocks != 1 else ''} no longer appl{'ies' if len(self.failed) == 1 else 'y'} "
                    f"to the files as they are now ({named}{f'; {more} more' if more > 0 else ''}). "
                    "It is not offered for apply: ask for a new plan.")
        return ""


def standing(review: Review) -> Standing:
    """Check every block of ``review`` against the files now and say where the plan stands."""
    review.check()
    files = tuple(dict.fromkeys(rb.key for rb in review.blocks))
    failed = tuple((rb.number, rb.key, rb.error.message) for rb in review.blocks if rb.error is not None)
    if not failed:
        return Standing("ready", len(review.blocks), files=files)
    if already_applied(review.blocks, review.reader):
        return Standing("done", len(review.blocks), files=files)
    return Standing("stale", len(review.blocks), failed, files)


def already_applied(blocks: list[ReviewBlock], reader: Reader) -> bool:
    """Whether every file the blocks touch holds what the blocks, applied in order, would have made of it."""
    chains: dict[str, list[ReviewBlock]] = {}
    for rb in blocks:
        chains.setdefault(rb.key, []).append(rb)
    for chain in chains.values():
        real = chain[0].real
        if real is None:
            return False
        try:
            now = reader(real)
        except OSError:
            return False
        before = _undone(now, [rb.block for rb in reversed(chain)])
        if before is False or _redone(before, [rb.block for rb in chain]) != now:
            return False
    return True


def _undone(data: bytes | None, blocks: list[EditBlock]) -> bytes | None | Literal[False]:
    """``data`` with each block taken back, last first (``None``: the file did not exist); ``False`` when a
    block's result is not there to take back."""
    for block in blocks:
        if block.creates:
            if data != create_bytes(block.new):
                return False
            data = None
            continue
        if data is None or not block.new:
            return False  # an empty `new` leaves nothing to find the block's place by
        data = replace_once(data, block.new, block.old).result
        if data is None:
            return False
    return data


def _redone(data: bytes | None, blocks: list[EditBlock]) -> bytes | None | Literal[False]:
    """``data`` with the blocks applied in order; ``False`` when one does not apply."""
    for block in blocks:
        if block.creates:
            if data is not None:
                return False
            data = create_bytes(block.new)
            continue
        if data is None:
            return False
        data = replace_once(data, block.old, block.new).result
        if data is None:
            return False
    return data
