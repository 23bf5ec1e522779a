"""The input box at the bottom: messages of any length, and slash commands.

Enter sends. Ctrl+J (every terminal), Shift+Enter and Alt+Enter (terminals
that report them apart from Enter) break the line. A paste keeps every line;
a big one shows folded (:mod:`ljtui.tui.pasted`); a pasted image path becomes
an ``@`` mention. Up on the first row and Down on the last walk the messages
sent this session. Tab completes a slash command's name. ``@`` opens the file
picker (:mod:`ljtui.tui.widgets.file_picker`), which then takes Up, Down,
Enter, Tab and Esc. The box grows with its text up to :data:`MAX_ROWS` rows.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from ljtui.tui.pasted import Pastes, is_big, normalized
from ljtui.tui.widgets.file_picker import FilePicker, MentionSource, inserted, mention_at
from ljtui.tui.prompt_history import Draft, PromptHistory
from ljtui.tui.slash import complete_slash

PLACEHOLDER = "Ask for a change, or type /help"
MAX_ROWS = 6
"""Rows of text the box shows before it scrolls."""
NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter"})
"""Keys that break the line. A terminal without the kitty keyboard protocol sends Shift+Enter and
Alt+Enter as plain Enter; Ctrl+J arrives as itself everywhere."""


class PromptInput(TextArea):
    """Multi-line prompt; Enter sends, Ctrl+J breaks the line."""

    DEFAULT_CSS = f"""
    PromptInput {{
        height: auto;
        min-height: 3;
        max-height: {MAX_ROWS + 2};
        padding: 0 2;
        border: tall $border-blurred;
        &:focus {{ border: tall $border; background-tint: $foreground 5%; }}
        & .text-area--placeholder {{ color: $text-disabled; }}
    }}
    """

    class Submitted(Message):
        """Enter was pressed: ``value`` is the text to send, its folded pastes expanded."""

        def __init__(self, prompt: PromptInput, value: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.value = value

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(self, *, blink: bool = True, commands: Callable[[], Iterable[str]] = tuple,
                 mentions: MentionSource | None = None, **kwargs: object) -> None:
        """
        Args:
            blink: blink the cursor.
            commands: the slash command names Tab completes.
            mentions: lists and ranks what ``@`` offers (in threads); default: the app's engine, once built.
        """
        super().__init__(placeholder=PLACEHOLDER, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         highlight_cursor_line=False, **kwargs)  # type: ignore[arg-type]
        self.cursor_blink = blink
        self._commands = commands
        self.pastes = Pastes()
        self.sent = PromptHistory()
        self._recalled: str | None = None
        """The text a history step put in the box (an edit since makes it the draft)."""
        self._mentions = mentions
        self._picker: FilePicker | None = None
        self._mention: tuple[int, int, int] | None = None
        """The mention being typed: its row, the column of its ``@``, and the cursor's column."""

    @property
    def value(self) -> str:
        """The text to send: what the box shows, each folded paste's label replaced by the paste."""
        return self.pastes.expand(self.text)

    @value.setter
    def value(self, text: str) -> None:
        self._show(Draft(text))

    def clear(self) -> None:  # type: ignore[override]
        """Empty the box and forget its pastes."""
        self._show(Draft(""))

    def _show(self, draft: Draft) -> None:
        self.pastes = Pastes(draft.pastes)
        self.load_text(draft.text)
        self.move_cursor(self.document.end)

    def _insert(self, text: str) -> None:
        self.replace(text, *self.selection, maintain_selection_offset=False)

    def paste_text(self, text: str) -> None:
        """Insert pasted ``text`` whole: a big paste as its folded label."""
        text = normalized(text)
        source = self._source()
        image = source.pasted_image(text) if source is not None else None
        if image is not None:
            self._insert(inserted(image))
        elif text:
            self._insert(self.pastes.fold(text) if is_big(text) else text)

    async def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if not self.read_only:
            self.paste_text(event.text)
            self.focus()

    def action_paste(self) -> None:
        if not self.read_only:
            self.paste_text(self.app.clipboard)

    def action_submit(self) -> None:
        """Send the text (nothing when it is blank) and remember it for Up."""
        value = self.value
        if value.strip():
            self.sent.record(Draft(self.text, dict(self.pastes.texts)))
        self._recalled = None
        self.post_message(self.Submitted(self, value))

    async def _on_key(self, event: events.Key) -> None:
        """The open ``@`` picker takes its keys; else Enter sends, the newline keys break the line, Tab completes,
        and a ``?`` typed into an empty box opens help instead of being typed.

        Decided here, in order with the keys the box has taken, not by an app binding: bindings are checked
        when a key arrives, before the box has taken the keys typed just before it.
        """
        key = event.key
        if self._picking(key):
            event.stop()
            event.prevent_default()
        elif event.character == "?" and not self.text:
            event.stop()
            event.prevent_default()
            await self.app.run_action("app.help")
        elif key == "enter" or key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            if key == "enter":
                self.action_submit()
            else:
                self._insert("\n")
        elif key == "tab" and self._complete():
            event.stop()
            event.prevent_default()
        else:
            await super()._on_key(event)

    def _complete(self) -> bool:
        """Complete a slash command's name; True when the box held one to complete."""
        completed, matches = complete_slash(self.text, self._commands())
        if not matches:
            return False
        if completed != self.text:
            self.value = completed
        elif len(matches) > 1:
            self.notify("  ".join(f"/{name}" for name in matches), timeout=3, markup=False)
        return True

    def action_cursor_up(self, select: bool = False) -> None:
        if self._picker_open():
            self._picking("up")
        elif select or self._row() > 0:
            super().action_cursor_up(select)
        else:
            self._walk(back=True)

    def action_cursor_down(self, select: bool = False) -> None:
        if self._picker_open():
            self._picking("down")
        elif select or self._row() < self.wrapped_document.height - 1:
            super().action_cursor_down(select)
        else:
            self._walk(back=False)

    def _row(self) -> int:
        """The cursor's row as shown (a long line wraps to several)."""
        return self.wrapped_document.location_to_offset(self.cursor_location).y

    def _walk(self, *, back: bool) -> None:
        if self._recalled is not None and self.text != self._recalled:
            self.sent.stop()
        current = Draft(self.text, dict(self.pastes.texts))
        draft = self.sent.back(current) if back else self.sent.forward()
        if draft is None:
            return
        self._show(draft)
        self._recalled = draft.text if self.sent.walking else None

    def action_delete_left(self) -> None:
        """Backspace just after a folded paste's label deletes the label, and so the paste."""
        if self._delete_label(before=True):
            return
        super().action_delete_left()

    def action_delete_right(self) -> None:
        """Delete just before a folded paste's label deletes the label, and so the paste."""
        if self._delete_label(before=False):
            return
        super().action_delete_right()

    def _delete_label(self, *, before: bool) -> bool:
        start, end = self.selection
        if start != end:
            return False
        row, column = end
        line = self.document[row]
        if before:
            label = self.pastes.label_ending(line[:column])
            span = ((row, column - len(label)), end) if label else None
        else:
            label = self.pastes.label_starting(line[column:])
            span = (end, (row, column + len(label))) if label else None
        if span is None or label is None:
            return False
        self.delete(*span)
        del self.pastes.texts[label]
        return True

    # --- the @ file picker -----------------------------------------------------------------------

    def _picker_open(self) -> bool:
        return self._picker is not None and self._picker.is_open

    def _picking(self, key: str) -> bool:
        """Give ``key`` to the open picker; True when it took it."""
        picker = self._picker
        if picker is None or not picker.is_open:
            return False
        if key in ("up", "down"):
            picker.move(-1 if key == "up" else 1)
        elif key == "escape":
            picker.close()
        elif key == "enter":
            return self._pick()
        elif key == "tab":
            self._pick()
        else:
            return False
        return True

    def _pick(self) -> bool:
        """Put the highlighted path in place of the mention being typed; False (the picker closed, the key left
        to the box) when nothing is highlighted or the mention already names it whole."""
        picker, mention = self._picker, self._mention
        if picker is None or mention is None:
            return False
        row, at, column = mention
        path = picker.chosen
        picker.close()
        if path is None or self.document[row][at + 1:column] == path:
            return False
        self.replace(inserted(path), (row, at), (row, column), maintain_selection_offset=False)
        return True

    def _on_blur(self, event: events.Blur) -> None:
        if self._picker is not None:
            self._picker.close()

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._follow_mention()

    def _on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._follow_mention()

    def _follow_mention(self) -> None:
        """Open, filter or close the picker for the mention at the cursor."""
        start, end = self.selection
        row, column = end
        found = mention_at(self.document[row], column) if start == end and not self.read_only else None
        if found is None:
            self._mention = None
            if self._picker is not None:
                self._picker.close()
            return
        at, query = found
        self._mention = (row, at, column)
        picker = self._picker
        source = self._source()
        if picker is None and source is not None:
            picker = self._picker = FilePicker(source)
            self.screen.mount(picker)
        if picker is not None:
            picker.show_for(query, (self.content_region.x, self.region.y))

    def _source(self) -> Any:
        """Where ``@`` candidates and pasted image paths are told: the one given, else the app's engine once it is
        built (``None`` before)."""
        if self._mentions is not None:
            return self._mentions
        app = self.app
        return app.engine.user_context if getattr(app, "started", False) else None
