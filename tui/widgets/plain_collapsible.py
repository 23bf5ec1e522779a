"""A Collapsible whose title is plain text: a tool call's arguments, a listing's title (SAFE-4).

Textual's :class:`~textual.widgets.Collapsible` reads a ``str`` title as
markup: ``[/x]`` raises, ``[@click=app.quit]`` becomes an action. Here the
title stays a ``str`` (what callers read and set) and is drawn through
:func:`~ljtui.tui.plain.plain_line`, so it is never markup and its controls
are visible.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible

from ljtui.tui.plain import plain_line


class PlainCollapsible(Collapsible):
    """A :class:`~textual.widgets.Collapsible` with a plain-text title."""

    def __init__(self, *children: Widget, title: str, **kwargs: object) -> None:
        super().__init__(*children, title=plain_line(title), **kwargs)  # type: ignore[arg-type]
        self.set_reactive(PlainCollapsible.title, title)  # the text itself; its label is already drawn

    def _watch_title(self, title: str | Content) -> None:
        self._title.label = title if isinstance(title, Content) else plain_line(title)
