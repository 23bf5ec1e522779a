"""A scroll view that sizes its own scrollable area, with scrollbars that follow that size.

Setting ``virtual_size`` alone lays the screen out again, but a layout that
finds the view's own size unchanged does not look at the scrollbars: a view
that first counted its rows at width 0 (before its first resize) and then
again at its real width kept the scrollbar the first count needed. Textual's
own views that size themselves (``OptionList``, ``TextArea``) update the
scrollbars right after they set the size; this one does the same.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


class SizedScrollView(ScrollView):
    """A :class:`ScrollView` whose rows the subclass counts; call :meth:`set_virtual_size` with the count."""

    def set_virtual_size(self, size: Size) -> None:
        """Make ``size`` the scrollable area, and show or hide the scrollbars for it now."""
        if size != self.virtual_size:
            self.virtual_size = size
            self._scroll_update(size)
