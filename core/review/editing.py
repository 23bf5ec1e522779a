"""A block's new text rewritten by the user before it is accepted (SPEC LAYER-4: a hunk edited before apply).

The user is asked through the Approver port with the block's new text as a
passage to edit (the TUI's dialog gives an editor, and ``$EDITOR`` where it
is set). What they save replaces the block's new text in the review and the
block is accepted and checked again, so the apply writes exactly what the
user accepted, or refuses; the model is then told the block went in as the
user edited it (:mod:`~ljtui.core.review.decisions`).
"""

from __future__ import annotations

from typing import Callable

from ljtui.core.approval import NO, YES, ApprovalRequest, Choice, Decision
from ljtui.core.edits.plan import CREATE, EDIT
from ljtui.core.events import Notice
from ljtui.core.ports import EventSink
from ljtui.core.review.decisions import described
from ljtui.core.review.review_block import ReviewBlock
from ljtui.core.review.session import Review

MAX_EDIT_CHARS = 1_000_000
"""Longest text taken as a block's new text."""
KIND = "edit_block"
"""The request kind (policies and scripted answers key on it)."""
SAVE_KEY = "ctrl+s"
"""Takes the edited text (Enter starts a new line in it)."""


def edit_request(rb: ReviewBlock) -> ApprovalRequest:
    """The question that lets the user rewrite ``rb``'s new text (its current text is the default)."""
    lines = [described(rb), "",
             "Edit what this block puts in the file (the hunk's new side, its context lines included). The apply "
             "writes your text; the model is told you changed it."]
    return ApprovalRequest(KIND, f"Edit block {rb.number}?", tuple(lines),
                           (Choice(YES, "use this text", SAVE_KEY), Choice(NO, "cancel, keep the block as it was",
                                                                          "escape")),
                           NO, rb.key, rb.block.new, multiline=True)


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
