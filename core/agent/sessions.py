"""Sessions that survive a crash (AGENT-7): the session log, resuming, listing.

Each session is ``.agent/sessions/<id>.jsonl``, appended as the conversation
happens: a header, then every message as it joins the history, token use,
the summary compression leaves, the plan put under review, a rewind when a
failed turn is forgotten, a marker when the conversation is cleared
(records: :mod:`ljtui.core.agent.session_records`).

:class:`SessionLog` never blocks its caller and never raises: records are
written in order by one background thread, each appended with a single
write (no user-space buffer), and the file is synced after every message the
user typed, so a crash loses at most what was still in flight. The file is
created with the first record, so a session in which nothing happened
leaves nothing behind. A write failure stops the log and is reported once.

Reading back (:mod:`ljtui.core.agent.session_replay`) treats the log as
untrusted: a repository can commit ``.agent/sessions/``. Only sessions this
user created on this machine (:mod:`ljtui.core.agent.session_owners`) are
resumed, unless the user trusts the repository. :func:`list_sessions`
(:mod:`ljtui.core.agent.session_list`) lists them, newest first.
"""

from __future__ import annotations

import errno
import os
import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from ljtui.core.agent.session_list import SessionInfo, SessionListing, list_sessions
from ljtui.core.agent.session_owners import SessionOwners, repo_trusted
from ljtui.core.agent.session_records import (
    MAX_RECORD_BYTES, SESSION_ID, Cleared, Header, Marked, MessageAdded, PlanOpened, Record, Rewound, Summarised,
    UsageAdded, encode_record,
)
from ljtui.core.agent.session_replay import (
    MAX_SESSION_BYTES, SESSIONS_DIR, PlanUnderReview, Session, SessionUnreadable, log_name, read_session,
)
from ljtui.core.clock import Clock, SystemClock
from ljtui.core.edits.durable import fsync_dir
from ljtui.core.events import Usage
from ljtui.core.providers.base import Message, TextBlock
from ljtui.core.statedir import StateDirUnsafe, open_state_file

__all__ = [
    "PlanUnderReview", "Resumed", "Session", "SessionInfo", "SessionListing", "SessionLog", "SessionRefused",
    "list_sessions", "new_session_id", "resume_session",
]

ID_TIME_FORMAT = "%Y%m%d-%H%M%S"
"""Start time in an id (UTC), so ids sort by time."""
ID_RANDOM_BYTES = 2
"""Random bytes after the time (four hex digits)."""
ID_ATTEMPTS = 16
"""New ids tried when the chosen one is taken."""
FLUSH_TIMEOUT = 30.0
"""Seconds :meth:`SessionLog.close` waits for queued records to reach the disk."""
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND
IdFactory = Callable[[float], str]
"""Makes a session id from the start time (seconds since the epoch)."""


def new_session_id(now: float) -> str:
    """A time-sortable, unique-enough id, e.g. ``20261201-043512-3f9a`` (UTC)."""
    return f"{time.strftime(ID_TIME_FORMAT, time.gmtime(now))}-{secrets.token_hex(ID_RANDOM_BYTES)}"


