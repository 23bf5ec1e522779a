"""Applying a plan file headless, through the engine: one door for ``ljtui apply``.

:class:`EditService` validates a plan against the repository, asks a human
through the Approver port (the request carries the unified diffs, written
by core), writes it atomically, refreshes the outline of what the plan
declared (PLN-13, as the Diff pane's apply does), and reports every step
as an event. It never raises on bad input: every outcome is an EDIT-6 result.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ljtui.core.approval import YES, ApprovalRequest, LazyLines, confirm
from ljtui.core.asking import Ask
from ljtui.core.clock import Clock
from ljtui.core.edits.apply import DEFAULT_CHUNK_SIZE, Preview, commit_plan, dry_run_result, preview_plan
from ljtui.core.edits.diffs import render_diffs
from ljtui.core.edits.errors import StalePlan
from ljtui.core.edits.plan import Declarations
from ljtui.core.review.requests import ChangeText
from ljtui.core.edits.plan_format import EditPlan, PlanParseError
from ljtui.core.edits.change_source import read_change_file
from ljtui.core.edits.read_change import read_change, undecodable
from ljtui.core.edits.progress import StepEvents
from ljtui.core.edits.recovery import RecoveryReport, recover_journal
from ljtui.core.edits.repair import format_failures_for_repair
from ljtui.core.edits.result import ERROR, ApplyResult, FailedEntry
from ljtui.core.events import Notice
from ljtui.core.ports import EventSink
from ljtui.core.review import events as R
from ljtui.core.secret_files import SecretFiles


@dataclass(frozen=True)
class ApplyOptions:
    """How ``ljtui apply`` applies a plan."""

    partial: bool = False
    chunk_size: int = DEFAULT_CHUNK_SIZE
    dry_run: bool = False
    checks: bool = True


@dataclass
class FileApply:
    """What applying a plan file produced: the result, and the plan's entry ids for the contract."""

    result: ApplyResult
    entry_ids: tuple[str, ...] = ()
    diff: str = field(default="", repr=False)
    """The unified diff of a dry run."""


class EditService:
    """Plan files and the journal, for headless commands."""

    def __init__(self, root: Path, sink: EventSink, ask: Ask, clock: Clock,
                 secrets: SecretFiles = SecretFiles()) -> None:
        self.root = root
        self._sink = sink
        self._ask = ask
        self._clock = clock
        self._secrets = secrets
        """Files the outline never reads when it is refreshed after an apply."""

    def recover(self, max_files: int | None = None) -> RecoveryReport:
        """Finish what a crash left in the journal, reported as one notice (files capped at ``max_files``)."""
        report = recover_journal(self.root)
        lines = report.summary(max_files)
        if lines:
            self._sink.emit(Notice("\n".join(lines), "error" if report.errors else "warning"))
        return report

    async def apply_file(self, path: Path, options: ApplyOptions = ApplyOptions(), fmt: str | None = None
                         ) -> FileApply:
        """Validate, ask (unless a dry run), write, check the change in ``path`` (an EDIT plan, a diff, Aider
        blocks or a Codex patch: ``fmt``, or detected); the outcome is always a result."""
        change = await asyncio.to_thread(read_change_file, path, str(path), fmt)
        return await self.apply_change(change, options, fmt)

    async def apply_change(self, change: ChangeText, options: ApplyOptions = ApplyOptions(),
                           fmt: str | None = None) -> FileApply:
        """As :meth:`apply_file`, for a change already read (standard input, ``git diff``)."""
        if change.text is None:
            return FileApply(ApplyResult(ERROR, message=change.problem or f"cannot read {change.origin}"))
        if undecodable(change.text, fmt):
            return FileApply(ApplyResult(ERROR, message=f"cannot read plan {change.origin}: not UTF-8 text"))
        try:
            plan, _ = read_change(change.text, fmt)
        except PlanParseError as exc:
            for err in exc.errors:
                self._say(str(err))
            return FileApply(ApplyResult(ERROR, message=f"the plan is malformed: {exc}"))
        with StepEvents(self._sink.emit, self._clock) as steps:
            return await self._apply_plan(plan, options, steps)

    async def _apply_plan(self, plan: EditPlan, options: ApplyOptions, steps: StepEvents) -> FileApply:
        """Validate, ask, write and check ``plan``, each step reported on ``steps``."""
        preview = await asyncio.to_thread(preview_plan, plan, self.root, partial=options.partial,
                                          chunk_size=options.chunk_size, say=steps)
        if preview.errors:
            self._say(format_failures_for_repair(preview.errors, self.root))
        if options.dry_run:
            return FileApply(dry_run_result(preview), plan.entry_ids, render_diffs(preview.changes, colour=False))
        if preview.changes:
            steps.end()  # no progress is shown while the user decides
            decision = await self._ask(self._request(preview))
            if decision.choice != YES:
                declined = [FailedEntry(i, "declined: the user did not confirm the apply") for i in plan.entry_ids]
                return FileApply(ApplyResult(ERROR, failed=declined, message="declined; nothing was written"),
                                 plan.entry_ids)
        report = await asyncio.to_thread(commit_plan, preview, self.root, clock=self._clock,
                                         run_checks=options.checks, say=steps)
        if any(isinstance(err, StalePlan) for err in report.errors):
            await asyncio.to_thread(self._revalidate, preview, options)
        steps.end()
        self._sink.emit(R.ApplyFinished(report.result.to_dict(), len(plan.blocks)))
        if report.result.files and plan.declarations.present:
            await asyncio.to_thread(self._resync, plan.declarations, report.result.files)
        return FileApply(report.result, plan.entry_ids)

    def _resync(self, declarations: Declarations, written: Sequence[str]) -> None:
        """Refresh the outline of the files the plan declared and wrote (PLN-13); say which declarations the
        apply did not live up to."""
        from ljtui.core.outline import after_apply

        warning = after_apply(self.root, declarations, written, secrets=self._secrets)
        if warning:
            self._sink.emit(Notice(warning, "warning"))

    def _request(self, preview: Preview) -> ApprovalRequest:
        files = len(preview.changes)
        diff = LazyLines(lambda: render_diffs(preview.changes, colour=False).splitlines())  # unread under --yes
        return confirm("apply", f"Apply changes to {files} file(s)?", diff, "apply")

    def _revalidate(self, preview: Preview, options: ApplyOptions) -> None:
        """After a stale refusal, validate again against the files as they are now."""
        fresh = preview_plan(preview.plan, self.root, partial=options.partial, chunk_size=options.chunk_size)
        if fresh.errors:
            self._say("re-validated against the current files: the plan no longer applies:")
            self._say(format_failures_for_repair(fresh.errors, self.root))
        else:
            self._say(f"re-validated against the current files: the plan still applies to {len(fresh.changes)} "
                      "file(s); run the command again to review and apply it")

    def _say(self, line: str) -> None:
        self._sink.emit(R.ApplyProgressed(line))
