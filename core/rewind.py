"""Rewind: go back to an earlier user message, restoring the code, the conversation, or both.

The code goes back through the journal (:mod:`ljtui.core.rewind_journal`):
every apply and agent write since the message, newest first, in one
transaction, refused as a whole, with the reasons, when a file changed
since. The conversation goes back by cutting the history to before the
message, recorded in the session log as a ``Rewound`` record, so a resumed
session never brings back what the model said about the undone writes. The
model hears what was rewound at the start of the next message
(:meth:`SessionRewind.told`). Every rewind is confirmed through the Approver
port first.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.agent.session_replay import shorten
from ljtui.core.approval import YES, ApprovalRequest, confirm
from ljtui.core.asking import Ask
from ljtui.core.events import Notice
from ljtui.core.ports import Clock, EventSink
from ljtui.core.rewind_events import BOTH, CODE, CONVERSATION, RewindFinished, RewindListed, RewindPoint
from ljtui.core.rewind_journal import NOTHING_SINCE, files_since, maybe_pruned, preview, rewind_code
from ljtui.core.rewind_log import NOTE_PREFIX, LoggedMessage, LogUnreadable, is_typed, logged_messages, typed_text

if TYPE_CHECKING:
    from ljtui.core.agent.chat import Conversation
    from ljtui.core.agent.sessions import SessionLog
    from ljtui.core.edits.undo import UndoPreview

CANCELLED = "Rewind cancelled: nothing was changed."
NOT_RECORDED = ("the session did not record which writes came after message {n} (it was sent by an older ljtui, "
                "or the session was copied): rewind the conversation only")
SHOWN_CHARS = 120
"""A message is shown on one line of at most this many characters in the question and the note."""


@dataclass(frozen=True)
class RewindPlace:
    """Where a rewind acts: the repository, who hears and answers, and how the conversation is cut.

    Attributes:
        root: The repository root.
        sink: Where notices and the outcome go.
        ask: Asks the human.
        clock: The transaction's clock.
        cut: Cuts the conversation back to its first ``n`` messages (and records it in the session log).
        told: Keeps the note the model reads with the next message.
        later: How many messages follow a point's index in the conversation.
    """

    root: Path
    sink: EventSink
    ask: Ask
    clock: Clock | None
    cut: Callable[[int], None]
    told: Callable[[str], None]
    later: Callable[[int], int]


def points_of(root: Path, logged: list[LoggedMessage], typed: list[tuple[int, str]]) -> list[RewindPoint]:
    """The rewind points of a conversation whose user messages are ``typed`` (index, text), given what its log
    recorded (``logged``); the two are matched from the newest (a resumed copy may lack the oldest marks)."""
    marks: list[tuple[str, ...] | None] = [None] * len(typed)
    for k in range(1, min(len(logged), len(typed)) + 1):
        if logged[-k].text == typed[-k][1]:
            marks[-k] = logged[-k].marked
    return [RewindPoint(n, index, text, files_since(root, marked) if marked is not None else None, marked)
            for n, ((index, text), marked) in enumerate(zip(typed, marks), start=1)]


def request_for(point: RewindPoint, mode: str, code: UndoPreview | None, later: int, pruned: bool) -> ApprovalRequest:
    """The question before rewinding to ``point``: what happens to each file and to the conversation."""
    lines = [f"Message {point.number}: {shorten(point.text, SHOWN_CHARS)}", ""]
    if code is not None:
        if code.files:
            lines += ["Files, as they were before it (every apply and agent write since, newest first):",
                      *code.file_lines()]
        elif code.damaged:
            lines.append(f"A kept snapshot is damaged: it is set aside and the rewind refused ({code.problem}).")
        else:
            lines.append("No file was written since it: no file changes.")
        if pruned:
            lines.append("Only the newest applies are kept: writes older than the oldest kept one stay as they are.")
        lines.append("")
    if mode in (CONVERSATION, BOTH):
        lines += [f"The conversation goes back to before it: {later} message(s) leave the model's context; "
                  "the message goes back to the input box.", ""]
    if code is not None:
        lines.append("Refused, with nothing changed, if any of the files changed since.")
    what = {CODE: "the code", CONVERSATION: "the conversation", BOTH: "the code and the conversation"}[mode]
    return confirm("rewind", f"Rewind {what} to message {point.number}?", lines, "rewind",
                   "cancel, nothing is changed", subject=str(point.number))


def note_for(point: RewindPoint, mode: str, files: list[str]) -> str:
    """What the model reads first in the next message: what the user rewound."""
    said = f'their message {point.number} ("{shorten(point.text, SHOWN_CHARS)}")'
    restored = (f"the files {', '.join(files)} were restored to their state before it, so every write made to them "
                "since is undone") if files else "no file was changed"
    if mode == CODE:
        return f"{NOTE_PREFIX}The user restored the code to before {said}: {restored}; the conversation is kept."
    return (f"{NOTE_PREFIX}The user rewound the conversation to before {said}: that message and everything after it "
            f"are gone from the conversation; {restored}.")


async def rewind_to(place: RewindPlace, point: RewindPoint, mode: str) -> bool:
    """Ask, then rewind the code, the conversation or both to before ``point``; False when refused or declined."""
    number = point.number
    code = mode in (CODE, BOTH)

    def refuse(message: str) -> bool:
        place.sink.emit(RewindFinished(number, mode, error=message))
        return False

    if code and point.marked is None:
        return refuse(NOT_RECORDED.format(n=number))
    found = await asyncio.to_thread(preview, place.root, point.marked) if code and point.marked is not None else None
    if found is not None and found.problem and not found.damaged:
        return refuse(found.problem)
    if mode == CODE and found is not None and not found.files and not found.damaged:
        return refuse(NOTHING_SINCE)
    pruned = code and await asyncio.to_thread(maybe_pruned, place.root, point.marked or ())
    request = request_for(point, mode, found, place.later(point.index), pruned)
    if (await place.ask(request)).choice != YES:
        place.sink.emit(Notice(CANCELLED))
        return False
    files: list[str] = []
    removed: list[str] = []
    remaining = None
    if found is not None and (found.files or found.damaged):
        outcome = await asyncio.to_thread(rewind_code, place.root, point.marked or (), clock=place.clock)
        if outcome.error is not None:
            return refuse(outcome.error.message)
        files, removed, remaining = outcome.files, outcome.removed, outcome.remaining
        for note in outcome.notes:
            place.sink.emit(Notice(note, "warning"))
    conversation = mode in (CONVERSATION, BOTH)
    if conversation:
        place.cut(point.index)
    place.told(note_for(point, mode, files))
    place.sink.emit(RewindFinished(number, mode, tuple(files), tuple(removed), conversation,
                                   point.text if conversation else "", None, remaining))
    return True


class SessionRewind:
    """Rewind of the running session: its conversation, its log and the repository's journal.

    Args:
        root: The repository root.
        sink: Where the points, notices and outcomes go.
        ask: Asks the human.
        clock: The transactions' clock.
        chat: The conversation (its history is cut).
        log: The session log in force (resuming replaces it).
    """

    def __init__(self, root: Path, sink: EventSink, ask: Ask, clock: Clock, chat: Conversation,
                 log: Callable[[], SessionLog]) -> None:
        self._root = root
        self._sink = sink
        self._ask = ask
        self._clock = clock
        self._chat = chat
        self._log = log
        self._note = ""

    def points(self) -> list[RewindPoint]:
        """The user messages of the conversation, oldest first, each with the files a rewind restores (disk work:
        call from a thread)."""
        log = self._log()
        log.flush()
        try:
            logged = logged_messages(self._root, log.id)
        except LogUnreadable:
            logged = []
        typed = [(i, typed_text(m)) for i, m in enumerate(self._chat.history) if is_typed(m)]
        return points_of(self._root, logged, typed)

    async def show(self) -> None:
        """Report the points (``/rewind``, Esc Esc: the screen to choose one opens on it)."""
        self._sink.emit(RewindListed(tuple(await asyncio.to_thread(self.points))))

    async def rewind(self, number: int, mode: str) -> bool:
        """Ask, then rewind to user message ``number`` (from 1); False when refused, declined or unknown."""
        points = await asyncio.to_thread(self.points)
        point = next((p for p in points if p.number == number), None)
        if point is None:
            self._sink.emit(RewindFinished(number, mode, error=f"there is no message {number} in the conversation "
                                                               f"(it has {len(points)})"))
            return False
        place = RewindPlace(self._root, self._sink, self._ask, self._clock, self._cut, self._keep_note,
                            lambda index: len(self._chat.history) - index)
        return await rewind_to(place, point, mode)

    def told(self, text: str) -> str:
        """``text`` after the note of a rewind made since the last message, if any."""
        note, self._note = self._note, ""
        return f"{note}\n\n{text}" if note else text

    def _cut(self, index: int) -> None:
        del self._chat.history[index:]
        self._log().rewound(index, sync=True)

    def _keep_note(self, note: str) -> None:
        self._note = note
