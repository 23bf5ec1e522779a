"""The run log ``.agent/events.jsonl``: task-plan and gate events, one JSON object per line.

Every task-plan event (plan proposed, approved, rejected, fallback, task
started and finished, plan updated, tool hint stripped, replanner decided,
run finished) and every gate event (proposed, confirmed, started, check
recorded, delivery blocked, finished, breaker opened, delivered) is appended as the same object ``ljtui run --json`` prints,
with a ``time`` (ISO 8601, UTC) added. ``ljtui stats`` reads it back.

Writing (:class:`RunLog`) goes through :mod:`ljtui.core.statedir`: never
through a symbolic link, ``O_APPEND``, one ``write`` per line under an
exclusive ``flock`` so two processes never interleave lines. A line is
bounded: long strings are trimmed (the line then carries ``"trimmed":
true``) and an event still too big is replaced by an ``event_dropped``
marker. Nothing raises into the caller: the first failure is returned as a
warning sentence and kept in :attr:`RunLog.warning`.

Reading (:func:`read_run_log`) treats the file as untrusted input — a
repository can commit its own ``.agent/events.jsonl``: only the last
:data:`MAX_READ_BYTES` are read, each line is parsed on its own and its
fields type-checked (:func:`event_problem`), lines of other kinds are
skipped, and malformed ones are counted with their reasons. Nothing tells a
run recorded on this machine from one a repository brought, so a committed
log counts in the figures; the file is listed in ``.agent/.gitignore`` so
ljtui never commits it itself.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ljtui.core.clock import Clock, SystemClock
from ljtui.core.statedir import StateDirUnsafe, open_state_file

if TYPE_CHECKING:
    from ljtui.core.events import Event

EVENTS_FILE = "events.jsonl"
"""The log's name below ``.agent``."""
GITIGNORE = ".gitignore"
MAX_LINE_BYTES = 64 * 1024
"""Longest line written or read (a plan of eight tasks is a few kilobytes)."""
MAX_FIELD_CHARS = 2000
"""A string longer than this is trimmed before a line is written."""
MAX_READ_BYTES = 16 * 1024 * 1024
"""Only the last this-many bytes of the log are read."""
MAX_GITIGNORE_BYTES = 1024 * 1024
"""Only this much of ``.agent/.gitignore`` is read when completing it."""
MAX_REASONS_KEPT = 3
"""Reasons kept for ignored lines (the rest are counted)."""
DROPPED_KIND = "event_dropped"
"""Kind of the marker written in place of an event too big for one line."""
TRIM_MARK = "…[trimmed]"
SHOWN_CHARS = 40
"""A kind or value quoted in a warning or reason is cut to this many characters."""
OTHER_KIND = "unknown kind"
"""How :func:`event_problem` starts the reason for a kind the log does not keep."""
_APPEND_FLAGS = os.O_RDWR | os.O_CREAT | os.O_APPEND
"""Read too: the last byte is checked before a line is added."""

_ID = (int, str)
_LIST = (list,)
_STR = (str,)
_INT = (int,)
FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "task_plan_proposed": {"run_id": _STR, "tasks": _LIST},
    "task_plan_approved": {"run_id": _STR},
    "task_plan_rejected": {"run_id": _STR},
    "task_plan_fallback": {"run_id": _STR},
    "task_started": {"run_id": _STR, "task_id": _ID},
    "task_finished": {"run_id": _STR, "task_id": _ID, "status": _STR},
    "task_plan_updated": {"run_id": _STR, "replan_count": _INT, "added": _LIST, "removed": _LIST, "changed": _LIST},
    "tool_hint_stripped": {"run_id": _STR, "task_id": _ID, "hint": _STR},
    "replanner_decided": {"run_id": _STR},
    "run_finished": {"run_id": _STR, "status": _STR, "replans": _INT, "failed": _INT},
    "gate_proposed": {"gate": _STR, "level": _INT},
    "gate_confirmed": {"gate": _STR, "level": _INT},
    "gate_started": {"gate": _STR, "run_id": _STR, "level": _INT},
    "gate_check_recorded": {"gate": _STR, "run_id": _STR, "item": _STR},
    "delivery_blocked": {"gate": _STR, "run_id": _STR, "bounces": _INT},
    "gate_finished": {"gate": _STR, "run_id": _STR, "outcome": _STR},
    "gate_breaker_opened": {"gate": _STR, "run_id": _STR, "bounces": _INT},
    "gate_delivered": {"gate": _STR, "run_id": _STR},
}
"""The kinds the log keeps and the fields each must carry, with their types."""
LOGGED_KINDS = frozenset(FIELDS)
COUNT_FIELDS = frozenset({"replan_count", "replans", "failed", "bounces", "level"})
"""Integer fields that may not be negative."""


