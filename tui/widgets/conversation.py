"""The Conversation pane: user messages, streamed replies, tool calls, notices."""

from __future__ import annotations

import asyncio
import time
from functools import cache
from typing import TYPE_CHECKING, Callable

from textual.content import Content
from textual.widgets import Static

from ljtui.core.display import shown
from ljtui.tui.plain import plain
from ljtui.tui.widgets.follow import FollowingScroll
from ljtui.tui.widgets.plain_collapsible import PlainCollapsible
from ljtui.tui.widgets.reply_fold import REPLY_SHOWN_CHARS, ReplyFold, cut_before, tail_start
from ljtui.tui.widgets.thinking import Thinking
from ljtui.tui.widgets.tool_line import ToolCallLine

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from textual.timer import Timer
    from textual.widget import Widget
    from textual.widgets import Markdown

NOTICE_LEVELS = ("info", "warning", "error")
FAILED_CALL = "tool-failed"
"""A resumed transcript's role for a tool call that failed."""
LINK_NOT_OPENED = "A link in the reply (not opened; copied to the clipboard):"
"""What a click on a link in a reply shows, before the link's address."""


class UserMessage(Static):
    """What the user typed."""

    DEFAULT_CSS = """
    UserMessage {
        color: $user-message;
        text-style: bold;
        margin: 1 1 0 1;
    }
    """


REPLY_CSS = """
ReplyMarkdown {
    margin: 0 0;
    padding: 0 1;
    background: transparent;
    &.-set-apart { margin-top: 1; }
}
"""


@cache
def _reply_class() -> type[Markdown]:
    from textual.widgets import Markdown

    from ljtui.tui.widgets.reply_paragraph import ReplyParagraph

    class ReplyMarkdown(Markdown):
        """The model's reply, streamed as Markdown; long paragraphs draw only their lines on screen.

        A link in a reply is the model's: a click never opens it (nor runs anything); the Conversation
        shows where it points (:meth:`Conversation.on_markdown_link_clicked`).
        """

        DEFAULT_CSS = REPLY_CSS
        BLOCKS = {**Markdown.BLOCKS, "paragraph_open": ReplyParagraph}

        def __init__(self, markdown: str | None = None, **kwargs: object) -> None:
            super().__init__(markdown, open_links=False, **kwargs)  # type: ignore[arg-type]

        def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
            event.prevent_default()  # Markdown's own handler would open the URL

    return ReplyMarkdown


def reply_parser() -> MarkdownIt:
    """The Markdown parser of replies: Textual's default (``gfm-like``) without linkify.

    A streamed reply is parsed again at every fragment; linkify's scan for
    bare URLs was more than half of that time. Terminals find URLs in text
    on their own, and Markdown links in a reply still work.
    """
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like", {"linkify": False}).disable("linkify")


def new_reply(text: str | None = None) -> Markdown:
    """A Markdown widget for a streamed reply (or a piece of a long one: ``text``, controls visible).

    The Markdown widget (and markdown-it) load on the first reply, not at
    start-up, so the first frame paints sooner.
    """
    return _reply_class()(text, parser_factory=reply_parser)


RESUMED_REPLY_CHARS = 20_000
"""Characters of a resumed reply drawn before its fold (its end is drawn after it)."""
RESUMED_TAIL_CHARS = 4_000
"""Characters at the end of a long resumed reply drawn after its fold."""


def folded_reply(text: str, shown_chars: int = RESUMED_REPLY_CHARS,
                 tail_chars: int = RESUMED_TAIL_CHARS) -> list[Markdown | ReplyFold]:
    """A whole reply (controls visible) as drawn: the reply, or its start, a fold, and its end."""
    if len(text) <= shown_chars + tail_chars:
        return [new_reply(text)]
    head = cut_before(text, shown_chars)
    tail = head + tail_start(text[head:], tail_chars)
    fold = ReplyFold(new_reply)
    fold.add(text[head:tail])
    fold.end(0)
    return [new_reply(text[:head]), fold, new_reply(text[tail:])]


REPLY_UPDATES_PER_SECOND = 15
"""How often a streamed reply is redrawn at most."""
REPLY_LOOP_SHARE = 0.25
"""Largest share of the event loop's time a streamed reply's updates may take (see :func:`update_gap`)."""
REPLY_MAX_UPDATE_GAP = 0.5
"""Longest wait between two updates of a streamed reply, in seconds, however slow they are."""


def update_gap(cost: float) -> float:
    """Seconds to wait before the next update of a streamed reply, after one that took ``cost`` seconds
    from its start until the frame showing it.

    At most :data:`REPLY_UPDATES_PER_SECOND` updates a second; slower ones (a long reply, a busy
    machine) are spaced so that they take at most :data:`REPLY_LOOP_SHARE` of the time, and keys
    typed meanwhile find the event loop free.
    """
    return min(REPLY_MAX_UPDATE_GAP, max(1 / REPLY_UPDATES_PER_SECOND, cost / REPLY_LOOP_SHARE))


