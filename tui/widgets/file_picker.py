"""The ``@`` file picker: a list over the prompt of the files a mention can attach, filtered as one types.

The prompt (:class:`~ljtui.tui.widgets.prompt_input.PromptInput`) keeps the
focus and drives it: typing after ``@`` filters (:func:`mention_at` finds the
mention being typed), Up and Down move, Enter or Tab insert the highlighted
path, Esc closes it. The candidates (git's view of the repository, secret
files and ljtui's state left out) are listed and ranked in thread workers
by the engine (:mod:`ljtui.core.mentions_send`), never on the event loop.
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.widgets import OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ljtui.tui.plain import plain_line

MAX_ROWS = 10
"""Candidates shown at once (the list scrolls)."""
WIDTH = 64
KEYS = "↑↓ move · Enter/Tab insert · Esc close"
WORKER_GROUP = "mentions"


def mention_at(line: str, column: int) -> tuple[int, str] | None:
    """The mention being typed in ``line`` just before ``column``: where its ``@`` is and the text after it;
    ``None`` when the cursor is not in one (an ``@`` must start the line or follow a space or a bracket)."""
    start = column
    while start > 0 and not line[start - 1].isspace() and line[start - 1] != "@":
        start -= 1
    if start == 0 or line[start - 1] != "@":
        return None
    at = start - 1
    if at > 0 and not (line[at - 1].isspace() or line[at - 1] in "([{"):
        return None
    return at, line[start:column]


def inserted(path: str) -> str:
    """What picking ``path`` puts in the prompt: ``@path`` (quoted when it holds a space), then a space after a
    file (a folder stays open to pick inside it)."""
    mention = f'@"{path}"' if " " in path else f"@{path}"
    return mention if path.endswith("/") else mention + " "


class Listing(Protocol):
    """What ``@`` offers (:class:`ljtui.core.mentions.Candidates`)."""

    paths: tuple[str, ...]
    cut: bool


class MentionSource(Protocol):
    """Where the candidates (and what a pasted image path becomes) come from: the engine's user context
    (:mod:`ljtui.core.mentions_send`)."""

    def candidates(self) -> Listing: ...

    def rank(self, query: str, candidates: Any) -> list[str]: ...

    def pasted_image(self, text: str) -> str | None: ...


class FilePicker(OptionList):
    """Candidates for the ``@`` mention being typed; never focused (the prompt keeps the keys)."""

    DEFAULT_CSS = f"""
    FilePicker {{
        overlay: screen;
        position: absolute;
        display: none;
        width: {WIDTH};
        max-width: 100%;
        height: auto;
        max-height: {MAX_ROWS + 2};
        border: round $border;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }}
    """

    can_focus = False

    def __init__(self, source: MentionSource, **kwargs: object) -> None:
        """
        Args:
            source: lists and ranks the candidates (disk and git work: called in thread workers).
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._source = source
        self._candidates: Listing | None = None
        self._wanted = ""
        """The query typed last (a ranking for an older one is dropped)."""
        self._anchor = (0, 0)
        self.border_title = "@ attach a file"
        self.border_subtitle = KEYS

    @property
    def is_open(self) -> bool:
        return self.display

    def show_for(self, query: str, anchor: tuple[int, int]) -> None:
        """Show the list for ``query`` with its bottom-left corner just above ``anchor`` (screen x, y)."""
        self._anchor = anchor
        if not self.display:
            self.display = True
            self._candidates = None
            self.set_options([Option(plain_line("listing files…"), disabled=True)])
            self._place()
            self.run_worker(self._listed, thread=True, group=WORKER_GROUP, exclusive=True, exit_on_error=False)
        self.filter(query)

    def close(self) -> None:
        self.display = False

    def filter(self, query: str) -> None:
        """Rank the candidates for ``query`` (in a thread) and show them; before they are listed, once they are."""
        self._wanted = query
        candidates = self._candidates
        if candidates is None:
            return
        self.run_worker(lambda: self._ranked(query, candidates), thread=True, group=WORKER_GROUP, exclusive=True,
                        exit_on_error=False)

    @property
    def chosen(self) -> str | None:
        """The highlighted path, if any."""
        if self.highlighted is None or not self.option_count:
            return None
        option = self.get_option_at_index(self.highlighted)
        return None if option.disabled else option.id

    def move(self, step: int) -> None:
        if step < 0:
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    def _listed(self) -> None:
        candidates = self._source.candidates()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._take_candidates, candidates)

    def _take_candidates(self, candidates: Listing) -> None:
        if not self.display:
            return
        self._candidates = candidates
        self.filter(self._wanted)

    def _ranked(self, query: str, candidates: Listing) -> None:
        paths = self._source.rank(query, candidates)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, query, paths, candidates)

    def _show(self, query: str, paths: list[str], candidates: Listing) -> None:
        if not self.display or query != self._wanted:
            return
        if paths:
            self.set_options([Option(plain_line(path), id=path) for path in paths])
            self.highlighted = 0
        else:
            empty = "no file matches" if candidates.paths else "no files to offer"
            self.set_options([Option(plain_line(empty), disabled=True)])
        cut = " (listing cut: a very large repository)" if candidates.cut else ""
        self.border_title = f"@ attach a file{cut}"
        self._place()

    def _place(self) -> None:
        """Put the list just above its anchor (or below the screen's top when there is no room above)."""
        x, y = self._anchor
        rows = min(self.option_count, MAX_ROWS) + 2
        self.styles.offset = (max(0, x), max(0, y - rows))