def event_problem(obj: object) -> str | None:
    """Why ``obj`` is not a well-formed logged event (``None`` when it is one)."""
    if not isinstance(obj, dict):
        return f"not a JSON object but {type(obj).__name__}"
    kind = obj.get("kind")
    if not isinstance(kind, str):
        return "no text 'kind'"
    fields = FIELDS.get(kind)
    if fields is None:
        return f"{OTHER_KIND} {kind[:SHOWN_CHARS]!r}"
    for name, types in fields.items():
        value = obj.get(name)
        if not isinstance(value, types) or isinstance(value, bool):
            return f"{kind}: '{name}' is {type(value).__name__ if name in obj else 'missing'}"
        if name in COUNT_FIELDS and value < 0:
            return f"{kind}: '{name}' is negative"
    if kind == "task_plan_proposed":
        return next((p for p in map(task_problem, obj["tasks"]) if p), None)
    return None


def task_problem(task: object) -> str | None:
    """Why ``task`` is not a well-formed ``{id, description, tool_hint, …}`` (``None`` when it is one)."""
    if not isinstance(task, dict):
        return "a task is not an object"
    if not isinstance(task.get("id"), _ID) or isinstance(task.get("id"), bool):
        return "a task has no id"
    if not isinstance(task.get("tool_hint"), (str, type(None))):
        return "a task's tool_hint is not text"
    return None


def utc_iso(seconds: float) -> str:
    """``seconds`` since the epoch as ISO 8601 UTC with milliseconds, e.g. ``2027-01-15T08:00:00.000Z``."""
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class RunLog:
    """Appends events to ``<root>/.agent/events.jsonl``; never raises.

    Attributes:
        root: The repository root.
        warning: The first failure, as a sentence a user can act on (``None`` while all is well).
    """

    def __init__(self, root: Path, *, clock: Clock | None = None) -> None:
        self.root = root
        self.warning: str | None = None
        self._clock = clock or SystemClock()
        self._ignored = False
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        """Where the log lives."""
        return self.root / ".agent" / EVENTS_FILE

    def emit(self, event: Event) -> None:
        """Event-sink entry point: logs ``event`` when its kind is one the log keeps."""
        if getattr(event, "kind", None) in LOGGED_KINDS:
            from ljtui.core.events import event_to_dict

            self.append(event_to_dict(event))

    def append(self, event: Mapping[str, Any]) -> str | None:
        """Append ``event`` (a dict with a ``kind``) as one line, with its ``time``.

        The ``kind`` and ``time`` come first; a ``time`` the event carries is
        replaced by the log's. Values JSON cannot hold are written as text.

        Returns:
            A warning sentence the first time appending fails or an event is
            dropped, else ``None`` (later failures are not repeated).
        """
        try:
            line, problem = self._encode(event)
            self._write(line)
        except StateDirUnsafe as exc:
            problem = f"the run log is not kept: {exc.message}"
        except OSError as exc:
            problem = f"the run log is not kept: cannot write {self.path}: {exc.strerror or exc}"
        except Exception as exc:  # a log is a boundary: whatever fails is reported, never raised
            problem = f"the run log is not kept: {type(exc).__name__}: {exc}"
        return self._report(problem) if problem else None

    def _report(self, problem: str) -> str | None:
        with self._lock:
            if self.warning is not None:
                return None
            self.warning = problem
            return problem

    def _encode(self, event: Mapping[str, Any]) -> tuple[bytes, str | None]:
        kind = event.get("kind") if isinstance(event, Mapping) else None
        if not isinstance(kind, str):
            raise ValueError(f"an event without a text 'kind' was not logged: {str(event)[:SHOWN_CHARS]!r}")
        record = {"kind": kind, "time": utc_iso(self._clock.now())}
        record.update((k, v) for k, v in event.items() if k not in record)
        line = _dumps(record)
        if len(line) <= MAX_LINE_BYTES:
            return line, None
        trimmed = _trim(record)
        trimmed["trimmed"] = True
        line = _dumps(trimmed)
        if len(line) <= MAX_LINE_BYTES:
            return line, None
        marker = {"kind": DROPPED_KIND, "time": record["time"], "dropped_kind": kind, "bytes": len(line)}
        if isinstance(event.get("run_id"), str):
            marker["run_id"] = event["run_id"][:MAX_FIELD_CHARS]
        return _dumps(marker), (f"a {kind[:SHOWN_CHARS]} event of {len(line)} bytes was not logged in full "
                                f"(the limit is {MAX_LINE_BYTES}); {EVENTS_FILE} has an {DROPPED_KIND} line instead")

    def _write(self, line: bytes) -> None:
        with self._lock:
            if not self._ignored:
                from ljtui.core.edits.journal import ensure_agent_gitignore

                ensure_agent_gitignore(self.root)
                ensure_ignored(self.root, EVENTS_FILE)
                self._ignored = True
        fd = open_state_file(self.root, EVENTS_FILE, flags=_APPEND_FLAGS)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a line left unfinished by a crash stays on its own
            written = os.write(fd, line)
            if written != len(line):
                raise OSError(errno.EIO, f"only {written} of {len(line)} bytes written")
        finally:
            os.close(fd)  # closing releases the lock


