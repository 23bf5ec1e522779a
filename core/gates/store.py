"""The gate files of one repository: ``.agent/gates/<id>.md`` (GATE-1).

Gates are meant to be shared, so their files are committed with the
repository — which makes them untrusted input. Every file is reached
through :mod:`ljtui.core.statedir` (never through a symbolic link), read up
to :data:`MAX_GATE_FILE_BYTES`, and checked field by field
(:mod:`ljtui.core.gates.records`); a malformed file is a
:class:`GateFileError` naming the file and the field, and never hides the
other gates. The level a file states is recomputed from its factors and
stats, never believed, and its ``confirmed_by_user`` means nothing: the
user's confirmation lives in their own state dir
(:mod:`ljtui.core.gates.confirmations`).

Writes are atomic (a temporary file in the same folder, fsync, rename, a
fsync of the folder) and every read-modify-write holds an exclusive lock on
the gates folder itself, so two sessions never lose each other's records
and no lock file is left in a folder meant for git.
"""

from __future__ import annotations

import builtins
import fcntl
import os
import secrets
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Iterator

from ljtui.core.clock import Clock, SystemClock
from ljtui.core.edits.durable import NEW_FILE_BASE_MODE, fsync_dir
from ljtui.core.gates.markdown import ParsedGate, parse_gate, render_gate
from ljtui.core.gates.model import Factors, Gate, HistoryEntry, PlaybookPrior, Stats, gate_risk
from ljtui.core.gates.records import (
    GateFileError,
    GateInvalid,
    GateNotFound,
    check_entry,
    check_factors,
    check_gate_id,
    check_items,
    check_title,
)
from ljtui.core.ids import title_id, unique_id
from ljtui.core.statedir import AGENT_DIR, StateDirUnsafe, open_state_file, read_at_most, state_dir

GATES_DIR = "gates"
"""The folder below ``.agent`` that holds one file per gate."""
FILE_SUFFIX = ".md"
ID_PREFIX = "gate"
"""The prefix of an id built for a title with no ASCII letter or digit."""
MAX_GATE_FILE_BYTES = 256 * 1024
"""A gate file larger than this is refused; a write drops the oldest history to stay under it."""
MAX_HISTORY_RUNS = 50
"""Finished runs a file keeps (the stats keep counting the older ones)."""


