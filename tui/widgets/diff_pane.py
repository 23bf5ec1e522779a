"""The Diff pane: the EDIT blocks of the plan under review, one diff at a time.

The pane shows the pictures core sends (newest sequence number wins); its
keys are actions of the registry, carried out by the engine's review.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from ljtui.tui.commands import ACTIONS, DIFF
from ljtui.tui.widgets.empty_pane import EmptyState

if TYPE_CHECKING:
    from ljtui.core.review.views import BlockView

EMPTY_TEXT = "No pending edits. Proposed changes appear here as diffs to accept or reject."
STATE_MARKS = {"accepted": "✓", "rejected": "✗", "stale": "⟳", "failed": "!"}


class BlockRow(Static):
    """One block in the list: mark, number, file, where, state."""

    DEFAULT_CSS = """
    BlockRow {
        height: 1;
        padding: 0 1;
        &.-accepted { color: $diff-added; }
        &.-rejected { color: $text-muted; }
        &.-stale { color: $warning; }
        &.-failed { color: $error; }
        &.-selected { background: $boost; text-style: bold; }
    }
    """


def row_text(view: BlockView) -> Text:
    """``✓ EDIT 1  accepted  app.py  greet (~2) — why``."""
    where = f"  {view.where.replace('`', '')}" if view.where else ""
    return Text(f"{STATE_MARKS[view.state]} EDIT {view.number}  {view.state:<8}  {view.file}{where}",
                no_wrap=True, overflow="ellipsis")


class DiffPane(Vertical, can_focus=True):
    """Blocks above, the selected block's diff below."""

    BORDER_TITLE = "Diff"
    ALLOW_MAXIMIZE = True

    DEFAULT_CSS = """
    DiffPane #block-list { height: auto; max-height: 40%; }
    DiffPane #block-diff { height: 1fr; border-top: solid $border-blurred; overflow-x: auto; }
    DiffPane #block-diff-text { width: auto; text-wrap: nowrap; }
    DiffPane #block-reason { color: $error; padding: 0 1; }
    DiffPane.-empty #block-list, DiffPane.-empty #block-diff { display: none; }
    DiffPane EmptyState { display: none; }
    DiffPane.-empty EmptyState { display: block; }
    """

    BINDINGS = ACTIONS.bindings(DIFF)

    blocks: reactive[tuple[BlockView, ...]] = reactive((), always_update=True, init=False)
    selected: reactive[int] = reactive(0, init=False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.add_class("-empty")
        self._seq = 0

    def compose(self) -> ComposeResult:
        yield EmptyState(EMPTY_TEXT)
        yield VerticalScroll(id="block-list", can_focus=False)
        with VerticalScroll(id="block-diff", can_focus=False):
            yield Static(id="block-reason")
            yield Static(id="block-diff-text")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._show_selected())

    @property
    def current(self) -> BlockView | None:
        if not self.blocks:
            return None
        return self.blocks[min(self.selected, len(self.blocks) - 1)]

    @property
    def current_number(self) -> int | None:
        """The selected block's number, if a plan is shown."""
        view = self.current
        return view.number if view else None

    def show(self, blocks: tuple[BlockView, ...] | None, seq: int) -> bool:
        """Show a review's blocks (``None``: no plan under review).

        A picture older than the one shown (a lower ``seq``) is ignored.

        Returns:
            Whether the picture was shown.
        """
        if seq < self._seq:
            return False
        self._seq = seq
        keep = self.current.number if self.current else None
        self.blocks = blocks or ()
        numbers = [b.number for b in self.blocks]
        self.selected = numbers.index(keep) if keep in numbers else 0
        return True

    async def watch_blocks(self, blocks: tuple[BlockView, ...]) -> None:
        self.set_class(not blocks, "-empty")
        listing = self.query_one("#block-list", VerticalScroll)
        await listing.remove_children()
        await listing.mount_all(
            BlockRow(row_text(b), classes=f"-{b.state}", id=f"edit-{b.number}") for b in blocks
        )
        accepted = sum(b.state == "accepted" for b in blocks)
        self.border_subtitle = f"{accepted}/{len(blocks)} accepted" if blocks else ""
        self._show_selected()

    def watch_selected(self) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        rows = list(self.query(BlockRow))
        for n, row in enumerate(rows):
            row.set_class(n == self.selected, "-selected")
        if rows and self.selected < len(rows):
            self.query_one("#block-list", VerticalScroll).scroll_to_widget(rows[self.selected], animate=False)
        view = self.current
        reason = self.query_one("#block-reason", Static)
        text = self.query_one("#block-diff-text", Static)
        if view is None:
            reason.update("")
            text.update("")
            return
        lines = [view.reason, *(f"  nearest: {c}" for c in view.candidates)] if view.reason else []
        reason.update(Text("\n".join(lines)))
        reason.display = bool(view.reason)
        if view.diff:
            from ljtui.tui.widgets.diff_render import render_diff

            text.update(render_diff(view.diff, view.file, self.app.theme_variables, dark=self.app.current_theme.dark))
        else:
            text.update(Text("(no diff: this block does not apply to the current file)", style="dim"))

    def action_move(self, step: int) -> None:
        if self.blocks:
            self.selected = max(0, min(len(self.blocks) - 1, self.selected + step))
