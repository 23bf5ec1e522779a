"""What the UI is shown of a plan under review: immutable, JSON-ready pictures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BlockState = Literal["accepted", "rejected", "stale", "failed"]


@dataclass(frozen=True)
class BlockView:
    """An immutable picture of one block, for display."""

    number: int
    file: str
    where: str | None
    state: BlockState
    diff: str
    reason: str | None
    candidates: tuple[str, ...] = ()
    """Nearest matches of a failed anchor: ``file:line (score) excerpt``."""
