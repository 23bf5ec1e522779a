"""Reading a session log back: bounded, strict, and never crashing.

:func:`read_session` reads ``.agent/sessions/<id>.jsonl`` through the state
folder rules (no symlinks), at most :data:`MAX_SESSION_BYTES`, one line at a
time with each line bounded; every line goes through the strict record
reader. A malformed line is skipped and counted in a warning; a last line
without its newline (the process died while writing it) is dropped
silently. The records are replayed into the state a resumed conversation
needs — history, summary, token totals, the last plan under review — and the
history is made well-formed for the providers (:func:`well_formed`).
"""

from __future__ import annotations

import os
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from ljtui.core.agent.session_records import (
    MAX_RECORD_BYTES, SESSION_ID, Cleared, Header, Malformed, MessageAdded, NoticeShown, PlanOpened, Record, Rewound,
    Summarised, UsageAdded, parse_record,
)
from ljtui.core.events import TranscriptEntry, Usage
from ljtui.core.providers.base import Block, Message, TextBlock, ToolResultBlock, ToolUseBlock
from ljtui.core.statedir import StateDirUnsafe, open_state_file

SESSIONS_DIR = "sessions"
"""Folder below ``.agent`` holding one ``<id>.jsonl`` per session."""
LOG_SUFFIX = ".jsonl"
MAX_SESSION_BYTES = 256 * 1024 * 1024
"""At most this much of one log is read; a longer log is not resumed."""
MAX_HEADER_BYTES = 64 * 1024
"""The first line of a log is read up to this length (a header is a few hundred bytes)."""
READ_CHUNK = 1024 * 1024
"""Bytes read at a time while skipping an over-long line."""
MAX_REASONS_SHOWN = 3
"""Malformed lines described one by one in a warning (the rest are counted)."""
FIRST_MESSAGE_CHARS = 80
"""The first user message is shortened to this many characters in listings."""
SUMMARISED = -1
"""Where the first message is once compression has taken it into the summary (no rewind forgets it then)."""
MAX_NOTICES = 400
"""Newest notices of a log kept to show again."""


@dataclass(frozen=True)
class SavedNotice:
    """A notice the session showed, after the first ``after`` messages of the resumed history."""

    after: int
    level: str
    text: str


@dataclass(frozen=True)
class PlanUnderReview:
    """The text of the last plan put under review, and where it came from."""

    text: str
    origin: str


@dataclass(frozen=True)
class Session:
    """What a log holds, replayed: everything resuming the conversation needs.

    Attributes:
        header: Id, start time, repository and ljtui version of the session.
        history: The conversation, well-formed for the providers.
        summary: The summary compression left in place of older messages, if any.
        usage: Token totals of every model call of the session.
        cost_usd: Cost of those calls, when they were priced.
        plan: The last plan put under review, if any.
        first_message: The first thing the user said in the conversation a resume brings back (in its
            messages or in its summary), on one line and shortened; a message a failed turn or a clear forgot
            is not it.
        complete: False when the log was longer than :data:`MAX_SESSION_BYTES`.
        warnings: Lines a user should read (malformed lines skipped, a log cut short).
        size: How many bytes of complete lines were read.
        notices: The notices shown while the messages still in the history were said (the newest
            :data:`MAX_NOTICES`), each placed after the message it followed.
    """

    header: Header
    history: tuple[Message, ...]
    summary: str | None
    usage: Usage
    cost_usd: float | None
    plan: PlanUnderReview | None
    first_message: str
    complete: bool
    warnings: tuple[str, ...]
    size: int
    notices: tuple[SavedNotice, ...] = ()

    @property
    def id(self) -> str:
        return self.header.id


@dataclass(frozen=True)
class SessionUnreadable:
    """A log that cannot be read at all; ``message`` says why and what to do."""

    message: str


def log_name(session_id: str) -> str:
    """The file name of a session's log."""
    return f"{session_id}{LOG_SUFFIX}"


def read_session(root: Path, session_id: str, *, limit: int = MAX_SESSION_BYTES) -> Session | SessionUnreadable:
    """Read and replay the log of ``session_id`` in the repository at ``root``.

    Args:
        root: The repository root.
        session_id: The session.
        limit: Read at most this many bytes.

    Returns:
        The replayed session, or why it cannot be read.
    """
    if not SESSION_ID.fullmatch(session_id):
        return SessionUnreadable(f"{session_id!r} is not a session id")
    shown = f".agent/{SESSIONS_DIR}/{log_name(session_id)}"
    try:
        fd = open_state_file(root, SESSIONS_DIR, log_name(session_id), flags=os.O_RDONLY)
    except StateDirUnsafe as exc:
        return SessionUnreadable(exc.message)
    except FileNotFoundError:
        return SessionUnreadable(f"no session {session_id}: {shown} does not exist")
    except OSError as exc:
        return SessionUnreadable(f"cannot read {shown}: {exc.strerror or exc}")
    try:
        with os.fdopen(fd, "rb") as fh:
            return _replay(session_id, shown, fh, limit)
    except OSError as exc:
        return SessionUnreadable(f"cannot read {shown}: {exc.strerror or exc}")