class NoticeLine(Static):
    """A message from ljtui itself (not the model)."""

    DEFAULT_CSS = """
    NoticeLine {
        margin: 1 1 0 1;
        &.-info { color: $text-muted; }
        &.-warning { color: $warning; }
        &.-error { color: $error; text-style: bold; }
    }
    """


SET_APART_AFTER = (UserMessage, NoticeLine, ToolCallLine)
"""What a reply is set apart from by a blank line: the user's message, ljtui's own words, a tool call."""


def _user_message(text: str) -> UserMessage:
    return UserMessage(Content.assemble("› ", plain(text)))


def _notice(message: str, level: str) -> NoticeLine:
    return NoticeLine(plain(message), classes=f"-{level if level in NOTICE_LEVELS else 'info'}")


class Conversation(FollowingScroll):
    """Scrolling log of the session; new output keeps the view at the end while it is there
    (:class:`~ljtui.tui.widgets.follow.FollowingScroll`)."""

    BORDER_TITLE = "Conversation"
    ALLOW_MAXIMIZE = True

    def __init__(
        self, monotonic: Callable[[], float], notices: list[tuple[str, str]] | None = None, **kwargs: object
    ) -> None:
        """
        Args:
            monotonic: clock for the thinking spinner's elapsed time.
            notices: ``(message, level)`` lines shown from the first frame.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._initial = notices or []
        self._monotonic = monotonic
        self._reply: Markdown | None = None
        self._shown = 0
        """Characters of the current reply drawn (at most :data:`REPLY_SHOWN_CHARS`)."""
        self._fold: ReplyFold | None = None
        """Where the current reply's characters beyond those go."""
        self._updating = asyncio.Lock()
        """Held while the reply's Markdown is being updated."""
        self._thinking: Thinking | None = None
        self._tool_lines: dict[str, ToolCallLine] = {}
        self._pending: list[str] = []
        """Pieces of the reply not shown yet (controls already made visible)."""
        self._held_return = ""
        """A carriage return that ended the last piece (see :meth:`_visible`)."""
        self._flush_timer: Timer | None = None
        self._update_gap = 1 / REPLY_UPDATES_PER_SECOND
        """Seconds until the next update of the reply (:func:`update_gap` of the last one)."""

    def add_user(self, text: str) -> None:
        self.new_output()
        self.mount(_user_message(text))

    def compose(self):  # type: ignore[override]
        for message, level in self._initial:
            yield _notice(message, level)

    def add_notice(self, message: str, level: str = "info") -> None:
        self.new_output()
        self.mount(_notice(message, level))

    def add_notice_once(self, message: str, level: str = "info") -> None:
        """Add ``message`` unless it is already the pane's last line (a key pressed again says it once)."""
        last = self.children[-1] if self.children else None
        if isinstance(last, NoticeLine) and str(last.render()) == message:
            return
        self.add_notice(message, level)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link in a reply was clicked: it is only shown (and copied, controls visible), never opened."""
        event.stop()
        url = shown(event.href, exact=True, one_line=True)
        self.app.copy_to_clipboard(url)
        self.add_notice(f"{LINK_NOT_OPENED} {url}")

    def add_details(self, title: str, lines: list[str], *, collapsed: bool = True) -> None:
        """A list under a title that Enter or a click folds and unfolds, e.g. every file an apply checked."""
        self.new_output()
        self.mount(PlainCollapsible(Static(plain("\n".join(lines))), title=title, collapsed=collapsed,
                                    classes="details"))

    def show_thinking(self, label: str | None = None, *, default: str = "thinking…") -> None:
        """Show the waiting line last in the pane; no ``label``: the shown line's (the planner's turn), or
        ``default``."""
        label = label if label is not None else self._thinking.label if self._thinking is not None else default
        self.hide_thinking()
        self._thinking = Thinking(label, self._monotonic)
        self.new_output()
        self.mount(self._thinking)

    def hide_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.remove()
            self._thinking = None

    async def append_reply(self, fragment: str) -> None:
        """Stream a piece of the model's reply into the current Markdown.

        The first piece shows at once; later ones are gathered and shown at
        most :data:`REPLY_UPDATES_PER_SECOND` times a second, less often when
        updates are slow (:func:`update_gap`). Each update parses
        the reply's last block and lays the pane out again, so at a model's
        pace (hundreds of pieces a second) updating per piece kept the event
        loop busy and keys waited behind it.

        Updates never overlap: Textual's ``Markdown.append`` works out where to
        parse from when it is called, so an append made while the widget's
        first render or another append is still running can draw the reply
        cut short. Each update here waits for the one before it.
        """
        self.hide_thinking()
        self.new_output()
        self._pending.append(self._visible(fragment))
        if self._reply is None:
            reply = self._reply = new_reply()
            shown_last = next((w for w in reversed(self.children) if not isinstance(w, Thinking)), None)
            if isinstance(shown_last, SET_APART_AFTER):  # the waiting line is on its way out
                reply.add_class("-set-apart")
            await self.mount(reply)
            async with reply.lock:  # the widget's own first (empty) render has finished
                pass
            await self._flush_reply()
        elif self._flush_timer is None:
            self._flush_timer = self.set_timer(self._update_gap, self._flush_reply)

    def _visible(self, fragment: str) -> str:
        """``fragment`` with its controls made visible (:func:`~ljtui.core.display.shown`).

        A carriage return that ends a fragment waits for the next one: with a line feed after it, the pair is
        a line break, not a visible ``\\r``.
        """
        fragment = self._held_return + fragment
        self._held_return = ""
        if fragment.endswith("\r"):
            fragment, self._held_return = fragment[:-1], "\r"
        return shown(fragment)

    async def _flush_reply(self) -> None:
        """Show the pieces of the reply gathered since the last update, after that update has finished."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        async with self._updating:
            reply = self._reply
            if self._pending and reply is not None:
                text = "".join(self._pending)
                self._pending.clear()
                if self._fold is not None:
                    self._fold.add(text)
                    return
                room = REPLY_SHOWN_CHARS - self._shown
                drawn = cut_before(text, room)
                self._shown += drawn
                started = time.perf_counter()
                await reply.append(text[:drawn])
                if drawn < len(text):
                    self._fold = ReplyFold(new_reply)
                    self._fold.add(text[drawn:])
                    await self.mount(self._fold, after=reply)
                self.call_after_refresh(self._updated, started)

    def _updated(self, started: float) -> None:
        """An update of the reply is on screen: space the next one by what it cost."""
        self._update_gap = update_gap(time.perf_counter() - started)

    async def end_reply(self) -> None:
        """Show what is left of the current reply, if any, and close it."""
        self.hide_thinking()
        if self._held_return:
            self._pending.append(shown(self._held_return))
            self._held_return = ""
        await self._flush_reply()
        self._pending.clear()
        fold, self._fold = self._fold, None
        if fold is not None:
            tail = fold.end()
            if tail:
                await self.mount(new_reply(tail), after=fold)
        self._reply = None
        self._shown = 0

    async def discard_reply(self) -> None:
        """Drop the reply streamed so far (the model call is being retried)."""
        reply, fold = self._reply, self._fold
        self._pending.clear()
        self._held_return = ""
        self._fold = None
        await self.end_reply()
        for widget in (fold, reply):
            if widget is not None:
                await widget.remove()

    async def tool_started(self, call_id: str, line: str) -> None:
        await self.end_reply()
        widget = ToolCallLine(f"{line} …")
        self._tool_lines[call_id] = widget
        self.new_output()
        await self.mount(widget)

    def tool_output(self, call_id: str, text: str) -> None:
        """Output a running tool produced."""
        widget = self._tool_lines.get(call_id)
        if widget is not None:
            self.new_output()
            widget.stream(text)

    def tool_finished(self, call_id: str, line: str, ok: bool, output: str = "") -> None:
        widget = self._tool_lines.pop(call_id, None)
        self.new_output()
        if widget is None:
            widget = ToolCallLine(line)
            self.mount(widget)
        widget.finish(f"{line} {'✓' if ok else '✗'}", ok, output)

    async def clear(self) -> None:
        await self.end_reply()
        self._tool_lines.clear()
        await self.remove_children()

    async def show_transcript(self, entries: list[tuple[str, str]], notice: str) -> None:
        """Replace the pane with a resumed conversation: ``(role, text)`` entries
        (``user``, ``assistant``, ``tool`` or ``tool-failed`` with its described call, or a notice's level),
        then ``notice``."""
        await self.clear()
        widgets: list[Widget] = []
        for role, text in entries:
            if role == "user":
                widgets.append(_user_message(text))
            elif role in ("tool", FAILED_CALL):
                widgets.append(ToolCallLine(text))
                widgets[-1].set_class(role == FAILED_CALL, "-failed")
            elif role in NOTICE_LEVELS:
                widgets.append(_notice(text, role))
            else:
                reply = folded_reply(shown(text))
                if widgets and isinstance(widgets[-1], SET_APART_AFTER):
                    reply[0].add_class("-set-apart")
                widgets.extend(reply)
        widgets.append(_notice(notice, "info"))
        self.new_output()
        await self.mount_all(widgets)
