"""The Diff pane: the EDIT blocks of the plan under review, one diff at a time.

The pane shows the pictures core sends (newest sequence number wins) in a
virtual list, and asks core for the selected block's diff — one page of it
— in a worker of its own, rendering it there too; the newest request wins.
Its keys are actions of the registry, carried out by the engine's review.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.containers import Vertical
from textual.binding import Binding
from textual.message import Message

from ljtui.core.display import shown, shown_line
from ljtui.tui.commands import ACTIONS, DIFF
from ljtui.tui.widgets.block_list import BlockList
from ljtui.tui.widgets.diff_view import DiffView, Place
from ljtui.tui.widgets.empty_pane import EmptyState

if TYPE_CHECKING:
    from ljtui.core.engine import Engine
    from ljtui.core.review.views import BlockView, DiffPage

EMPTY_TEXT = "No pending edits. Proposed changes appear here as diffs to accept or reject."
CHECKING_TEXT = "Checking this block against the files…"
AMBIGUOUS = "AnchorAmbiguous:"
"""How the reason of a block whose text occurs at several places starts."""
PICK = "review.pick"
"""The action 1–9 run: pick a place of a block whose text occurs at several places."""
DIFF_GROUP = "diff"
"""Worker group of diff requests (not engine work: a diff being fetched does not make the app busy)."""


class DiffPane(Vertical, can_focus=True):
    """Blocks above, the selected block's diff below."""

    BORDER_TITLE = "Diff"
    ALLOW_MAXIMIZE = True

    COMPONENT_CLASSES = {"diff-pane--reason", "diff-pane--note"}

    DEFAULT_CSS = """
    DiffPane BlockList { max-height: 33%; }
    DiffPane.-empty BlockList, DiffPane.-empty DiffView { display: none; }
    DiffPane EmptyState { display: none; }
    DiffPane.-empty EmptyState { display: block; }
    DiffPane > .diff-pane--reason { color: $error; }
    DiffPane > .diff-pane--note { color: $text-muted; text-style: italic; }
    """

    BINDINGS = [b for b in ACTIONS.bindings(DIFF) if b.id != PICK] + [
        Binding(str(n), f"pick({n})", f"place {n}", show=False) for n in range(1, 10)]
    """The registry's keys; 1–9 carry which place they pick."""

    class DiffLoaded(Message):
        """A page of a block's diff arrived from core, rendered."""

        def __init__(self, request: int, page: DiffPage, label: str | None, lines: list[Text], place: Place) -> None:
            super().__init__()
            self.request = request
            self.page = page
            self.label = label
            self.lines = lines
            self.place = place

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.add_class("-empty")
        self.blocks: tuple[BlockView, ...] = ()
        self.selected = 0
        self.page: DiffPage | None = None
        """The page of the selected block's diff on screen."""
        self._label: str | None = None
        self._seq = 0
        self._request = 0
        self._version = 0
        self._asked: tuple[int, int] | None = None
        """Block and review version of the newest diff asked for (to skip asking again)."""

    def compose(self) -> ComposeResult:
        yield EmptyState(EMPTY_TEXT)
        yield BlockList(id="block-list")
        yield DiffView(id="block-diff")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._load_diff(place="keep", again=True))

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

    @property
    def diff_view(self) -> DiffView:
        return self.query_one(DiffView)

    def show(self, blocks: tuple[BlockView, ...] | None, seq: int, version: int = 0) -> bool:
        """Show a review's blocks (``None``: no plan under review).

        A picture older than the one shown (a lower ``seq``) is ignored. The
        selected block's diff is asked for again only when the review's
        ``version`` says it may have changed.

        Returns:
            Whether the picture was shown.
        """
        if seq < self._seq:
            return False
        self._seq = seq
        self._version = version
        keep = self.current_number
        self.blocks = blocks or ()
        numbers = [b.number for b in self.blocks]
        self.selected = numbers.index(keep) if keep in numbers else 0
        self.set_class(not self.blocks, "-empty")
        self.border_subtitle = Content(_subtitle(self.blocks))
        self.query_one(BlockList).show(self.blocks, self.selected)
        self._load_diff(place="keep" if self.current_number == keep else "top", again=False)
        return True

    def action_move(self, step: int) -> None:
        if not self.blocks:
            return
        selected = max(0, min(len(self.blocks) - 1, self.selected + step))
        if selected != self.selected:
            self.selected = selected
            self.query_one(BlockList).show(self.blocks, selected)
            self._load_diff(place="top")

    def action_page(self, step: int) -> None:
        """Scroll the diff a page; past the end (or the top) of a long diff's part, show the next (or previous)."""
        view, page = self.diff_view, self.page
        if step > 0 and view.at_bottom and page is not None and page.below:
            self._load_diff(page.end, "top")
        elif step < 0 and view.at_top and page is not None and page.above:
            self._load_diff(page.previous, "bottom")
        elif step > 0:
            view.scroll_page_down(animate=False)
        else:
            view.scroll_page_up(animate=False)

    def action_wrap(self) -> None:
        """Wrap the diff's long lines, or stop wrapping them (then the keys scroll sideways)."""
        self.diff_view.set_wrap(not self.diff_view.wrap)

    def action_sideways(self, step: int) -> None:
        """Scroll the unwrapped diff ``step`` half views right (left when negative)."""
        self.diff_view.scroll_sideways(step)

    def action_line_end(self) -> None:
        """Scroll the unwrapped diff to the end of its longest line in view."""
        self.diff_view.scroll_line_end()

    def action_line_start(self) -> None:
        """Scroll the unwrapped diff back to the start of its lines."""
        self.diff_view.scroll_line_start()

    def action_pick(self, place: int) -> None:
        """Apply the selected block, whose text occurs at several places, at the listed place ``place``."""
        action = ACTIONS.get(PICK)
        if action is not None:
            action.run(self.app, str(place))  # type: ignore[arg-type]

    def on_block_list_clicked(self, message: BlockList.Clicked) -> None:
        self.action_move(message.index - self.selected)

    # --- the selected block's diff ----------------------------------------------

    def _load_diff(self, start: int | None = None, place: Place = "top", *, again: bool = True) -> None:
        """Ask core for a page of the selected block's diff (the page shown now, if it is that block's).

        Args:
            again: ask even when the newest request was for this block at this version.
        """
        view = self.current
        asked = (view.number, self._version) if view is not None and view.state != "checking" else None
        if not again and asked is not None and asked == self._asked:
            return
        self._asked = asked
        self._request += 1
        if view is None or view.state == "checking":
            self.page = None
            lines = [] if view is None else [Text(CHECKING_TEXT, style=self.get_component_rich_style("diff-pane--note"))]
            self.diff_view.show(lines, shown_line(view.file) if view else "")
            return
        same = self.page is not None and self.page.number == view.number
        if start is None:
            start = self.page.start if same and place == "keep" and self.page is not None else 0
        if not same:
            self._label = None
        request, engine = self._request, self.app.engine
        colours, dark = dict(self.app.theme_variables), self.app.current_theme.dark
        self.run_worker(lambda: self._fetch(engine, request, view, start, colours, dark, place), name="diff",
                        group=DIFF_GROUP, thread=True, exclusive=True, exit_on_error=False)

    def _fetch(self, engine: Engine, request: int, view: BlockView, start: int, colours: dict[str, str],
               dark: bool, place: Place) -> None:
        """In a worker thread: fetch and render a page, then hand it to the pane."""
        from ljtui.tui.widgets.diff_render import render_lines, split_header

        page = engine.review.diff(view.number, start)
        if page is None:
            return
        label, body = split_header(page.lines) if page.start == 0 else (None, page.lines)
        self.post_message(self.DiffLoaded(request, page, label, render_lines(body, view.file, colours, dark=dark),
                                          place))

    def on_diff_pane_diff_loaded(self, message: DiffLoaded) -> None:
        message.stop()
        view = self.current
        if message.request != self._request or view is None or view.number != message.page.number:
            return
        page = self.page = message.page
        if page.start == 0:
            self._label = message.label
        note = self.get_component_rich_style("diff-pane--note")
        lines = self._reason_lines(view)
        if page.note:
            lines.append(Text(f"({shown(page.note)})", style=note))
        if page.above:
            lines.append(Text(f"… {page.above:,} line(s) above: PageUp at the top shows them", style=note))
        lines += message.lines
        if page.below:
            lines.append(Text(f"… {page.below:,} more line(s): PageDown at the end shows them", style=note))
        self.diff_view.show(lines, _title(view, page, self._label), message.place)

    def _reason_lines(self, view: BlockView) -> list[Text]:
        if not view.reason:
            return []
        style = self.get_component_rich_style("diff-pane--reason")
        if view.reason.startswith(AMBIGUOUS):
            return [Text(shown(view.reason), style=style),
                    Text("  press a place's number to apply the block there:", style=style),
                    *(Text(f"  {n}  {shown(str(c))}", style=style) for n, c in enumerate(view.candidates, 1))]
        return [Text(shown(view.reason), style=style),
                *(Text(f"  nearest: {shown(str(c))}", style=style) for c in view.candidates)]


