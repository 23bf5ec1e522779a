"""Applying a parsed plan: chunked validation, journaled writes, checks, result.

:func:`preview_plan` validates in memory (used for ``--dry-run`` and the
diff shown before asking); :func:`commit_plan` writes a preview. Without
``partial`` the whole plan is one transaction (all or nothing); with it,
each chunk of entries is its own transaction and a failed entry changes no
bytes. Entries are never split across chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ljtui.core.edits import errors as E
from ljtui.core.edits.checks import CheckResult, check_files
from ljtui.core.edits.plan_format import EditPlan, Entry
from ljtui.core.edits.progress import Say, Step, step_count
from ljtui.core.edits.result import DONE, ERROR, PARTIAL, ApplyResult, FailedEntry
from ljtui.core.edits.transaction import IdFactory, apply_changes, random_id
from ljtui.core.edits.validate import EntryOutcome, FileChange, Reader, Validator, read_bytes
from ljtui.core.ports import Clock

DEFAULT_CHUNK_SIZE = 3
MIN_CHUNK_SIZE = 1
MAX_CHUNK_SIZE = 20


def clamp_chunk_size(size: int) -> int:
    """``size`` limited to ``MIN_CHUNK_SIZE``–``MAX_CHUNK_SIZE``."""
    return max(MIN_CHUNK_SIZE, min(MAX_CHUNK_SIZE, size))


def chunk_entries(entries: Sequence[Entry], size: int) -> list[tuple[Entry, ...]]:
    """Consecutive groups of at most ``size`` (clamped) whole entries."""
    size = clamp_chunk_size(size)
    return [tuple(entries[i:i + size]) for i in range(0, len(entries), size)]


@dataclass
class Preview:
    """A validated plan: per-entry outcomes and the changes per chunk."""

    plan: EditPlan
    partial: bool
    outcomes: list[EntryOutcome] = field(default_factory=list)
    chunks: list[tuple[tuple[str, ...], dict[str, FileChange]]] = field(default_factory=list)
    validated: int = 0
    """How many chunks were validated: the apply's steps before its writes."""

    @property
    def errors(self) -> list[E.EditError]:
        """Every validation error, in block order."""
        return [err for o in self.outcomes for err in o.errors]

    @property
    def ok(self) -> bool:
        """True when every entry validated."""
        return not self.errors

    @property
    def changes(self) -> list[FileChange]:
        """The net change of every file (what the diff shows)."""
        merged: dict[str, FileChange] = {}
        for _, changes in self.chunks:
            for key, change in changes.items():
                first = merged.get(key, change)
                mode = change.mode if change.mode is not None else first.mode
                merged[key] = FileChange(key, change.real, first.before, change.after, mode)
        return [c for c in merged.values() if c.before != c.after or c.mode is not None]


def preview_plan(plan: EditPlan, root: Path, *, partial: bool = False, chunk_size: int = DEFAULT_CHUNK_SIZE,
                 reader: Reader = read_bytes, say: Say | None = None) -> Preview:
    """Validate ``plan`` chunk by chunk in memory; nothing is written (``say`` receives a step per chunk)."""
    validator = Validator(root, reader=reader)
    chunks = chunk_entries(plan.entries, chunk_size)
    preview = Preview(plan, partial, validated=len(chunks))
    total = step_count(len(chunks), partial)
    for n, chunk in enumerate(chunks, start=1):
        if say:
            line = f"validating chunk {n}/{len(chunks)} ({len(chunk)} entries)" if len(chunks) > 1 else ""
            say(Step(line, n - 1, total))
        outcomes = validator.check(chunk)
        preview.outcomes.extend(outcomes)
        accepted = tuple(o.id for o in outcomes if o.ok)
        preview.chunks.append((accepted, validator.chunk_changes()))
    if not partial and not preview.ok:
        preview.chunks = []
    return preview


@dataclass
class ApplyReport:
    """Everything an apply produced: the contract result and the error values."""

    result: ApplyResult
    preview: Preview
    errors: list[E.EditError] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    transaction_ids: list[str] = field(default_factory=list)
    write_notes: list[str] = field(default_factory=list)
    """What the transactions reported about the files they wrote (split hard links, kept owners)."""


def _failed_from(outcome: EntryOutcome) -> FailedEntry:
    first = outcome.errors[0]
    reason = f"{first.kind}: block {first.block}: {first.message}"
    if len(outcome.errors) > 1:
        reason += f" (and {len(outcome.errors) - 1} more errors)"
    with_candidates = next((e for e in outcome.errors if e.candidates), None)
    candidates = [c.to_dict() for c in with_candidates.candidates] if with_candidates else []
    return FailedEntry(outcome.id, reason, candidates)


def _not_applied(entry_id: str) -> FailedEntry:
    err = E.EntryNotApplied(None, "the plan is all or nothing and another entry failed")
    return FailedEntry(entry_id, f"{err.kind}: {err.message}")


