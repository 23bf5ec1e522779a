"""A scrolling log that follows new output while its view is at the end, and says when output lands below.

Textual's anchor (:meth:`~textual.widget.Widget.anchor`) keeps a container at
its end while its content grows, until a scroll releases it; it comes back
only once a scroll lands exactly on the last row. :class:`FollowingScroll`
keeps the anchor, and decides after every scroll instead: a view at (or
within :data:`FOLLOW_ROWS` of) the end follows, a view anywhere else keeps
its place, and output that arrives meanwhile shows the :class:`NewBelow`
marker until the view is back at the end.

That decision never runs inside the scroll that prompted it: ``scroll_y``
changes from within Textual's animator frames, and anchoring there would stop
(and remove) the very animation the animator is finishing, which fails in the
animator. The check is queued to run after the current callback instead.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Static

FOLLOW_ROWS = 1
"""How near the end, in rows, the view still counts as at the end: output arriving then keeps it there."""
NEW_BELOW = "↓ new below · End to jump"
"""The marker's line."""


class NewBelow(Static):
    """One line docked at the bottom of a log whose view is above output that arrived; a click jumps there."""

    DEFAULT_CSS = """
    NewBelow {
        dock: bottom;
        width: 100%;
        height: 1;
        padding: 0 1;
        background: $accent;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self) -> None:
        super().__init__(NEW_BELOW)

    def on_click(self) -> None:
        if isinstance(self.parent, VerticalScroll):
            self.parent.scroll_end(animate=False)


class FollowingScroll(VerticalScroll):
    """A vertical log that follows its end while the view is there (see the module's docstring).

    Subclasses call :meth:`new_output` before they add or grow content.
    """

    _settle_queued = False
    """A :meth:`_settle` is queued and has not run yet."""

    def on_mount(self) -> None:
        self.anchor()

    @property
    def at_end(self) -> bool:
        """The view is at the end, or within :data:`FOLLOW_ROWS` of it, and no scroll is taking it away."""
        top = max(0.0, min(self.scroll_y, self.scroll_target_y))
        return self.max_scroll_y - top <= FOLLOW_ROWS

    @property
    def following(self) -> bool:
        """New output keeps the view at the end."""
        return self.is_anchored and not self._anchor_released

    @property
    def new_below(self) -> bool:
        """The "new below" marker shows."""
        marker = self._marker()
        return marker is not None and marker.display

    def new_output(self) -> None:
        """Output is about to be added or to grow: the view follows it if at the end, else the marker shows."""
        if self.at_end:
            self._follow()
            return
        marker = self._marker()
        if marker is None:
            self.mount(NewBelow(), before=0)  # first: the log's last child stays its last output
        else:
            marker.display = True

    def release_anchor(self) -> None:
        super().release_anchor()
        self._settle_later()  # the scroll that released the anchor has set its target by then

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._settle_later()  # never inside the animator's frame that set ``scroll_y`` (see the module's docstring)

    def _settle_later(self) -> None:
        """Queue one :meth:`_settle` after the current callback; further scrolls until it runs share it."""
        if not self._settle_queued:
            self._settle_queued = True
            self.call_next(self._settle)

    def _settle(self) -> None:
        """A view that a scroll left at the end follows again, and the marker goes."""
        self._settle_queued = False
        if self.at_end:
            self._follow()

    def _follow(self) -> None:
        if not self.following:
            self.anchor()
        marker = self._marker()
        if marker is not None:
            marker.display = False

    def _marker(self) -> NewBelow | None:
        try:
            return self.query_children(NewBelow).first()
        except NoMatches:
            return None
