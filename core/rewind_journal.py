"""The code side of a rewind: which kept applies came after a message, and reverting them all at once.

Before each user message the session log records the journal groups kept
then (:class:`~ljtui.core.agent.session_records.Marked`). The applies to
revert when rewinding to that message are the groups kept now that are not
among them: every apply and agent write since, the layer's included (they
all commit through the transaction). They are reverted newest first in one
transaction by :func:`ljtui.core.edits.undo.revert_groups`, with every
safety of undo: a file changed since refuses the whole rewind, a malformed
snapshot is quarantined, nothing is written on any refusal.
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.edits import journal as J
from ljtui.core.edits import journal_kept as K
from ljtui.core.edits.undo import Pick, Snapshots, UndoOutcome, UndoPreview, revert_groups, undo_preview
from ljtui.core.ports import Clock
from ljtui.core.statedir import StateDirUnsafe

NOTHING_SINCE = "no apply or agent write since that message is kept in .agent/journal: no file to restore"


def kept_group_ids(root: Path) -> tuple[str, ...]:
    """The groups of the applies the journal keeps now, newest first (none when it cannot be read)."""
    try:
        if not J.open_journal(root, create=False).is_dir():
            return ()
        return tuple(K.kept_groups(J.scan_kept(root)[0]))
    except (StateDirUnsafe, OSError):
        return ()


def since(marked: tuple[str, ...]) -> Pick:
    """Picks the kept snapshots of the applies made after a message that was sent while ``marked`` were kept."""
    before = set(marked)

    def pick(snapshots: Snapshots) -> Snapshots:
        return [(path, manifest) for path, manifest in snapshots if manifest.group not in before]
    return pick


def files_since(root: Path, marked: tuple[str, ...]) -> tuple[str, ...]:
    """The files the applies since the message wrote (from the manifests alone: nothing is checked)."""
    try:
        if not J.open_journal(root, create=False).is_dir():
            return ()
        picked = since(marked)(J.scan_kept(root)[0])
    except (StateDirUnsafe, OSError):
        return ()
    return tuple(dict.fromkeys(record.path for _, manifest in picked for record in manifest.files))


def preview(root: Path, marked: tuple[str, ...]) -> UndoPreview:
    """What rewinding the code to the message would do, checked without writing anything."""
    return undo_preview(root, since(marked), "rewind")


def rewind_code(root: Path, marked: tuple[str, ...], *, clock: Clock | None = None) -> UndoOutcome:
    """Revert every apply kept since the message, newest first, all or nothing."""
    return revert_groups(root, since(marked), clock=clock, nothing=NOTHING_SINCE, doing="rewind")


def maybe_pruned(root: Path, marked: tuple[str, ...]) -> bool:
    """Whether applies made since the message may have been pruned: the journal is full and its oldest kept apply
    came after the message."""
    kept = kept_group_ids(root)
    return len(kept) >= K.MAX_KEPT_GROUPS and kept[-1] not in set(marked)