class _Lines:
    """Complete lines of a file, each at most :data:`MAX_RECORD_BYTES`, at most ``limit`` bytes in all."""

    def __init__(self, fh: BinaryIO, limit: int) -> None:
        self.fh = fh
        self.limit = limit
        self.read = 0
        """Bytes of complete lines consumed so far."""
        self.cut_short = False

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        """Yield ``(line number, line)``; ``None`` for a line too long to read.

        The first line (the header) is bounded by :data:`MAX_HEADER_BYTES`, so
        a file that is not a session log costs little to turn down.
        """
        number = 0
        while self.read < self.limit:
            longest = MAX_HEADER_BYTES if number == 0 else MAX_RECORD_BYTES
            line = self.fh.readline(min(longest + 1, self.limit - self.read))
            if not line:
                return
            number += 1
            if line.endswith(b"\n"):
                self.read += len(line)
                yield number, line[:-1]
                continue
            if len(line) <= longest and self.read + len(line) < self.limit:
                return  # the last line, cut short by a crash: dropped
            if number == 1:
                yield number, None  # not a header: nothing more is read
                return
            if not self._skip_rest(len(line)):
                return
            yield number, None
        self.cut_short = bool(self.fh.read(1))

    def _skip_rest(self, consumed: int) -> bool:
        """Skip to the end of an over-long line; False when the file or the budget ended first."""
        total = consumed
        while self.read + total < self.limit:
            chunk = self.fh.readline(min(READ_CHUNK, self.limit - self.read - total))
            if not chunk:
                return False
            total += len(chunk)
            if chunk.endswith(b"\n"):
                self.read += total
                return True
        self.read += total
        self.cut_short = bool(self.fh.read(1))
        return False


def _replay(session_id: str, shown: str, fh: BinaryIO, limit: int) -> Session | SessionUnreadable:
    lines = _Lines(fh, limit)
    state = _State()
    header: Header | None = None
    for number, line in lines:
        longest = MAX_HEADER_BYTES if header is None else MAX_RECORD_BYTES
        record = parse_record(line) if line is not None else Malformed(f"longer than {longest} bytes")
        if header is None:
            if not isinstance(record, Header) or record.id != session_id:
                why = record.reason if isinstance(record, Malformed) else "not a header for this session"
                return SessionUnreadable(f"{shown} is not a session log: line {number}: {why}")
            header = record
        elif isinstance(record, Malformed):
            state.bad(number, record.reason)
        elif isinstance(record, Header):
            state.bad(number, "a second header")
        else:
            state.apply(number, record)
    if header is None:
        return SessionUnreadable(f"{shown} is empty")
    warnings = state.warnings(shown)
    if lines.cut_short:
        warnings.append(f"{shown} is larger than {limit} bytes: only the start was read")
    formed = _formed(state.history)
    kept = [raw for raw, _ in formed]  # where each message left by well_formed was in the log's history
    notices = tuple(SavedNotice(bisect_left(kept, after), n.level, n.text) for after, n in state.notices)
    return Session(header, tuple(m for _, m in formed), state.summary, state.usage, state.cost,
                   state.plan, shorten(state.first_message), not lines.cut_short, tuple(warnings), lines.read,
                   notices)


class _State:
    """The conversation as the records rebuild it, and the lines that were skipped."""

    def __init__(self) -> None:
        self.history: list[Message] = []
        self.summary: str | None = None
        self.usage = Usage()
        self.cost: float | None = None
        self.plan: PlanUnderReview | None = None
        self.first_message = ""
        self.first_at: int | None = None
        """Where in the history the first message is (``SUMMARISED`` once compression took it into the summary)."""
        self.skipped: list[str] = []
        self.notices: list[tuple[int, NoticeShown]] = []
        """Each notice, with how many messages of the history came before it."""

    def bad(self, number: int, reason: str) -> None:
        self.skipped.append(f"line {number}: {reason}")

    def apply(self, number: int, record: Record) -> None:
        if isinstance(record, MessageAdded):
            self.history.append(record.message)
            if not self.first_message and record.message.role == "user" and record.message.text.strip():
                self.first_message, self.first_at = record.message.text, len(self.history) - 1
        elif isinstance(record, UsageAdded):
            self.usage = self.usage + record.usage
            if record.cost_usd is not None:
                self.cost = (self.cost or 0.0) + record.cost_usd
        elif isinstance(record, Summarised):
            if record.kept > len(self.history):
                self.bad(number, f"a summary keeps {record.kept} of {len(self.history)} messages")
            cut = len(self.history) - min(record.kept, len(self.history))
            self.history = self.history[cut:]
            self.notices = [(after - cut, n) for after, n in self.notices if after >= cut]
            self.summary = record.text
            if self.first_at is not None and self.first_at != SUMMARISED:
                self.first_at = self.first_at - cut if self.first_at >= cut else SUMMARISED
        elif isinstance(record, PlanOpened):
            self.plan = PlanUnderReview(record.text, record.origin)
        elif isinstance(record, Rewound):
            if record.messages > len(self.history):
                self.bad(number, f"a rewind to {record.messages} of {len(self.history)} messages")
            del self.history[record.messages:]
            self.notices = [(after, n) for after, n in self.notices if after <= record.messages]
            if self.first_at is not None and self.first_at != SUMMARISED and self.first_at >= record.messages:
                self._forget_first()
        elif isinstance(record, NoticeShown):
            self.notices = [*self.notices[-(MAX_NOTICES - 1):], (len(self.history), record)]
        elif isinstance(record, Cleared):
            self.history.clear()
            self.notices.clear()
            self.summary = None
            self._forget_first()

    def _forget_first(self) -> None:
        """The first message left the conversation (a failed turn forgotten, a clear): the next one is first."""
        self.first_message, self.first_at = "", None

    def warnings(self, shown: str) -> list[str]:
        if not self.skipped:
            return []
        listed = "; ".join(self.skipped[:MAX_REASONS_SHOWN])
        more = len(self.skipped) - MAX_REASONS_SHOWN
        return [f"{shown}: {len(self.skipped)} malformed line{'s' if len(self.skipped) != 1 else ''} skipped "
                f"({listed}{f'; and {more} more' if more > 0 else ''})"]