def _subtitle(blocks: Sequence[BlockView]) -> str:
    if not blocks:
        return ""
    checking = sum(b.state == "checking" for b in blocks)
    if checking:
        return f"validating {len(blocks) - checking:,}/{len(blocks):,}"
    accepted = sum(b.state == "accepted" for b in blocks)
    return f"{accepted:,}/{len(blocks):,} accepted"


def _title(view: BlockView, page: DiffPage, label: str | None) -> Text:
    """``src/app.py · hunk 2/5 · line 892 · git`` (the file is the plan's: controls visible): the file, the hunk
    of a block read from a diff or another tool's blocks, the line where it applies now (the one number of the
    hunk's ``@@`` line below), its format and commit; ``new file`` or ``removed``, and the part of a long diff."""
    parts = [shown_line(view.file)]
    if view.hunk:
        parts.append(view.hunk)
    line = _old_start(page.lines) if view.hunk and page.start == 0 else None
    if line:
        parts.append(f"line {line}")
    if view.origin:
        parts.append(shown_line(view.origin))
    if label:
        parts.append(label)
    if page.above or page.below:
        parts.append(f"lines {page.start + 1:,}–{page.end:,} of {page.total:,}")
    return Text(" · ".join(parts))


def _old_start(lines: Sequence[str]) -> int | None:
    """The first line of the file a diff's first hunk starts at (its ``@@ -N`` number), if it has one."""
    head = next((line for line in lines[:3] if line.startswith("@@ -")), None)
    digits = head[4:].split(",")[0].split(" ")[0] if head else ""
    return int(digits) if digits.isdigit() else None