def commit_plan(preview: Preview, root: Path, *, clock: Clock | None = None, new_id: IdFactory = random_id,
                run_checks: bool = True, say: Say | None = None) -> ApplyReport:
    """Write a preview's accepted entries, journaled and verified, then check the files.

    ``say`` receives a step before each write and before the checks, and a
    last one with ``done == total`` at the end.
    """
    report = ApplyReport(ApplyResult(ERROR), preview, list(preview.errors))
    failed = {o.id: _failed_from(o) for o in preview.outcomes if not o.ok}
    applied: list[str] = []
    files: list[str] = []
    if preview.partial:
        groups = [(ids, list(changes.values())) for ids, changes in preview.chunks if ids]
    else:
        groups = [(preview.plan.entry_ids, preview.changes)] if preview.ok else []
        for o in preview.outcomes:
            if o.ok and failed:
                failed[o.id] = _not_applied(o.id)
    total = step_count(preview.validated, preview.partial)
    for n, (ids, changes) in enumerate(groups, start=1):
        if say and len(groups) > 1:
            say(Step(f"applying chunk {n}/{len(groups)} ({len(ids)} entries, {len(changes)} files)",
                     preview.validated + n - 1, total))
        elif say:
            say(Step(f"writing {len(changes)} files", preview.validated, total))
        if not changes:
            applied.extend(ids)
            continue
        group = report.transaction_ids[0] if report.transaction_ids else None
        outcome = apply_changes(root, changes, clock=clock, new_id=new_id, entries=ids, group=group)
        if outcome.error is None:
            applied.extend(ids)
            files.extend(f for f in outcome.files if f not in files)
            report.transaction_ids.append(outcome.id)
            report.write_notes.extend(outcome.notes)
        else:
            report.errors.append(outcome.error)
            for entry_id in ids:
                failed[entry_id] = FailedEntry(entry_id, f"{outcome.error.kind}: {outcome.error.message}")
    if run_checks and files:
        if say:
            say(Step(f"checking {len(files)} files", total - 1, total))
        report.checks = check_files(root.resolve(), files)
    report.result = _result(preview, applied, failed, files, report.checks, report.write_notes)
    if say:
        say(Step("", total, total))
    return report


def _match_notes(preview: Preview, applied: Sequence[str]) -> list[str]:
    """How the applied blocks matched, when a user should know (converted line endings)."""
    ids = set(applied)
    return [note for o in preview.outcomes if o.id in ids for note in o.notes]


def _result(preview: Preview, applied: list[str], failed: dict[str, FailedEntry], files: list[str],
            checks: list[CheckResult], write_notes: Sequence[str] = ()) -> ApplyResult:
    entry_ids = preview.plan.entry_ids
    ordered_failed = [failed[i] for i in entry_ids if i in failed]
    status = DONE if not ordered_failed else (PARTIAL if applied else ERROR)
    notes = _match_notes(preview, applied) + list(write_notes)
    notes += [f"syntax check failed: {c.file} ({c.checker}): {c.message}; `ljtui undo` reverts the apply"
              for c in checks if not c.ok]
    message = None
    if status == ERROR:
        message = f"{len(ordered_failed)} of {len(entry_ids)} entries failed; nothing was written"
    return ApplyResult(status, applied, ordered_failed, files, notes, message, [c.to_dict() for c in checks])


def dry_run_result(preview: Preview) -> ApplyResult:
    """The result ``commit_plan`` would report, with nothing written."""
    failed = {o.id: _failed_from(o) for o in preview.outcomes if not o.ok}
    accepted = [o.id for o in preview.outcomes if o.ok] if (preview.partial or preview.ok) else []
    if not preview.partial and failed:
        for o in preview.outcomes:
            if o.ok:
                failed[o.id] = _not_applied(o.id)
    result = _result(preview, accepted, failed, [], [])
    result.applied_entry_ids = accepted
    result.notes.append("dry run: nothing was written")
    return result


def apply_plan(plan: EditPlan, root: Path, *, partial: bool = False, chunk_size: int = DEFAULT_CHUNK_SIZE,
               clock: Clock | None = None, new_id: IdFactory = random_id, run_checks: bool = True,
               say: Say | None = None) -> ApplyReport:
    """Validate then apply ``plan`` under ``root``.

    Args:
        plan: A parsed plan.
        root: Repository root; plan paths are relative to it.
        partial: Apply each entry on its own (``--partial``); else all or nothing.
        chunk_size: Entries per chunk (clamped to 1–20).
        clock: Time source for journal timestamps.
        new_id: Transaction id factory.
        run_checks: Syntax-check written files afterwards.
        say: Receives each step (:mod:`ljtui.core.edits.progress`).

    Returns:
        An :class:`ApplyReport` whose ``result`` follows the EDIT-6 contract.
    """
    preview = preview_plan(plan, root, partial=partial, chunk_size=chunk_size, say=say)
    return commit_plan(preview, root, clock=clock, new_id=new_id, run_checks=run_checks, say=say)
