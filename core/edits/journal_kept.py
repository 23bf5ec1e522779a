"""How many applies the journal keeps for undo and rewind, and pruning the older ones.

Every committed transaction is kept (``last-<id>``) with its group (one plan's
chunks, one message's agent writes); the newest :data:`MAX_KEPT_GROUPS` groups
stay, so ``/undo`` goes back one apply at a time and a rewind goes back to a
message. Committing one more drops the oldest group.
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.edits.journal import Manifest, discard, scan_kept

MAX_KEPT_GROUPS = 50
"""Applies (groups of committed transactions) kept for undo and rewind; committing one more prunes the oldest."""


def kept_groups(snapshots: list[tuple[Path, Manifest]]) -> list[str]:
    """The groups of ``snapshots`` (newest first, as :func:`scan_kept` gives them), newest first, each once."""
    return list(dict.fromkeys(manifest.group for _, manifest in snapshots))


def prune_kept(root: Path, limit: int = MAX_KEPT_GROUPS) -> int:
    """Drop the snapshots of the oldest groups beyond the newest ``limit`` (call with the journal lock held).

    Returns:
        How many groups were dropped.

    Raises:
        StateDirUnsafe: ``.agent`` or ``.agent/journal`` is a symlink or not a folder.
    """
    snapshots = scan_kept(root)[0]
    dropped = set(kept_groups(snapshots)[limit:])
    for entry, manifest in snapshots:
        if manifest.group in dropped:
            discard(entry)
    return len(dropped)


def pruned_note(count: int, limit: int = MAX_KEPT_GROUPS) -> str:
    """What the user reads when committing an apply dropped the oldest undo steps."""
    steps = "the oldest undo step was" if count == 1 else f"the {count} oldest undo steps were"
    return f"{steps} dropped: at most {limit} applies are kept for undo and rewind"