class GateStore:
    """The gates of the repository at ``root``.

    Args:
        root: The repository root (chosen by the user).
        clock: Where ``updated`` times come from when a call gives none.
    """

    def __init__(self, root: Path, clock: Clock | None = None) -> None:
        self.root = root
        self.clock = clock or SystemClock()

    @property
    def folder(self) -> Path:
        """Where the gate files live (it may not exist yet)."""
        return self.root / AGENT_DIR / GATES_DIR

    def path(self, gate_id: str) -> Path:
        """The file of the gate ``gate_id``."""
        return self.folder / f"{gate_id}{FILE_SUFFIX}"

    def ids(self) -> builtins.list[str]:
        """The id of every gate file, sorted; a file whose name is no valid id is listed by its stem.

        Raises:
            GateFileError: ``.agent`` or ``.agent/gates`` is a symbolic link or not a folder (field ``folder``).
        """
        try:
            folder = state_dir(self.root, GATES_DIR, create=False)
            names = os.listdir(folder) if folder.is_dir() else []
        except StateDirUnsafe as exc:
            raise _unsafe(self.folder, "folder", exc) from None
        except OSError as exc:
            raise GateFileError(self.folder, "folder", f"cannot be listed: {exc.strerror or exc}") from None
        return sorted(n[:-len(FILE_SUFFIX)] for n in names if n.endswith(FILE_SUFFIX) and not n.startswith("."))

    def read(self, gate_id: str) -> ParsedGate:
        """The gate ``gate_id`` and what reading it noticed (a recomputed level …).

        Raises:
            GateNotFound: There is no such file.
            GateFileError: The file is unsafe, unreadable or malformed (the error names the field).
        """
        path = self.path(gate_id)
        try:
            check_gate_id(gate_id)
        except GateInvalid as exc:
            raise GateFileError(path, exc.field, f"{exc.problem}; rename the file") from None
        data = self._read_bytes(gate_id, path)
        if len(data) > MAX_GATE_FILE_BYTES:
            raise GateFileError(path, "file", f"is over {MAX_GATE_FILE_BYTES:,} bytes; a gate file is "
                                              f"refused beyond that size")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GateFileError(path, "file", f"is not UTF-8 text (byte {exc.start})") from None
        try:
            return parse_gate(text, gate_id)
        except GateInvalid as exc:
            raise GateFileError(path, exc.field, exc.problem) from None
        except RecursionError:
            raise GateFileError(path, "front matter", "nests too deeply") from None

    def _read_bytes(self, gate_id: str, path: Path) -> bytes:
        try:
            fd = open_state_file(self.root, GATES_DIR, f"{gate_id}{FILE_SUFFIX}", flags=os.O_RDONLY)
        except FileNotFoundError:
            raise GateNotFound(path, "file", "does not exist") from None
        except StateDirUnsafe as exc:
            field = "file" if exc.path.endswith(FILE_SUFFIX) else "folder"
            raise _unsafe(path, field, exc) from None
        except OSError as exc:
            raise GateFileError(path, "file", f"cannot be opened: {exc.strerror or exc}") from None
        try:
            return read_at_most(fd, MAX_GATE_FILE_BYTES + 1)
        except OSError as exc:
            raise GateFileError(path, "file", f"cannot be read: {exc.strerror or exc}") from None
        finally:
            os.close(fd)

    def load(self, gate_id: str) -> Gate:
        """The gate ``gate_id`` (see :meth:`read` for what it raises)."""
        return self.read(gate_id).gate

    def scan(self) -> builtins.list[ParsedGate | GateFileError]:
        """Every gate file read, in id order: the gate with its warnings, or the error it gave."""
        try:
            ids = self.ids()
        except GateFileError as exc:
            return [exc]
        out: builtins.list[ParsedGate | GateFileError] = []
        for gate_id in ids:
            try:
                out.append(self.read(gate_id))
            except GateFileError as exc:
                out.append(exc)
        return out

    def list(self) -> builtins.list[Gate | GateFileError]:
        """Every gate, in id order; a malformed file is its error, in its place, and hides nothing."""
        return [entry.gate if isinstance(entry, ParsedGate) else entry for entry in self.scan()]

    def save(self, gate: Gate) -> Gate:
        """Check ``gate`` and write its file atomically; returns the gate as the file now reads.

        The level written is the formula's, the history keeps the last
        :data:`MAX_HISTORY_RUNS` runs (fewer when the file would pass its size limit).

        Raises:
            GateInvalid: A field of ``gate`` is not acceptable (nothing is written).
            GateFileError: The folder is unsafe or the file cannot be written.
        """
        with self._locked():
            return self._save_locked(gate)

    def propose(self, title: str, items: Iterable[object], factors: Factors | object, now: float, *,
                playbook: PlaybookPrior | None = None) -> Gate:
        """Write a new gate for ``title``; its id is built from the title and unique in the repository.

        ``items`` are :class:`~ljtui.core.gates.model.CheckItem` values or
        ``{id, description, command, required}`` mappings, ``factors`` a
        :class:`~ljtui.core.gates.model.Factors` or its mapping: both are
        checked like any untrusted input. The level comes from the risk
        formula; ``confirmed_by_user`` is always written false. ``playbook``:
        the record of the playbook the task family follows, counted in P.

        Raises:
            GateInvalid: A field is not acceptable (the error names it).
            GateFileError: The folder is unsafe or the file cannot be written.
        """
        title, checked, factors = check_title(title), check_items(items), check_factors(factors)
        with self._locked():
            gate_id = unique_id(title_id(title, ID_PREFIX), set(self.ids()))
            check_gate_id(gate_id)
            gate = Gate(gate_id, title, checked, factors, 0, False, Stats(), (), now, now, playbook=playbook)
            return self._save_locked(gate)

    def update_definition(self, gate_id: str, title: str, items: Iterable[object], factors: Factors | object,
                          now: float | None = None) -> Gate:
        """Replace a gate's title, items and factors; its stats, history and notes stay.

        The level is recomputed and ``confirmed_by_user`` written false: a
        changed definition is confirmed again.

        Raises:
            GateInvalid: A new field is not acceptable.
            GateNotFound, GateFileError: The gate cannot be read or written.
        """
        title, checked, factors = check_title(title), check_items(items), check_factors(factors)
        with self._locked():
            gate = self.load(gate_id)
            return self._save_locked(replace(gate, title=title, items=checked, factors=factors,
                                             confirmed_by_user=False, updated=self._now(now)))

    def record_outcome(self, gate_id: str, entry: HistoryEntry, now: float | None = None) -> Gate:
        """Add a finished run to a gate's history and count it (GATE-8, GATE-12).

        ``pass`` and ``fail`` count a run; ``exempt`` (the user said no gate
        this time) is kept in the history only; ``rework`` sends back the
        latest passed run (its id replaces ``entry.run_id`` when the history
        still holds it) and counts against P twice, through the formula.

        Raises:
            GateInvalid: ``entry`` is malformed, or a rework has no passed run to send back.
            GateNotFound, GateFileError: The gate cannot be read or written.
        """
        entry = check_entry(entry)
        with self._locked():
            gate = self.load(gate_id)
            if entry.outcome == "rework":
                entry = _rework_of(gate, entry)
            stats = _counted(gate.stats, entry.outcome)
            history = (*gate.history, entry)[-MAX_HISTORY_RUNS:]
            return self._save_locked(replace(gate, stats=stats, history=history, updated=self._now(now)))

    def remove(self, gate_id: str) -> bool:
        """Delete the gate's file; False when there was none.

        Raises:
            GateFileError: The folder is unsafe or the file cannot be removed.
        """
        path = self.path(gate_id)
        try:
            check_gate_id(gate_id)
        except GateInvalid as exc:
            raise GateFileError(path, exc.field, exc.problem) from None
        with self._locked() as folder:
            try:
                os.unlink(folder / path.name)
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise GateFileError(path, "file", f"cannot be removed: {exc.strerror or exc}") from None
            fsync_dir(folder)
        return True

    def _now(self, now: float | None) -> float:
        return self.clock.now() if now is None else now

    @contextmanager
    def _locked(self) -> Iterator[Path]:
        """Hold the exclusive lock of the gates folder (created when missing); yields the folder."""
        try:
            folder = state_dir(self.root, GATES_DIR, create=True)
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except StateDirUnsafe as exc:
            raise _unsafe(self.folder, "folder", exc) from None
        except OSError as exc:
            raise GateFileError(self.folder, "folder", f"cannot be opened: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield folder
        finally:
            os.close(fd)

    def _save_locked(self, gate: Gate) -> Gate:
        """Render, read back (a file ljtui cannot read is never written), trim history to fit, write."""
        check_gate_id(gate.id)
        gate = replace(gate, level=gate_risk(gate).level,
                       history=tuple(check_entry(e) for e in gate.history[-MAX_HISTORY_RUNS:]))
        text = render_gate(gate)
        while len(text.encode("utf-8")) > MAX_GATE_FILE_BYTES:
            if not gate.history:
                raise GateInvalid("file", f"would be over {MAX_GATE_FILE_BYTES:,} bytes")
            gate = replace(gate, history=gate.history[1:])
            text = render_gate(gate)
        written = parse_gate(text, gate.id).gate
        self._write(gate.id, text)
        return written

    def _write(self, gate_id: str, text: str) -> None:
        path = self.path(gate_id)
        temp = f".{gate_id}{FILE_SUFFIX}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            folder = state_dir(self.root, GATES_DIR, create=True)
            fd = open_state_file(self.root, GATES_DIR, temp, flags=os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                                 mode=NEW_FILE_BASE_MODE)
            try:
                view = memoryview(text.encode("utf-8"))
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(folder / temp, folder / path.name)
            fsync_dir(folder)
        except StateDirUnsafe as exc:
            raise _unsafe(path, "folder", exc) from None
        except OSError as exc:
            _unlink_quietly(self.folder / temp)
            raise GateFileError(path, "file", f"cannot be written: {exc.strerror or exc}") from None


def _counted(stats: Stats, outcome: str) -> Stats:
    if outcome == "pass":
        return replace(stats, runs=stats.runs + 1, passed=stats.passed + 1)
    if outcome == "fail":
        return replace(stats, runs=stats.runs + 1, failed=stats.failed + 1)
    if outcome == "rework":
        return replace(stats, reworks=stats.reworks + 1)
    return stats


def _rework_of(gate: Gate, entry: HistoryEntry) -> HistoryEntry:
    """``entry`` as the rework of the gate's latest passed run; refused when there is none left to send back."""
    if gate.stats.reworks >= gate.stats.passed:
        raise GateInvalid("history", "no passed delivery to send back: every passed run was already reworked")
    passes = [e for e in gate.history if e.outcome == "pass"]
    if not passes:
        return entry
    latest = passes[-1].run_id
    if any(e.outcome == "rework" and e.run_id == latest for e in gate.history):
        raise GateInvalid("history", f"the latest passed run {latest} was already sent back")
    return replace(entry, run_id=latest)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _unsafe(path: Path, field: str, exc: StateDirUnsafe) -> GateFileError:
    return GateFileError(path, field, f"{exc.path} {exc.problem}; ljtui reads and writes gates only in real "
                                      f"folders and files: remove or rename {exc.path}")