def package_version() -> str:
    """The installed ljtui version, written in every header."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ljtui")
    except PackageNotFoundError:
        return "0+unknown"


class SessionLog:
    """The append-only log of one session; every method returns at once and never raises.

    Args:
        root: The repository root.
        clock: Start time of the session.
        new_id: Makes the id from the start time (default :func:`new_session_id`).
        owners: Where the ids this user creates are recorded (default: the user's state dir).
        version: The ljtui version written in the header.
        on_problem: Called once, from the writer thread, when the log stops because a write failed.
    """

    def __init__(self, root: Path, *, clock: Clock | None = None, new_id: IdFactory | None = None,
                 owners: SessionOwners | None = None, version: str | None = None,
                 on_problem: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.started = (clock or SystemClock()).now()
        self._new_id = new_id or new_session_id
        self.id = self._new_id(self.started)
        self._owners = owners or SessionOwners.for_env()
        self._version = version or package_version()
        self._on_problem = on_problem
        self._resumed_from: str | None = None
        self._continue_at: int | None = None
        """For a continued session: bytes of complete lines its file held when it was read."""
        self._fd: int | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._last: Future[None] | None = None
        self._submit_lock = threading.Lock()
        self._closed = False
        self.problem: str | None = None
        """Why the log stopped writing, once it has."""
        self.warnings: list[str] = []
        """Records that were not written (too large), one line each."""

    @classmethod
    def continuing(cls, root: Path, session: Session, **options: object) -> SessionLog:
        """The log of ``session`` (one this user created), appended to from where it was read."""
        log = cls(root, **options)  # type: ignore[arg-type]
        log.id, log.started, log._continue_at = session.id, session.header.started, session.size
        return log

    @classmethod
    def copying(cls, root: Path, session: Session, **options: object) -> SessionLog:
        """A new log that starts with the state of ``session`` and names it as its origin."""
        log = cls(root, **options)  # type: ignore[arg-type]
        log._resumed_from = session.id
        if session.summary is not None:
            log.compressed(session.summary, 0)
        for message in session.history:
            log.message(message)
        log.usage(session.usage, session.cost_usd)
        if session.plan is not None:
            log.plan(session.plan.text, session.plan.origin)
        return log

    # --- what the engine reports -----------------------------------------------

    def message(self, message: Message) -> None:
        """A message joined the history; a message the user typed is synced to disk."""
        typed = message.role == "user" and any(isinstance(b, TextBlock) for b in message.content)
        self._submit(MessageAdded(message), sync=typed)

    def usage(self, usage: Usage, cost_usd: float | None = None) -> None:
        """Token use (and cost, when priced) of one model call."""
        self._submit(UsageAdded(usage, cost_usd), sync=False)

    def compressed(self, summary: str, kept: int) -> None:
        """Compression replaced the history with ``summary`` and its last ``kept`` messages."""
        self._submit(Summarised(summary, kept), sync=True)

    def plan(self, text: str, origin: str) -> None:
        """The plan ``text`` was put under review (``origin``: ``planner`` or its file)."""
        self._submit(PlanOpened(text, origin), sync=True)

    def rewound(self, messages: int, *, sync: bool = False) -> None:
        """The history was cut back to its first ``messages`` messages (a failed turn, a rewind: ``sync``)."""
        self._submit(Rewound(messages), sync=sync)

    def marked(self, groups: tuple[str, ...]) -> None:
        """The next user message is sent while the journal keeps the applies of ``groups`` (see :class:`Marked`)."""
        self._submit(Marked(groups), sync=False)

    def cleared(self) -> None:
        """The conversation was cleared."""
        self._submit(Cleared(), sync=True)

    def notice(self, level: str, text: str) -> None:
        """A notice the session showed, kept once the log has begun (notices alone leave no session behind)."""
        from ljtui.core.agent.session_records import notice_record

        if self._last is not None or self._continue_at is not None:
            self._submit(notice_record(level, text), sync=False)

    # --- lifetime --------------------------------------------------------------

    @property
    def path(self) -> Path:
        """Where the log is (or will be, once something happens)."""
        return self.root / ".agent" / SESSIONS_DIR / log_name(self.id)

    def flush(self, timeout: float = FLUSH_TIMEOUT) -> bool:
        """Wait until every record so far is written; False when ``timeout`` passed first."""
        with self._submit_lock:
            last = self._last
        if last is None:
            return True
        try:
            last.result(timeout)
        except FutureTimeout:
            return False
        return True

    def close(self, timeout: float = FLUSH_TIMEOUT) -> bool:
        """Write what is queued, then close the file; later records are dropped."""
        done = self.flush(timeout)
        with self._submit_lock:
            executor, self._executor = self._executor, None
            self._closed = True
        if executor is not None:
            try:
                executor.submit(self._close_file)
            except RuntimeError:  # the interpreter is shutting down; the file closes with the process
                pass
            executor.shutdown(wait=done)
        return done

    # --- the writer thread ------------------------------------------------------

    def _submit(self, record: Record, *, sync: bool) -> None:
        with self._submit_lock:
            if self.problem is not None or self._closed:
                return
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ljtui-session")
            try:
                self._last = self._executor.submit(self._append, record, sync)
            except RuntimeError:  # the interpreter is shutting down: nothing can be scheduled any more
                self._closed = True

    def _append(self, record: Record, sync: bool) -> None:
        if self.problem is not None:
            return
        try:
            data = encode_record(record)
        except (TypeError, ValueError, RecursionError) as exc:
            self.warnings.append(f"a {type(record).__name__} record was not logged: {type(exc).__name__}: {exc}")
            return
        if len(data) > MAX_RECORD_BYTES:
            self.warnings.append(f"a {type(record).__name__} record of {len(data)} bytes was not logged "
                                 f"(the limit is {MAX_RECORD_BYTES})")
            return
        try:
            if self._fd is None:
                self._fd = self._open()
            _write_all(self._fd, data)
            if sync:
                os.fsync(self._fd)
        except StateDirUnsafe as exc:
            self._fail(exc.message)
        except OSError as exc:
            self._fail(f"the session is no longer saved: cannot write {self.path}: {exc.strerror or exc}")
        except Exception as exc:  # the writer thread is a boundary: whatever fails is reported, never raised
            self._fail(f"the session is no longer saved: {type(exc).__name__}: {exc}")

    def _open(self) -> int:
        if self._continue_at is not None:
            return self._reopen(self._continue_at)
        from ljtui.core.edits.journal import ensure_agent_gitignore

        ensure_agent_gitignore(self.root)
        for _ in range(ID_ATTEMPTS):
            if not SESSION_ID.fullmatch(self.id):
                raise OSError(errno.EINVAL, f"{self.id!r} is not a valid session id")
            self._record_owner()
            try:
                fd = open_state_file(self.root, SESSIONS_DIR, log_name(self.id),
                                     flags=_APPEND_FLAGS | os.O_CREAT | os.O_EXCL)
            except FileExistsError:
                self.id = self._new_id(self.started)
                continue
            header = Header(self.id, self.started, os.path.realpath(self.root), self._version, self._resumed_from)
            _write_all(fd, encode_record(header))
            os.fsync(fd)
            fsync_dir(self.path.parent)
            return fd
        raise FileExistsError(f"no free session id after {ID_ATTEMPTS} attempts")

    def _record_owner(self) -> None:
        try:
            self._owners.record(self.root, self.id)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot record the session in {self._owners.path}: "
                                     f"{exc.strerror or exc}") from exc

    def _reopen(self, complete: int) -> int:
        """Open a continued session's log; a line a crash cut short at its end is removed."""
        fd = open_state_file(self.root, SESSIONS_DIR, log_name(self.id), flags=os.O_RDWR | os.O_APPEND)
        try:
            size = os.fstat(fd).st_size
            if size > complete and os.pread(fd, 1, size - 1) != b"\n":
                os.ftruncate(fd, complete)
        except OSError:
            os.close(fd)
            raise
        return fd

    def _fail(self, message: str) -> None:
        self.problem = message
        if self._on_problem is not None:
            try:
                self._on_problem(message)
            except Exception:  # a failing reporter must not take the writer thread down
                pass

    def _close_file(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# --- resuming ------------------------------------------------------------------


@dataclass(frozen=True)
class Resumed:
    """A session to continue: its replayed state, and the log that goes on recording it."""

    log: SessionLog
    session: Session


@dataclass(frozen=True)
class SessionRefused:
    """A session that cannot be resumed; ``message`` says why and what to do."""

    message: str


def resume_session(root: Path, session_id: str, *, env: Mapping[str, str] | None = None,
                   clock: Clock | None = None, owners: SessionOwners | None = None, trusted: bool | None = None,
                   new_id: IdFactory | None = None, version: str | None = None,
                   on_problem: Callable[[str], None] | None = None,
                   limit: int = MAX_SESSION_BYTES) -> Resumed | SessionRefused:
    """Read a session back to continue it.

    A session this user created goes on in its own log. Any other session
    (one the repository brought) is resumed only when the repository is
    trusted, and then into a new log of this user's that starts with a copy
    of its state: ljtui never appends to a log it did not create.

    Args:
        root: The repository root.
        session_id: The session to resume.
        env: Where the user's state and config dirs are found (default: the process's).
        clock, new_id, version, on_problem: As for :class:`SessionLog` (used for a copy).
        owners: The user's record of their sessions (default: from ``env``).
        trusted: Whether the repository is trusted (default: the user's trust list).
        limit: A log longer than this many bytes is not resumed.
    """
    if not SESSION_ID.fullmatch(session_id):
        return SessionRefused(f"{session_id!r} is not a session id "
                              "(/resume in the app and `ljtui sessions` list them)")
    session = read_session(root, session_id, limit=limit)
    if isinstance(session, SessionUnreadable):
        return SessionRefused(session.message)
    if not session.complete:
        return SessionRefused(f"session {session_id} is larger than {limit} bytes and is not resumed")
    owners = owners or SessionOwners.for_env(env)
    options = dict(clock=clock, new_id=new_id, owners=owners, version=version, on_problem=on_problem)
    if session_id in owners.owned(root):
        return Resumed(SessionLog.continuing(root, session, **options), session)
    if not (repo_trusted(root, env) if trusted is None else trusted):
        return SessionRefused(f"session {session_id} was not created by you on this machine (it may have come "
                              f"with the repository), so it is not resumed; `ljtui trust` allows resuming "
                              f"this repository's sessions")
    return Resumed(SessionLog.copying(root, session, **options), session)