def ensure_ignored(root: Path, entry: str) -> None:
    """Add ``entry`` to ``.agent/.gitignore`` when it is not listed yet.

    Raises:
        StateDirUnsafe: ``.agent`` or its ``.gitignore`` is a symlink or not what it should be.
        OSError: The file could not be read or written.
    """
    from ljtui.core.edits.durable import new_file_mode

    fd = open_state_file(root, GITIGNORE, flags=os.O_RDWR | os.O_CREAT | os.O_APPEND, mode=new_file_mode())
    try:
        existing = os.pread(fd, MAX_GITIGNORE_BYTES, 0).decode("utf-8", "replace")
        if entry not in {line.strip() for line in existing.splitlines()}:
            prefix = "" if not existing or existing.endswith("\n") else "\n"
            os.write(fd, f"{prefix}{entry}\n".encode())
    finally:
        os.close(fd)


def _dumps(record: Mapping[str, Any]) -> bytes:
    """One line; a lone surrogate (a file name that is not UTF-8) is written as its JSON escape."""
    text = json.dumps(record, ensure_ascii=False, default=str, separators=(",", ":")) + "\n"
    return text.encode("utf-8", "backslashreplace")


def _trim(value: Any) -> Any:
    """``value`` with every string longer than :data:`MAX_FIELD_CHARS` cut short and marked."""
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        return value[:MAX_FIELD_CHARS] + TRIM_MARK
    if isinstance(value, Mapping):
        return {str(k)[:MAX_FIELD_CHARS]: _trim(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_trim(v) for v in value]
    return value


@dataclass(frozen=True)
class RunLogRead:
    """What reading the run log found.

    Attributes:
        events: The well-formed events of the kinds the log keeps, in file order.
        ignored: Lines skipped because they were malformed (bad JSON, wrong types, too long, unfinished).
        reasons: Why, for the first few ignored lines (``line N: …``, counted from where reading began).
        other: Well-formed lines of other kinds (e.g. a newer ljtui's), skipped.
        unread_bytes: Bytes before the part that was read (the log is longer than :data:`MAX_READ_BYTES`).
        problem: Why the log could not be read at all (``None`` when it could, or does not exist).
    """

    events: tuple[dict[str, Any], ...] = ()
    ignored: int = 0
    reasons: tuple[str, ...] = ()
    other: int = 0
    unread_bytes: int = 0
    problem: str | None = None


def read_run_log(root: Path, *, max_bytes: int = MAX_READ_BYTES) -> RunLogRead:
    """Read ``<root>/.agent/events.jsonl`` defensively; never raises.

    Args:
        root: The repository root.
        max_bytes: Read at most the last this-many bytes; a line cut by that
            start is not counted.
    """
    try:
        fd = open_state_file(root, EVENTS_FILE, flags=os.O_RDONLY)
    except FileNotFoundError:
        return RunLogRead()
    except StateDirUnsafe as exc:
        return RunLogRead(problem=exc.message)
    except OSError as exc:
        return RunLogRead(problem=f"cannot read .agent/{EVENTS_FILE}: {exc.strerror or exc}")
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - max_bytes)
        data = _read_range(fd, start, size)
    except OSError as exc:
        return RunLogRead(problem=f"cannot read .agent/{EVENTS_FILE}: {exc.strerror or exc}")
    finally:
        os.close(fd)
    return parse_lines(data, cut=start > 0, unread_bytes=start)


def _read_range(fd: int, start: int, end: int) -> bytes:
    chunks: list[bytes] = []
    while start < end:
        chunk = os.pread(fd, end - start, start)
        if not chunk:
            break
        chunks.append(chunk)
        start += len(chunk)
    return b"".join(chunks)


def parse_lines(data: bytes, *, cut: bool = False, unread_bytes: int = 0) -> RunLogRead:
    """The events in ``data``, the bytes of a run log (see :class:`RunLogRead`).

    Args:
        data: The bytes read.
        cut: ``data`` starts inside the file: its first line is partial and dropped uncounted.
        unread_bytes: Reported back as :attr:`RunLogRead.unread_bytes`.
    """
    lines = data.split(b"\n")
    first = 1 if cut else 0
    last_unfinished = bool(lines[-1])
    if not last_unfinished:
        lines.pop()
    events: list[dict[str, Any]] = []
    reasons: list[str] = []
    ignored = other = 0
    for number, raw in enumerate(lines[first:], start=1):
        obj, problem = _parse_line(raw)
        if problem is None:
            events.append(obj)
        elif problem.startswith(OTHER_KIND):
            other += 1
        elif raw.strip():
            ignored += 1
            if last_unfinished and number == len(lines) - first:
                problem = "unfinished last line"
            if len(reasons) < MAX_REASONS_KEPT:
                reasons.append(f"line {number}: {problem}")
    return RunLogRead(tuple(events), ignored, tuple(reasons), other, unread_bytes)


def _parse_line(raw: bytes) -> tuple[Any, str | None]:
    if len(raw) > MAX_LINE_BYTES:
        return None, f"longer than {MAX_LINE_BYTES} bytes"
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except (ValueError, RecursionError):
        return None, "not JSON"
    return obj, event_problem(obj)
