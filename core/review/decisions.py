"""What the user decided in a review of the layer: what was applied, what was rejected and why.

The layer lets go of every decided path, and the model is told, with the
next message, exactly what reached the user's files and what did not
(``src/x.py: hunk 3/4 @@ -10,6 +10,7 @@ rejected: keep the old name``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ljtui.core.review.review_block import ReviewBlock

MAX_REASON_CHARS = 500
"""Longest reason kept for one rejected block."""


@dataclass(frozen=True)
class Decisions:
    """The outcome of one apply of a review.

    Attributes:
        paths: every repository path whose blocks were applied or rejected.
        applied: one line per block written (``src/x.py: hunk 1/2 @@ …``).
        rejected: one line per block rejected, with the user's reason when given.
    """

    paths: frozenset[str]
    applied: tuple[str, ...]
    rejected: tuple[str, ...]

    def for_model(self) -> str:
        """What the model reads before the user's next message."""
        lines = ["[ljtui: the user reviewed the layer's change from your last turn.]"]
        lines += [f"applied to the user's files: {line}" for line in self.applied] or ["nothing was applied"]
        lines += [f"rejected (removed from the layer): {line}" for line in self.rejected]
        return "\n".join(lines)


def described(rb: ReviewBlock) -> str:
    """One block in one line: its file and which hunk, or what it does to the file."""
    source = rb.block.source
    return f"{rb.key}: {source.short}" if source is not None else rb.key


def decisions(blocks: Iterable[ReviewBlock], written: set[str], reasons: Mapping[int, str]) -> Decisions:
    """The decisions of a review whose apply wrote ``written`` (``reasons``: rejected blocks' reasons, by number)."""
    applied, rejected, paths = [], [], set()
    for rb in blocks:
        if not rb.accepted:
            reason = reasons.get(rb.number, "").strip()[:MAX_REASON_CHARS]
            rejected.append(f"{described(rb)}" + (f" — the user's reason: {reason}" if reason else ""))
            paths.update(rb.keys)
        elif set(rb.keys) <= written:
            applied.append(described(rb) + (" — as the user edited it, not as you wrote it (read the file)"
                                             if rb.edited else ""))
            paths.update(rb.keys)
    return Decisions(frozenset(paths), tuple(applied), tuple(rejected))