def well_formed(history: list[Message]) -> list[Message]:
    """``history`` as the providers accept it.

    Every tool call is answered by a result in the next message, or it is
    dropped (a crash while a tool ran leaves one dangling at the end); a
    result answering no call of the message before it is dropped; results
    come before text in a message; empty text blocks and messages left
    empty are dropped.
    """
    return [message for _, message in _formed(history)]


def _formed(history: list[Message]) -> list[tuple[int, Message]]:
    """:func:`well_formed`, each message with its index in ``history``."""
    out: list[tuple[int, Message]] = []
    open_calls: set[str] = set()
    for index, message in enumerate(history):
        if message.role == "assistant":
            following = history[index + 1] if index + 1 < len(history) else None
            answered = ({b.tool_use_id for b in following.content if isinstance(b, ToolResultBlock)}
                        if following is not None and following.role == "user" else set())
            blocks, open_calls = _calls(message.content, answered)
        else:
            blocks = _results(message.content, open_calls)
            open_calls = set()
        if blocks:
            out.append((index, Message(message.role, blocks)))
    return out


def _calls(content: tuple[Block, ...], answered: set[str]) -> tuple[tuple[Block, ...], set[str]]:
    """An assistant message's blocks: text, and the tool calls the next message answers (once each)."""
    kept: list[Block] = []
    calls: set[str] = set()
    for block in content:
        if isinstance(block, ToolUseBlock):
            if block.id in answered and block.id not in calls:
                calls.add(block.id)
                kept.append(block)
        elif isinstance(block, TextBlock) and block.text:
            kept.append(block)
    return tuple(kept), calls


def _results(content: tuple[Block, ...], calls: set[str]) -> tuple[Block, ...]:
    """A user message's blocks: results of the calls just made (once each) first, then text."""
    results: list[Block] = []
    seen: set[str] = set()
    for block in content:
        if isinstance(block, ToolResultBlock) and block.tool_use_id in calls and block.tool_use_id not in seen:
            seen.add(block.tool_use_id)
            results.append(block)
    texts = [b for b in content if isinstance(b, TextBlock) and b.text]
    return (*results, *texts)


def shorten(text: str, limit: int = FIRST_MESSAGE_CHARS) -> str:
    """``text`` on one line, control characters removed, at most ``limit`` characters."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text[:limit * 4]).split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


TRANSCRIPT_ENTRIES = 400
"""Most recent entries of a resumed conversation shown again (all of it goes back to the model)."""


def transcript(history: list[Message], notices: tuple[SavedNotice, ...] = (),
               limit: int = TRANSCRIPT_ENTRIES) -> tuple[TranscriptEntry, ...]:
    """What a resumed conversation shows: each text said, each tool call made with how it ended (its result
    said whether it failed), and each notice where it came; the newest ``limit``."""
    entries: list[TranscriptEntry] = []
    waiting = sorted(notices, key=lambda n: n.after)
    for index, message in enumerate(history):
        while waiting and waiting[0].after <= index:
            entries.append(_notice_entry(waiting.pop(0)))
        following = history[index + 1].content if index + 1 < len(history) else ()
        ended = {b.tool_use_id: not b.is_error for b in following if isinstance(b, ToolResultBlock)}
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                entries.append(TranscriptEntry(message.role, block.text))
            elif isinstance(block, ToolUseBlock):
                entries.append(TranscriptEntry("tool", block.name, dict(block.input), ok=ended.get(block.id)))
    entries.extend(_notice_entry(n) for n in waiting)
    return tuple(entries[-limit:])


def _notice_entry(notice: SavedNotice) -> TranscriptEntry:
    return TranscriptEntry("notice", notice.text, level=notice.level)
