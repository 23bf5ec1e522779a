"""Apply, undo and export of the plan under review: the parts that hold no review state.

:class:`~ljtui.core.review.service.ReviewService` keeps the plan under
review, its lock and every change to it; these functions are handed what
they need. ``ask_apply``, ``ask_undo`` and ``ask_export`` are the dialogs
around an apply, an undo and an export, each given the service's steps
that do the work (run in a thread); ``apply_request`` and ``export_text``
read the review and are called with the service's lock held; ``resync``
refreshes the outline after an apply.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Awaitable, Callable, Sequence

from ljtui.core.approval import YES, ApprovalRequest, confirm
from ljtui.core.asking import Ask
from ljtui.core.edits.plan import Declarations
from ljtui.core.edits.undo import undo_preview
from ljtui.core.events import Notice
from ljtui.core.ports import Clock, EventSink
from ljtui.core.review import events as R
from ljtui.core.review.export import ExportRefused, ask_where, write_export
from ljtui.core.review.session import Review
from ljtui.core.secret_files import SecretFiles

APPLY_CANCELLED = "Apply cancelled: nothing was written."
UNDO_CANCELLED = "Undo cancelled: nothing was written."


async def ask_apply(sink: EventSink, ask: Ask, prepare: Callable[[], tuple[ApprovalRequest, tuple[int, ...]] | None],
                    apply_now: Callable[[tuple[int, ...]], None], *, asked: bool = True,
                    vet: Callable[[tuple[int, ...]], Awaitable[str | None]] | None = None) -> None:
    """Check, ask, then write the accepted blocks (``asked=False``: the user already answered).

    Args:
        sink: Where a cancel is said.
        ask: Asks the human.
        prepare: The question and the numbers of the blocks it would write, or ``None`` (said already): no apply
            (run in a thread).
        apply_now: Writes those blocks, refused when the accepted blocks changed meanwhile (run in a thread).
        asked: False when the user already answered, e.g. ``ljtui run --allow write``.
        vet: Asked after the user's yes, before writing: why not to write (a hook's veto), or ``None``.
    """
    prepared = await asyncio.to_thread(prepare)
    if prepared is None:
        return
    request, numbers = prepared
    decision = await ask(request) if asked else None
    if decision is not None and decision.choice != YES:
        sink.emit(Notice(APPLY_CANCELLED))
        return
    veto = await vet(numbers) if vet is not None else None
    if veto:
        sink.emit(R.ApplyRefused(veto))
        return
    await asyncio.to_thread(apply_now, numbers)


def held_back(guard: Callable[[], str | None] | None, sink: EventSink) -> bool:
    """Whether ``guard`` refuses an apply now (a delivery gate that has not passed), said in a warning.

    Args:
        guard: Asked why the change may not be applied now; ``None``: nothing holds it back.
        sink: Where the warning goes.

    Returns:
        True when the apply must not go on.
    """
    reason = guard() if guard is not None else None
    if reason:
        sink.emit(Notice(reason, "warning"))
        return True
    return False


def apply_request(review: Review) -> tuple[ApprovalRequest, tuple[int, ...]]:
    """The question before writing ``review``'s accepted blocks, and their numbers (call with the lock held).

    Args:
        review: The plan under review, its blocks checked for an apply.

    Returns:
        The approval request to show, and the numbers of the blocks it would write.
    """
    chosen = review.accepted
    lines = [f"Write {len(review.files)} file(s) with {len(chosen)} block(s):", ""]
    for key in review.files:
        numbers = ", ".join(str(rb.number) for rb in chosen if key in rb.keys)
        lines.append(f"  {key}   EDIT {numbers}")
    rejected = [rb.number for rb in review.blocks if not rb.accepted]
    if rejected:
        lines += ["", f"Not written (rejected): EDIT {', '.join(map(str, rejected))}"]
    lines += ["", "The blocks are checked against the files again just before writing."]
    request = confirm("apply", "Apply the accepted blocks?", lines, "apply")
    return request, tuple(rb.number for rb in chosen)


def resync(root: Path, declarations: Declarations, written: Sequence[str], secrets: SecretFiles | None,
           sink: EventSink) -> None:
    """Refresh the outline of the files a plan declared and wrote (PLN-13); say which declarations
    the apply did not live up to.

    Args:
        root: The repository root.
        declarations: What the applied plan declared.
        written: Repo-relative files the apply wrote.
        secrets: The session's secret files, kept out of the outline.
        sink: Where a warning goes.
    """
    if not declarations.present:
        return
    from ljtui.core.outline import after_apply

    warning = after_apply(root, declarations, written, secrets=secrets)
    if warning:
        sink.emit(Notice(warning, "warning"))


async def ask_undo(root: Path, sink: EventSink, ask: Ask, undo_now: Callable[[], None]) -> None:
    """Show what the last apply wrote, ask, then restore it.

    Args:
        root: The repository root.
        sink: Where notices and the outcome go.
        ask: Asks the human.
        undo_now: Restores the files and says so (run in a thread; also sets a damaged snapshot aside).
    """
    preview = await asyncio.to_thread(undo_preview, root)
    if preview.damaged:
        await asyncio.to_thread(undo_now)  # sets the damaged snapshot aside and says so; writes no file
        return
    files = preview.files
    if files is None:
        if preview.problem is None:
            sink.emit(Notice("Nothing to undo: no applied plan is kept in .agent/journal.", "warning"))
        else:
            sink.emit(R.UndoFinished((), preview.problem))
        return
    lines = ["Put these files back as they were before the last apply:", "", *preview.file_lines(), "",
             "Refused, with nothing written, if any of them changed since."]
    decision = await ask(confirm("undo", "Undo the last apply?", lines, "undo"))
    if decision.choice != YES:
        sink.emit(Notice(UNDO_CANCELLED))
        return
    await asyncio.to_thread(undo_now)


def export_text(review: Review, sink: EventSink) -> tuple[str, int] | None:
    """The plan file an export of ``review`` writes, and how many blocks it holds (call with the lock held).

    Args:
        review: The plan under review; re-checked against the files first.
        sink: Where what is left out, or why nothing is exported, is said.

    Returns:
        The plan text and its block count; ``None`` when no accepted block applies.
    """
    review.refresh()
    exported = review.exportable()
    left = [why for rb in review.blocks if rb.state == "accepted" and (why := review.unexportable(rb))]
    if left:
        sink.emit(Notice("Not exported (an EDIT plan cannot carry them): " + "; ".join(left), "warning"))
    if not exported:
        sink.emit(R.ExportFailed("", "no accepted block applies to the current files: nothing to export"))
        return None
    return review.export_text(), len(exported)


async def ask_export(root: Path, sink: EventSink, ask: Ask, clock: Clock,
                     prepare: Callable[[], tuple[str, int] | None], path: str | None = None) -> None:
    """Ask where, then write the plan ``prepare`` gives as a file (asking before overwriting).

    Args:
        root: The repository root.
        sink: Where the outcome goes.
        ask: Asks the human.
        clock: Names the default file.
        prepare: The plan text and its block count, or ``None`` (said already): nothing to export.
        path: Where to write, as typed; ``None``: asked.
    """
    prepared = await asyncio.to_thread(prepare)
    if prepared is None:
        return
    text, count = prepared
    target = await ask_where(ask, sink, root, clock.now(), count, path)
    if target is not None:
        await asyncio.to_thread(_write, root, sink, target, text, count)


def _write(root: Path, sink: EventSink, target: Path, text: str, count: int) -> None:
    shown = target.relative_to(root).as_posix()
    try:
        write_export(root, target, text)
    except (OSError, ExportRefused) as exc:
        sink.emit(R.ExportFailed(shown, getattr(exc, "strerror", None) or str(exc)))
        return
    sink.emit(R.ExportWritten(shown, count))
