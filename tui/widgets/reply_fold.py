"""The part of a long reply that is not drawn: its size as it arrives, shown a piece at a time on demand (SAFE-6).

A model may send a reply of any size. Drawn whole, a 10 MB reply made
tens of thousands of Markdown blocks: the app grew by more than a
gigabyte and every key waited seconds behind the layout. The Conversation
draws the first :data:`REPLY_SHOWN_CHARS` characters of a reply; the rest
goes to a :class:`ReplyFold` under it, one line that counts the characters
as they stream. Once the reply has ended its last :data:`REPLY_TAIL_CHARS`
are drawn after the fold (a reply's conclusion is at its end), and Enter or
a click on the fold draws the next :data:`REPLY_UNFOLD_CHARS` of the middle
above it, as often as asked. What is drawn is bounded by what the user
asks to see; what is kept is the text itself.
"""

from __future__ import annotations

from typing import Callable

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

REPLY_SHOWN_CHARS = 100_000
"""Characters of one reply drawn as it streams."""
REPLY_TAIL_CHARS = 20_000
"""Characters at the end of a long reply drawn after its fold once it has ended."""
REPLY_UNFOLD_CHARS = 100_000
"""Characters one Enter (or click) on the fold draws."""
CUT_SLACK = 0.2
"""Share of a piece searched backwards for a line break to cut at, so a cut falls between lines."""


def cut_before(text: str, limit: int) -> int:
    """Where to end a piece of ``text`` of at most ``limit`` characters: after the last line break in the
    piece's last :data:`CUT_SLACK`, else at ``limit``."""
    if len(text) <= limit:
        return len(text)
    found = text.rfind("\n", limit - int(limit * CUT_SLACK), limit)
    return found + 1 if found > 0 else limit


def tail_start(text: str, size: int) -> int:
    """Where the last ``size`` characters of ``text`` start, moved to the start of a line when one is near."""
    if len(text) <= size:
        return 0
    start = len(text) - size
    found = text.find("\n", start, start + int(size * CUT_SLACK))
    return found + 1 if found >= 0 else start


class ReplyFold(Static, can_focus=True):
    """``▸ 9,812,345 more characters of this reply``: the undrawn middle of a long reply."""

    DEFAULT_CSS = """
    ReplyFold {
        color: $text-muted;
        margin: 0 1;
        &:focus { background: $boost; color: $text; }
    }
    """

    BINDINGS = [("enter", "unfold", "Show more")]

    def __init__(self, make: Callable[[str], Widget], *, unfold_chars: int = REPLY_UNFOLD_CHARS) -> None:
        """
        Args:
            make: the widget that draws a piece of the reply (its text already has its controls visible).
            unfold_chars: characters one unfold draws.
        """
        super().__init__("")
        self._make = make
        self._unfold_chars = unfold_chars
        self._pieces: list[str] = []
        self._count = 0
        self._middle: str | None = None
        """The undrawn text once the reply has ended (before that, :attr:`_pieces`)."""
        self._offset = 0
        """Characters of :attr:`_middle` drawn so far."""

    @property
    def hidden(self) -> int:
        """Characters of the reply not drawn."""
        return self._count if self._middle is None else len(self._middle) - self._offset

    def on_mount(self) -> None:
        self._label()

    def add(self, text: str) -> None:
        """More of the streaming reply: counted, not drawn."""
        self._pieces.append(text)
        self._count += len(text)
        self._label()

    def end(self, tail_chars: int = REPLY_TAIL_CHARS) -> str:
        """The reply has ended: the text to draw after the fold (its end); the rest stays folded."""
        text = "".join(self._pieces)
        self._pieces.clear()
        start = tail_start(text, tail_chars)
        self._middle, tail = text[:start], text[start:]
        self._label()
        return tail

    def _label(self) -> None:
        if self._middle is None:
            self.update(Content(f"▸ {self._count:,} more characters of this reply, not drawn (still arriving)"))
        else:
            self.update(Content(f"▸ {self.hidden:,} more characters of this reply are folded "
                                f"(Enter or a click draws the next {min(self.hidden, self._unfold_chars):,})"))

    async def on_click(self) -> None:
        await self.action_unfold()

    async def action_unfold(self) -> None:
        """Draw the next piece of the middle above the fold; once it is all drawn, the fold goes."""
        if self._middle is None:
            self.notify("The reply is still arriving; its rest can be drawn once it has ended.")
            return
        rest = self._middle[self._offset:self._offset + self._unfold_chars + 1]
        size = cut_before(rest, self._unfold_chars)
        piece = rest[:size]
        self._offset += size
        parent = self.parent
        if piece and isinstance(parent, Widget):
            drawn = self._make(piece)
            await parent.mount(drawn, before=self)
            self.call_after_refresh(drawn.scroll_visible, top=True, animate=False)  # read on from its start
        if self.hidden <= 0:
            self._middle = ""
            await self.remove()
        else:
            self._label()
