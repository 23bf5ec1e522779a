"""The Gates pane: the active delivery gate's risk, checklist, evidence and history (GATE-10).

The pane only shows the gate view core sends (``GateChanged``) and asks:
``c`` and ``r`` post :class:`GatesPane.CheckRequested` for the app to hand to
the engine. Selection and which items show their output are the pane's own
state; they follow the items by id across updates.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.message import Message

from ljtui.tui.commands import ACTIONS, GATES
from ljtui.tui.widgets.empty_pane import EmptyState
from ljtui.tui.widgets.gates_render import STYLE_NAMES, GateStyles, GateText, gate_text, passed_count
from ljtui.tui.widgets.plan_lines import PlanLines

EMPTY_TEXT = "No delivery gate is active."
EMPTY_HINT = "/gates lists the gates."
"""Shown under the empty text while the pane has the focus (where someone looking for gates is)."""
TITLE = "Gates"


class GatesPane(VerticalScroll, can_focus=True):
    """The active gate, or an honest empty state."""

    BORDER_TITLE = TITLE
    ALLOW_MAXIMIZE = True
    BINDINGS = ACTIONS.bindings(GATES)

    COMPONENT_CLASSES = {f"gates-pane--{name}" for name in STYLE_NAMES}

    DEFAULT_CSS = """
    GatesPane EmptyState { display: none; }
    GatesPane.-empty EmptyState#gates-empty { display: block; }
    GatesPane.-empty:focus EmptyState#gates-hint { display: block; }
    GatesPane.-empty PlanLines { display: none; }
    GatesPane PlanLines { padding: 0 1; }
    GatesPane > .gates-pane--pending { color: $gate-pending; }
    GatesPane > .gates-pane--passed { color: $gate-pass; }
    GatesPane > .gates-pane--failed { color: $gate-fail; text-style: bold; }
    GatesPane > .gates-pane--stale { color: $warning; }
    GatesPane > .gates-pane--independent { color: $gate-pass; text-style: bold; }
    GatesPane > .gates-pane--selected { background: $primary-muted; text-style: bold; }
    GatesPane > .gates-pane--muted { color: $text-muted; }
    GatesPane > .gates-pane--heading { color: $text; text-style: bold; }
    GatesPane > .gates-pane--warning { color: $warning; }
    GatesPane > .gates-pane--error { color: $error; text-style: bold; }
    GatesPane > .gates-pane--level { color: $accent; text-style: bold; }
    """

    class CheckRequested(Message):
        """The user asked to run checks of the shown gate (``c``: the selected item; ``r``: the failed ones).

        The app hands it to the engine; the pane decides nothing.

        Attributes:
            gate_id: the gate shown when the key was pressed.
            item_id: the item to check, or ``None`` for every item that ``failed_only`` selects.
            failed_only: re-run the items whose latest evidence failed.
        """

        def __init__(self, gate_id: str, item_id: str | None, failed_only: bool = False) -> None:
            super().__init__()
            self.gate_id = gate_id
            self.item_id = item_id
            self.failed_only = failed_only

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("-empty")
        self.view: Any = None
        """The gate view shown (``ljtui.core.gates.view.GateView``), or ``None``."""
        self.selected = 0
        self.expanded: set[str] = set()
        """Ids of the items whose command and output are shown."""
        self._text: GateText | None = None
        self._text_width = 0
        self._style_cache: GateStyles | None = None

    def compose(self) -> ComposeResult:
        yield EmptyState(EMPTY_TEXT, id="gates-empty")
        yield EmptyState(EMPTY_HINT, id="gates-hint")
        yield PlanLines(self._lines, id="gates-lines")

    # --- what core sends --------------------------------------------------------------

    def show(self, view: Any) -> None:
        """Show ``view`` (``None``: no gate is active); the selection stays on the same item."""
        before = self._selected_id()
        another_gate = (self.view.id if self.view is not None else None) != (view.id if view is not None else None)
        self.view = view
        ids = [item.id for item in view.items] if view is not None else []
        self.selected = ids.index(before) if before in ids else min(self.selected, max(0, len(ids) - 1))
        self.expanded &= set(ids)
        self.set_class(view is None, "-empty")
        screen: Any = self.screen
        if another_gate and hasattr(screen, "content_changed"):
            screen.content_changed("gates")  # keys typed for the previous gate are not for this one
        self._redraw()

    @property
    def selected_item(self) -> Any:
        """The selected item view, if the gate has items."""
        if self.view is None or not self.view.items:
            return None
        return self.view.items[self.selected]

    def _selected_id(self) -> str | None:
        item = self.selected_item
        return item.id if item is not None else None

    # --- keys ---------------------------------------------------------------------------

    def action_select(self, step: int) -> None:
        if self.view is None or not self.view.items:
            return
        self.selected = max(0, min(len(self.view.items) - 1, self.selected + step))
        self._redraw(layout=False)
        self._show_selected()

    def action_expand(self) -> None:
        """Show or hide the selected item's full command and output."""
        item_id = self._selected_id()
        if item_id is None:
            return
        self.expanded ^= {item_id}
        self._redraw()
        self._show_selected(top=item_id in self.expanded)

    def action_check(self) -> None:
        """Ask for the selected item's check."""
        item_id = self._selected_id()
        if self.view is not None and item_id is not None:
            self.post_message(self.CheckRequested(self.view.id, item_id))

    def action_recheck_failed(self) -> None:
        """Ask for every failed item's check again."""
        if self.view is not None:
            self.post_message(self.CheckRequested(self.view.id, None, failed_only=True))

    # --- drawing ------------------------------------------------------------------------

    def _styles(self) -> GateStyles:
        if self._style_cache is None:
            self._style_cache = GateStyles({name: self.get_component_rich_style(f"gates-pane--{name}")
                                            for name in STYLE_NAMES})
        return self._style_cache

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_cache = None
        self._text = None

    def _now(self) -> float:
        clock = getattr(self.app, "clock", None)
        return clock.now() if clock is not None else 0.0

    def _gate_text(self, width: int) -> GateText:
        """The lines for ``width``, built once per change of the view, selection, expansion or width."""
        if self._text is None or self._text_width != width:
            self._text = gate_text(self.view, width=width, styles=self._styles(),
                                   selected=self.selected if self.view.items else None,
                                   expanded=self.expanded, now=self._now())
            self._text_width = width
        return self._text

    def _lines(self, width: int) -> list[Text]:
        if self.view is None:
            return []
        return self._gate_text(width).lines

    def _redraw(self, layout: bool = True) -> None:
        self._text = None
        self.query_one("#gates-lines", PlanLines).refresh(layout=layout)
        self._update_titles()

    def _show_selected(self, top: bool = False) -> None:
        """Scroll the selected row into view (``top``: to the top, so its output shows below it)."""
        lines = self.query_one("#gates-lines", PlanLines)

        def scroll() -> None:
            text = self._text
            if text is None or not text.item_rows:
                return
            row = text.item_rows[self.selected]
            self.scroll_to_region(Region(0, lines.virtual_region.y + row, 1, 1), animate=False, immediate=True,
                                  top=top)

        self.call_after_refresh(scroll)

    def _update_titles(self) -> None:
        action = ACTIONS.get("focus.gates")
        key = action.keys.split(",")[0].upper() if action is not None and action.keys else ""
        title = f"{TITLE} · {key}" if key else TITLE
        if self.view is not None:
            title += f" · L{self.view.level}"
        self.border_title = Content(title)
        if self.view is None:
            self.border_subtitle = Content("")
        else:
            passed, total = passed_count(self.view)
            self.border_subtitle = Content(f"{passed}/{total} passed")
