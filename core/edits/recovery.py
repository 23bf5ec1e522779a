"""Recovery of unfinished transactions, and undo of the last applied plan.

Both read the journal back from the repository, which is untrusted: an
entry or manifest that is not exactly what ljtui writes, or that names a
path it may not write, is quarantined (moved aside, never deleted, never
acted on) and reported in one line; the other journals are still handled.
One recovery reads and writes every file through the same folder
descriptors (:mod:`.folders`), from its checks to its writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.edits import journal as J
from ljtui.core.edits.folders import RepoFolders
from ljtui.core.edits.journal_kept import prune_kept
from ljtui.core.edits.restore import RestoreRefused, plan_restore
from ljtui.core.edits.undo import UndoOutcome, undo_last
from ljtui.core.edits.write_queue import WriteQueueTimeout
from ljtui.core.statedir import StateDirUnsafe

__all__ = ["RecoveryReport", "UndoOutcome", "recover_journal", "undo_last"]



@dataclass
class RecoveryReport:
    """What recovery did.

    Attributes:
        transactions: ``(transaction id, [(path, action), ...])`` per rolled-back journal.
        skipped: Why recovery did not run (another process holds the lock), or ``None``.
        errors: One line per journal that could not be restored (quarantined
            ones included), or why the journal could not be opened.
        quarantined: The journals moved aside, with why.
    """

    transactions: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    skipped: str | None = None
    errors: list[str] = field(default_factory=list)
    quarantined: list[J.Quarantined] = field(default_factory=list)

    @property
    def changed(self) -> list[tuple[str, str]]:
        """Every ``(path, action)`` that changed a file."""
        return [(p, a) for _, acts in self.transactions for p, a in acts if a != "unchanged"]

    def quarantine(self, entry: Path, reason: str) -> None:
        """Move ``entry`` aside and record it (or record why it could not be moved)."""
        try:
            moved = J.quarantine(entry, reason)
        except OSError as exc:
            self.errors.append(f"{entry.name}: {reason}; it could not be moved aside ({exc}), nothing was written")
            return
        self.quarantined.append(moved)
        self.errors.append(moved.line())

    def summary(self, max_files: int | None = None) -> list[str]:
        """Human lines describing the report (empty when there was nothing to do).

        Args:
            max_files: list at most this many files per recovered apply, then
                say how many more (``None``: every file).
        """
        lines = [f"ljtui: {self.skipped}"] if self.skipped else []
        for tx_id, actions in self.transactions:
            lines.append(f"ljtui: recovered unfinished apply {tx_id}: every file is back to its pre-apply bytes")
            changed = [f"  {action}: {path}" for path, action in actions if action != "unchanged"]
            shown = changed if max_files is None else changed[:max_files]
            lines.extend(shown)
            if len(changed) > len(shown):
                lines.append(f"  … and {len(changed) - len(shown)} more (`ljtui recover` lists none: "
                             "they are all back already)")
        lines.extend(f"ljtui: recovery failed: {err}" for err in self.errors)
        return lines


def recover_journal(root: Path) -> RecoveryReport:
    """Roll back every unfinished transaction under ``root/.agent/journal``.

    Cheap when there is no journal: one directory check.
    """
    report = RecoveryReport()
    if not J.journal_dir(root).is_dir():
        return report
    root = root.resolve()
    try:
        if not J.pending(root):
            return report
        with J.journal_lock(root), RepoFolders(root) as folders:
            for entry in J.pending(root):
                _recover_one(root, entry, report, folders)
            J.sweep_retired(root)
            _drop_other_groups(root)
    except J.JournalBusy as busy:
        report.skipped = busy.message("applying", then="recovery skipped")
    except WriteQueueTimeout as slow:
        report.skipped = f"{slow}; recovery skipped"
    except StateDirUnsafe as exc:
        report.errors.append(exc.message)
    except OSError as exc:
        report.errors.append(f"cannot open the journal: {exc}")
    return report


def _recover_one(root: Path, entry: Path, report: RecoveryReport, folders: RepoFolders) -> None:
    problem = J.entry_problem(entry)
    if problem is not None:
        report.quarantine(entry, f"it {problem}")
        return
    if not os.path.lexists(entry / J.MANIFEST):
        J.discard(entry)
        return
    try:
        manifest = J.load(entry)
        plan = plan_restore(root, entry, manifest, folders)
    except (J.ManifestInvalid, RestoreRefused) as exc:
        report.quarantine(entry, str(exc))
        return
    try:
        actions = plan.run()
    except (OSError, RestoreRefused) as exc:
        report.errors.append(f"{entry.name}: {exc}; the journal is kept: run `ljtui recover` again")
        return
    J.discard(entry)
    report.transactions.append((manifest.id, actions))


def _drop_other_groups(root: Path) -> None:
    """Finish a commit a crash interrupted: only the newest groups' snapshots are kept (``MAX_KEPT_GROUPS``)."""
    prune_kept(root)
