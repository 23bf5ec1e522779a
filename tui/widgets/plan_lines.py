"""Lines of the Plan pane drawn from a function of the width."""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.widget import Widget


class PlanLines(Widget):
    """Lines drawn from a function of the width; a repaint redraws them, only a change of tasks re-lays out."""

    DEFAULT_CSS = """
    PlanLines { height: auto; text-wrap: nowrap; }
    """

    def __init__(self, source: Callable[[int], list[Text]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._source = source

    def render(self) -> Text:
        return Text("\n").join(self._source(self.content_region.width or self.parent_width))

    @property
    def parent_width(self) -> int:
        parent = self.parent
        return parent.content_region.width if isinstance(parent, Widget) else 1
