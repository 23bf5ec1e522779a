"""Keys that scroll the Diff pane's diff, and the order of the pane's keys in the footer.

The scroll actions are written as registry :class:`Action` entries, ready
for the table in ``tui/commands.py``; until they are in it, the pane binds
their keys to its own ``page`` action (same ids, so ``ui.keymap`` names
them the same way once they are registered).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

from ljtui.tui.actions import DIFF, Action

if TYPE_CHECKING:
    from ljtui.tui.app import LjtuiApp

FOOTER_FIRST = ("review.apply", "review.toggle")
"""Diff-pane actions shown first in the footer, so a narrow terminal keeps them."""


def _page(step: int):
    def run(app: LjtuiApp, _: str) -> None:
        app.main_screen.diff_pane.action_page(step)
    return run


PAGE_STEPS = {"review.page_down": 1, "review.page_up": -1}

SCROLL_ACTIONS = (
    Action("review.page_down", "Diff pane: scroll the diff down a page (at its end: the next part of a long diff)",
           _page(1), keys="pagedown", scope=DIFF, palette=False),
    Action("review.page_up", "Diff pane: scroll the diff up a page (at its top: the previous part of a long diff)",
           _page(-1), keys="pageup", scope=DIFF, palette=False),
)
"""Entries for the action registry."""


def pane_bindings(registry_bindings: list[Binding]) -> list[Binding]:
    """The Diff pane's bindings: the registry's, most needed first, then the scroll keys."""
    first = [b for id_ in FOOTER_FIRST for b in registry_bindings if b.id == id_]
    rest = [b for b in registry_bindings if b.id not in FOOTER_FIRST]
    registered = {b.id for b in registry_bindings}
    scroll = [Binding(a.keys, f"page({PAGE_STEPS[a.id]})", a.title, show=False, id=a.id, tooltip=a.title)
              for a in SCROLL_ACTIONS if a.id not in registered]
    return first + rest + scroll
