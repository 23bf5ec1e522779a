"""Recovery of unfinished transactions, and undo of the last applied plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.transaction import IdFactory, TransactionOutcome, apply_changes, random_id
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import Clock


@dataclass
class RecoveryReport:
    """What recovery did.

    Attributes:
        transactions: ``(transaction id, [(path, action), ...])`` per rolled-back journal.
        skipped: Why recovery did not run (another process holds the lock), or ``None``.
        errors: Journals that could not be restored (they are kept).
    """

    transactions: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    skipped: str | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[tuple[str, str]]:
        """Every ``(path, action)`` that changed a file."""
        return [(p, a) for _, acts in self.transactions for p, a in acts if a != "unchanged"]

    def summary(self) -> list[str]:
        """Human lines describing the report (empty when there was nothing to do)."""
        lines = [f"ljtui: {self.skipped}"] if self.skipped else []
        for tx_id, actions in self.transactions:
            lines.append(f"ljtui: recovered unfinished apply {tx_id}: every file is back to its pre-apply bytes")
            lines.extend(f"  {action}: {path}" for path, action in actions if action != "unchanged")
        lines.extend(f"ljtui: recovery failed: {err}" for err in self.errors)
        return lines


def recover_journal(root: Path) -> RecoveryReport:
    """Roll back every unfinished transaction under ``root/.agent/journal``.

    Cheap when there is no journal: one directory check.
    """
    report = RecoveryReport()
    if not J.journal_dir(root).is_dir() or not J.pending(root):
        return report
    root = root.resolve()
    try:
        with J.journal_lock(root):
            for tx_dir in J.pending(root):
                _recover_one(root, tx_dir, report)
            J.sweep_retired(root)
            for extra in J.kept(root)[1:]:
                J.discard(extra)
    except J.JournalBusy:
        report.skipped = "another ljtui process is applying; recovery skipped"
    except OSError as exc:
        report.errors.append(f"cannot open the journal: {exc}")
    return report


def _recover_one(root: Path, tx_dir: Path, report: RecoveryReport) -> None:
    if not (tx_dir / J.MANIFEST).is_file():
        J.discard(tx_dir)
        return
    try:
        manifest = J.Manifest.load(tx_dir)
        actions = J.restore(root, tx_dir, manifest)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        report.errors.append(f"{tx_dir.name}: {exc}")
        return
    J.discard(tx_dir)
    report.transactions.append((manifest.id, actions))


@dataclass
class UndoOutcome:
    """What undo did: ``files`` restored, or ``error`` and nothing written."""

    files: list[str] = field(default_factory=list)
    error: E.EditError | None = None
    entries: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the last plan was reverted."""
        return self.error is None


def undo_last(root: Path, *, clock: Clock | None = None, new_id: IdFactory = random_id) -> UndoOutcome:
    """Revert the last applied plan (all its chunks) from its kept snapshots.

    Refuses, writing nothing, when any file it wrote changed since.
    """
    root = root.resolve()
    snapshots = [(p, J.Manifest.load(p)) for p in J.kept(root)]
    if not snapshots:
        return UndoOutcome(error=E.UndoRefused(None, "nothing to undo: no applied plan is kept in .agent/journal"))
    group = [(p, m) for p, m in snapshots if m.group == snapshots[0][1].group]
    current: dict[str, bytes | None] = {}
    state: dict[str, bytes | None] = {}
    changed: list[str] = []
    for snap, manifest in group:
        for record in manifest.files:
            if record.path not in state:
                real = root / record.path
                current[record.path] = state[record.path] = real.read_bytes() if real.is_file() else None
            if J.sha256(state[record.path]) != record.after_sha256:
                changed.append(record.path)
                continue
            state[record.path] = (snap / record.blob).read_bytes() if record.existed and record.blob else None
    if changed:
        return UndoOutcome(error=E.UndoRefused(None, "refusing to undo: changed since the apply: "
                                                     f"{', '.join(dict.fromkeys(changed))}; nothing was written"))
    changes = [FileChange(path, root / path, current[path], after)
               for path, after in state.items() if after != current[path]]
    outcome: TransactionOutcome = apply_changes(root, changes, clock=clock, new_id=new_id, kind="undo",
                                                keep_snapshot=False)
    if not outcome.ok:
        return UndoOutcome(error=outcome.error)
    entries: list[str] = []
    for snap, manifest in group:
        for record in manifest.files:
            for rel in reversed(record.created_dirs):
                try:
                    (root / rel).rmdir()
                except OSError:
                    pass
        entries[:0] = manifest.entries
        J.discard(snap)
    return UndoOutcome(outcome.files, entries=entries)
