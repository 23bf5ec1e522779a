"""The points a session can be rewound to, read from its log: each user message and what the journal kept
before it.

The log is untrusted input: it is read through the state folder rules, at
most :data:`~ljtui.core.agent.session_replay.MAX_SESSION_BYTES`, one bounded
line at a time, every line through the strict record reader (a malformed one
is skipped, as a resume skips it). Only what places the messages is replayed:
messages, summaries, rewinds, clears, and the marks written before each user
message (:class:`~ljtui.core.agent.session_records.Marked`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from ljtui.core.agent.session_records import (
    MAX_RECORD_BYTES, SESSION_ID, Cleared, Header, Marked, MessageAdded, Rewound, Summarised, parse_record,
)
from ljtui.core.agent.session_replay import MAX_SESSION_BYTES, SESSIONS_DIR, log_name
from ljtui.core.providers.base import Message, TextBlock
from ljtui.core.statedir import StateDirUnsafe, open_state_file

NOTE_PREFIX = "[Rewind] "
"""How the note telling the model of a rewind starts (it is taken off again when a message is shown to rewind)."""


@dataclass(frozen=True)
class LoggedMessage:
    """A user message of the conversation a log brings back.

    Attributes:
        index: Where it is in the history (the count a ``Rewound`` record cuts back to, to forget it).
        text: What the user typed.
        marked: The journal groups kept when it was sent; ``None`` when the log did not record them.
    """

    index: int
    text: str
    marked: tuple[str, ...] | None


class LogUnreadable(Exception):
    """The log cannot be read; the message says why."""


def typed_text(message: Message) -> str:
    """What the user typed in ``message``: its last text, without a rewind note put before it."""
    texts = [b.text for b in message.content if isinstance(b, TextBlock) and b.text.strip()]
    text = texts[-1] if texts else ""
    if text.startswith(NOTE_PREFIX) and "\n\n" in text:
        text = text.split("\n\n", 1)[1]
    return text


def is_typed(message: Message) -> bool:
    """Whether ``message`` is one the user typed (not tool results)."""
    return message.role == "user" and any(isinstance(b, TextBlock) and b.text.strip() for b in message.content)


def logged_messages(root: Path, session_id: str) -> list[LoggedMessage]:
    """The user messages of the conversation the log of ``session_id`` brings back, oldest first.

    Raises:
        LogUnreadable: It is not a session id, or its log is missing, unsafe or too large.
    """
    if not SESSION_ID.fullmatch(session_id):
        raise LogUnreadable(f"{session_id!r} is not a session id")
    shown = f".agent/{SESSIONS_DIR}/{log_name(session_id)}"
    try:
        fd = open_state_file(root, SESSIONS_DIR, log_name(session_id), flags=os.O_RDONLY)
    except StateDirUnsafe as exc:
        raise LogUnreadable(exc.message) from None
    except FileNotFoundError:
        raise LogUnreadable(f"no session {session_id}: {shown} does not exist") from None
    except OSError as exc:
        raise LogUnreadable(f"cannot read {shown}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        if os.fstat(fh.fileno()).st_size > MAX_SESSION_BYTES:
            raise LogUnreadable(f"{shown} is larger than {MAX_SESSION_BYTES} bytes")
        return _replay(session_id, _lines(fh))


def _lines(fh: BinaryIO) -> Iterator[bytes]:
    """Each complete line (without its newline); an over-long line comes as an empty one (malformed)."""
    while True:
        line = fh.readline(MAX_RECORD_BYTES + 2)
        if not line.endswith(b"\n"):
            if len(line) <= MAX_RECORD_BYTES:
                return  # the end, or a last line the process died while writing
            while line and not line.endswith(b"\n"):
                line = fh.readline(MAX_RECORD_BYTES)
            yield b""
            continue
        yield line[:-1]


def _replay(session_id: str, lines: Iterator[bytes]) -> list[LoggedMessage]:
    history: list[tuple[Message, tuple[str, ...] | None]] = []
    pending: tuple[str, ...] | None = None
    header = False
    for line in lines:
        record = parse_record(line)
        if not header:
            if not isinstance(record, Header) or record.id != session_id:
                raise LogUnreadable(f"the log of {session_id} does not start with its header")
            header = True
        elif isinstance(record, Marked):
            pending = record.groups
        elif isinstance(record, MessageAdded):
            history.append((record.message, pending if is_typed(record.message) else None))
            pending = None
        elif isinstance(record, Summarised):
            del history[:len(history) - min(record.kept, len(history))]
        elif isinstance(record, Rewound):
            del history[record.messages:]
        elif isinstance(record, Cleared):
            history.clear()
    return [LoggedMessage(i, typed_text(m), marked) for i, (m, marked) in enumerate(history) if is_typed(m)]
