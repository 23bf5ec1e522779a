"""A session's side of the layer: its net change put under review when a turn ends, and what the model is told.

:class:`SessionLayer` opens the layer's review (:class:`~.review.LayerReview`)
in a thread, and keeps what the user applied and rejected (with their
reasons) until the next message, which the model then reads first.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Awaitable, Callable

from ljtui.core.approval import YES, ApprovalRequest, Decision
from ljtui.core.events import Notice
from ljtui.core.layer.commit import ProposedCommit
from ljtui.core.ports import EventSink

if TYPE_CHECKING:
    from ljtui.core.layer.review import LayerSummary
    from ljtui.core.layer.service import Layer
    from ljtui.core.review.service import ReviewService


class SessionLayer:
    """The layer of one session (``None``: a session without one), reviewed through ``review``."""

    def __init__(self, layer: Layer | None, review: Callable[[], ReviewService], sink: EventSink,
                 guard: Callable[[], str | None] | None = None,
                 ask: Callable[[ApprovalRequest], Awaitable[Decision]] | None = None) -> None:
        self.layer = layer
        self._review = review
        self._sink = sink
        self._ask = ask
        """Asks the user whether to commit what an apply wrote (``None``: never asked)."""
        self.commit = ProposedCommit()
        """The commit message the model proposed for the layer's change (``propose_commit``)."""
        self._guard = guard
        """Why the layer's change may not be applied now (a delivery gate's run held in the layer that has not
        passed: :func:`~ljtui.core.gates.layer_run.layer_blocker`); asked before every apply. Call from a thread."""
        self._notes: list[str] = []

    async def open(self, *, quiet: bool = False, delivering: bool = False) -> bool:
        """Put the layer's net change under review; ``quiet``: at a turn's end, saying nothing when there is no
        layer or nothing in it, and leaving it closed while a gate holds it back (said in one notice);
        ``delivering``: the gate's delivery opens it, having let it through (or the user said so)."""
        from ljtui.core.layer.review import LayerReview

        layer = self.layer
        if layer is None or (quiet and not await asyncio.to_thread(lambda: layer.status.layered)):
            return False
        guard = None if delivering else self._guard
        if quiet and guard is not None:
            held_back = await asyncio.to_thread(_held_back, guard, layer)
            if held_back:
                first = held_back.splitlines()[0]
                self._sink.emit(Notice(f"{first} The change waits in the layer; /diff shows it.", "info"))
                return False
        review = LayerReview(layer, self._review, self._sink, tell=self._notes.append, guard=guard,
                             followup=self._offer_commit)
        return await asyncio.to_thread(review.open, quiet=quiet)

    async def _offer_commit(self, written: tuple[str, ...]) -> None:
        """After an apply of the layer wrote ``written``: when the model proposed a commit message, ask whether to
        commit exactly those files with it (the user edits it); say what came of it."""
        from ljtui.core.layer.commit import commit_files, commit_request

        message = self.commit.take()
        layer = self.layer
        if not message or not written or self._ask is None or layer is None:
            return
        decision = await self._ask(commit_request(written, message))
        if decision.choice != YES:
            self._sink.emit(Notice("Not committed: the change is in your files, uncommitted."))
            return
        head, why = await asyncio.to_thread(commit_files, layer.repo, written, decision.text or "")
        if not head:
            self._sink.emit(Notice(f"Not committed: {why}. The change is in your files, uncommitted.", "warning"))
            return
        self._notes.append(f"[ljtui: the user committed the applied change as {head}.]")
        self._sink.emit(Notice(f"Committed {len(written)} file(s) as {head} (no hook of the repository ran)."))

    async def take_binary(self, ask: Callable[[ApprovalRequest], Awaitable[Decision]]) -> bool:
        """Write the layer's binary files into the user's files once the user says yes to the list (each named
        with its size and hash); what cannot go is said. Returns whether any was written."""
        from ljtui.core.layer import whole

        layer = self.layer
        found_summary = await asyncio.to_thread(self.summary)
        if layer is None or found_summary is None:
            self._sink.emit(Notice("No layer in this session: there is no binary file to write.", "warning"))
            return False
        entries = [*found_summary.whole, *(e for e in found_summary.stale if e.binary or e.link)]
        found = await asyncio.to_thread(whole.whole_files, layer.repo, entries)
        for line, why in found.refused:
            self._sink.emit(Notice(f"Left in the layer: {line}: {why}", "warning"))
        if not found.entries:
            if not found.refused:
                self._sink.emit(Notice("The layer holds no binary file."))
            return False
        held_back = await asyncio.to_thread(self._guard) if self._guard is not None else None
        if held_back:
            self._sink.emit(Notice(held_back, "warning"))
            return False
        if (await ask(whole.request(found))).choice != YES:
            self._sink.emit(Notice("Not written: the binary files stay in the layer."))
            return False
        outcome = await asyncio.to_thread(whole.write, layer.repo, found)
        if outcome.error is not None:
            self._sink.emit(Notice(f"Nothing was written: {outcome.error.message}", "error"))
            return False

        def settle() -> None:
            with layer.holding():
                layer.settle(found.paths)

        await asyncio.to_thread(settle)
        names = ", ".join(sorted(e.path for e in found.entries))
        self._notes.append(f"[ljtui: the user took binary files from the layer.]\napplied to the user's files: {names}")
        self._sink.emit(Notice(f"Wrote {len(found.entries)} binary file(s) into your files: {names} (`ljtui undo` "
                               "reverts it)."))
        return True

    def summary(self) -> LayerSummary | None:
        """What the layer holds now, split as the review shows it (``None``: no layer). Disk work: from a
        thread."""
        from ljtui.core.layer.review import LayerReview

        layer = self.layer
        if layer is None or not layer.status.layered:
            return None
        return LayerReview(layer, self._review, self._sink).summary()

    def told(self, text: str) -> str:
        """``text`` after what the model must hear first: what the user applied and rejected of the layer."""
        notes, self._notes = self._notes, []
        return "\n\n".join([*notes, text]) if notes else text


def _held_back(guard: Callable[[], str | None], layer: Layer) -> str | None:
    """Why the layer's change waits (a gate's run that has not passed), when it holds a change to review at all;
    the guard first, as it is cheap when no run is open."""
    why = guard()
    return why if why and layer.peek().reviewed() else None
