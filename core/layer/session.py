"""A session's side of the layer: its net change put under review when a turn ends, and what the model is told.

:class:`SessionLayer` opens the layer's review (:class:`~.review.LayerReview`)
in a thread, and keeps what the user applied and rejected (with their
reasons) until the next message, which the model then reads first.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from ljtui.core.ports import EventSink

if TYPE_CHECKING:
    from ljtui.core.layer.service import Layer
    from ljtui.core.review.service import ReviewService


class SessionLayer:
    """The layer of one session (``None``: a session without one), reviewed through ``review``."""

    def __init__(self, layer: Layer | None, review: Callable[[], ReviewService], sink: EventSink) -> None:
        self.layer = layer
        self._review = review
        self._sink = sink
        self._notes: list[str] = []

    async def open(self, *, quiet: bool = False) -> bool:
        """Put the layer's net change under review; ``quiet``: at a turn's end, saying nothing when there is no
        layer or nothing in it."""
        from ljtui.core.layer.review import LayerReview

        layer = self.layer
        if layer is None or (quiet and not await asyncio.to_thread(lambda: layer.status.layered)):
            return False
        review = LayerReview(layer, self._review, self._sink, tell=self._notes.append)
        return await asyncio.to_thread(review.open, quiet=quiet)

    def told(self, text: str) -> str:
        """``text`` after what the model must hear first: what the user applied and rejected of the layer."""
        notes, self._notes = self._notes, []
        return "\n\n".join([*notes, text]) if notes else text
