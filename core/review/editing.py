"""The questions about one block of a review: why it is rejected, and its new text rewritten by the user before it
is accepted (SPEC LAYER-4: a hunk edited before apply).

The user is asked through the Approver port with the block's new text as a
passage to edit (the TUI's dialog gives an editor, and ``$EDITOR`` where it
is set). What they save replaces the block's new text in the review and the
block is accepted and checked again, so the apply writes exactly what the
user accepted, or refuses; the model is then told the block went in as the
user edited it (:mod:`~ljtui.core.review.decisions`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Awaitable, Callable, Protocol

from ljtui.core.approval import NO, YES, ApprovalRequest, Choice, Decision, confirm
from ljtui.core.edits.plan import CREATE, EDIT
from ljtui.core.events import Notice
from ljtui.core.ports import EventSink
from ljtui.core.review.decisions import MAX_REASON_CHARS, described
from ljtui.core.review.review_block import ReviewBlock
from ljtui.core.review.session import Review
from ljtui.core.review.views import NO_REVIEW

MAX_EDIT_CHARS = 1_000_000
"""Longest text taken as a block's new text."""
KIND = "edit_block"
"""The request kind (policies and scripted answers key on it)."""
SAVE_KEY = "ctrl+s"
"""Takes the edited text (Enter starts a new line in it)."""


class BlockHost(Protocol):
    """What the questions read and change of the review service."""

    _lock: AbstractContextManager[Any]
    _review: Review | None
    _reasons: dict[int, str]
    _sink: EventSink
    _ask: Callable[[ApprovalRequest], Awaitable[Decision]]

    def _change(self, change: Callable[[Review], list[str]]) -> None: ...


def shown_block(service: BlockHost, number: int | None) -> tuple[Review, ReviewBlock] | None:
    """The review and its block ``number`` (``None``: no block shown, or said that nothing is under review)."""
    if number is None:
        return None
    with service._lock:
        review = service._review
        rb = next((b for b in review.blocks if b.number == number), None) if review is not None else None
    if review is None or rb is None:
        service._sink.emit(Notice(NO_REVIEW, "warning"))
        return None
    return review, rb


async def reject_with_reason(service: BlockHost, number: int | None) -> None:
    """Ask why block ``number`` is rejected, then reject it with that reason (told to the model after the apply)."""
    found = shown_block(service, number)
    if found is None:
        return
    review, rb = found
    decision = await service._ask(reason_request(rb, service._reasons.get(rb.number, "")))
    if decision.choice != YES:
        return
    with service._lock:
        if service._review is review:
            service._reasons[rb.number] = (decision.text or "").strip()[:MAX_REASON_CHARS]
            service._change(lambda r: r.set_accepted(rb.number, False))


async def edit_block(service: BlockHost, number: int | None) -> None:
    """Let the user rewrite block ``number``'s new text; the block then takes it and is accepted."""
    found = shown_block(service, number)
    if found is None:
        return
    review, rb = found
    request = edit_request(rb)
    decision = await service._ask(request)
    with service._lock:
        if service._review is review:
            take_edit(review, rb, request, decision, service._sink, service._change)


def edit_request(rb: ReviewBlock) -> ApprovalRequest:
    """The question that lets the user rewrite ``rb``'s new text (its current text is the default)."""
    lines = [described(rb), "",
             "Edit what this block puts in the file (the hunk's new side, its context lines included). The apply "
             "writes your text; the model is told you changed it."]
    return ApprovalRequest(KIND, f"Edit block {rb.number}?", tuple(lines),
                           (Choice(YES, "use this text", SAVE_KEY), Choice(NO, "cancel, keep the block as it was",
                                                                          "escape")),
                           NO, rb.key, rb.block.new, multiline=True)


def reason_request(rb: ReviewBlock, reason: str) -> ApprovalRequest:
    """Ask why ``rb`` is rejected (``reason``: the one given before, to edit)."""
    return confirm("reject_reason", f"Reject block {rb.number}?",
                   [described(rb), "", "Why (the model reads it with your next message):"], "reject", "cancel",
                   text=reason)


def take_edit(review: Review, rb: ReviewBlock, request: ApprovalRequest, decision: Decision, sink: EventSink,
              change: Callable[[Callable[[Review], list[str]]], None]) -> None:
    """Put the user's ``decision`` into ``review`` (hold the review's lock): nothing on a cancel, an unchanged
    text or one too long; else the block takes the text and is accepted (``change`` re-checks and publishes)."""
    if decision.choice != YES or decision.text is None or decision.text == request.text:
        return
    if rb.block.action not in (EDIT, CREATE):
        sink.emit(Notice(f"EDIT {rb.number} has no text to edit: it {rb.block.action}s {rb.key}.", "warning"))
        return
    if len(decision.text) > MAX_EDIT_CHARS:
        sink.emit(Notice(f"The edited text of EDIT {rb.number} is longer than {MAX_EDIT_CHARS:,} characters; the "
                         "block is kept as it was.", "warning"))
        return
    text = decision.text
    change(lambda r: [*r.edit(rb.number, text), f"EDIT {rb.number}: your text replaces the block's new text"])
