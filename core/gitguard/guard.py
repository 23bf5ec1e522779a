"""The guard: a snapshot before each process a model started, a comparison after, and the user's decision.

Every command, gate check and MCP server call runs inside
:meth:`GitSettingsGuard.watch`. When it ends (or fails, or is cancelled),
the watched places (:mod:`~ljtui.core.gitguard.places`) are read again; a
difference is shown to the user as an exact diff through the Approver port
(request kind :data:`KIND`): the safe answer, and the only one without
someone to ask, is to put everything back (:mod:`~ljtui.core.gitguard.revert`);
the user may keep it. Either way a notice says what happened and the
caller tells the model.

Several processes may run at once (parallel tasks): each watch has its own
snapshot, decisions are taken one at a time, and a decision is carried into
the snapshots of the watches still running, so a change is asked about once
and a revert is never reported back as a change.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.asking import Ask
from ljtui.core.events import Event, Notice
from ljtui.core.gitguard import changes as C
from ljtui.core.gitguard.places import Places
from ljtui.core.gitguard.revert import revert
from ljtui.core.gitguard.snapshot import Snapshot, take

KIND = "git_settings"
"""The request kind of the question (``--yes`` never answers it with "keep")."""
REVERT, KEEP = "revert", "keep"
EXPLAIN = ("These settings name programs that git runs by itself, outside ljtui's sandbox, the next time you "
           "use git in this repository (a status, a commit).")


@dataclass(frozen=True)
class GuardReport:
    """What the guard found after one process.

    Attributes:
        changes: the watched paths that changed.
        kept: the user kept them (else they were put back).
        problems: paths that could not be put back, each with why.
    """

    changes: tuple[C.Change, ...]
    kept: bool
    problems: tuple[str, ...] = ()

    def for_model(self) -> str:
        """What the model reads in the tool's result."""
        what = C.summary(list(self.changes))
        if self.kept:
            return f"git settings that run programs changed while this ran ({what}); the user kept them."
        left = f" Not put back: {'; '.join(self.problems)}." if self.problems else ""
        return (f"git settings that run programs changed while this ran ({what}); they were reverted: a hook, "
                "fsmonitor, filter or other program in git's settings would run outside the sandbox. Do not "
                f"change git's hooks or config; ask the user to do it.{left}")


@dataclass(eq=False)
class Watch:
    """One running process's snapshot, and what the guard found at its last check (``report``: ``None`` if
    nothing changed)."""

    what: str
    before: Snapshot
    report: GuardReport | None = None


def described(command: str, limit: int = 60) -> str:
    """``the command `make test` `` for messages: its first line, cut at ``limit`` characters."""
    lines = command.strip().splitlines() or [""]
    cut = len(lines[0]) > limit or len(lines) > 1
    return f"the command `{lines[0][:limit]}{'…' if cut else ''}`"


@asynccontextmanager
async def watched(guard: GitSettingsGuard | None, what: str) -> AsyncIterator[Watch]:
    """:meth:`GitSettingsGuard.watch` of ``guard``, or no watch at all when the session has none."""
    if guard is None:
        yield Watch(what, Snapshot())
        return
    async with guard.watch(what) as watch:
        yield watch


class GitSettingsGuard:
    """Watches git's executable settings in the repository at ``root`` around the processes of a session.

    Args:
        root: the repository.
        ask: the Approver port (a human decides, or the safe answer is taken).
        emit: where notices go.
    """

    def __init__(self, root: Path, ask: Ask, emit: Callable[[Event], None]) -> None:
        self.places = Places(root)
        self.root = self.places.root
        self._ask = ask
        self._emit = emit
        self._lock = asyncio.Lock()
        self._active: list[Watch] = []
        self._crowded_said: set[str] = set()

    def snapshot(self) -> Snapshot:
        """The watched places now (disk and process work: call from a thread)."""
        return take(self.root, self.places.find())

    @asynccontextmanager
    async def watch(self, what: str) -> AsyncIterator[Watch]:
        """Snapshot now, run the body, then compare, ask and revert; ``what`` names the process in messages
        (``the command `make` ``)."""
        current = await self.begin(what)
        try:
            yield current
        finally:
            await self.end(current)

    async def begin(self, what: str) -> Watch:
        """A watch of a process that lives on (an MCP server): :meth:`check` it after each of its calls and
        :meth:`end` it when it stops."""
        current = Watch(what, await asyncio.to_thread(self.snapshot))
        self._say_crowded(current.before)
        self._active.append(current)
        return current

    async def check(self, current: Watch) -> GuardReport | None:
        """Compare, ask and revert now; the watch goes on from the state the decision left."""
        current.report = await self._settle(current)
        return current.report

    async def end(self, current: Watch, *, asking: bool = True) -> GuardReport | None:
        """The last :meth:`check` of ``current``, which then ends; with ``asking`` off (the session is closing,
        nobody may be there to answer) a change is put back without a question."""
        if current in self._active:
            self._active.remove(current)
        current.report = await self._settle(current, asking=asking)
        return current.report

    async def _settle(self, current: Watch, *, asking: bool = True) -> GuardReport | None:
        async with self._lock:
            now = await asyncio.to_thread(self.snapshot)
            found = C.compare(current.before, now)
            if not found:
                return None
            keep, cancelled = False, None
            try:
                if asking:
                    keep = (await self._ask(self._request(current.what, found))).choice == KEEP
            except asyncio.CancelledError as exc:  # nobody answered: the safe answer, then the cancel goes on
                cancelled = exc
            problems = () if keep else tuple(await asyncio.to_thread(revert, self.root, found))
            self._carry(found, keep)
            report = GuardReport(tuple(found), keep, problems)
            self._emit(Notice(self._notice(current.what, report), "info" if keep else "warning"))
            if cancelled is not None:
                raise cancelled
            return report

    def _request(self, what: str, found: list[C.Change]) -> ApprovalRequest:
        body = [EXPLAIN, f"They changed while {what} ran:", "", *C.lines(self.root, found)]
        return ApprovalRequest(KIND, "A process changed git settings that run programs: put them back?", body,
                               (Choice(REVERT, "put them back", "escape"), Choice(KEEP, "keep them", "k")),
                               REVERT, C.summary(found))

    def _carry(self, found: list[C.Change], keep: bool) -> None:
        """Make the decision part of every running watch's snapshot (the one that asked, when it goes on,
        included): kept states are the new normal, reverted paths are as they were."""
        for other in self._active:
            entries = dict(other.before.entries)
            for change in found:
                state = change.after if keep else change.before
                if state is None:
                    entries.pop(change.path, None)
                else:
                    entries[change.path] = state
            other.before = Snapshot(entries, other.before.crowded)

    def _notice(self, what: str, report: GuardReport) -> str:
        listed = C.summary(list(report.changes))
        if report.kept:
            return f"Kept the git settings changed while {what} ran: {listed}."
        failed = f" Could not put back: {'; '.join(report.problems)}." if report.problems else ""
        return (f"Put back the git settings changed while {what} ran ({listed}): they would run programs "
                f"outside the sandbox the next time you use git.{failed}")

    def _say_crowded(self, snapshot: Snapshot) -> None:
        for folder in snapshot.crowded:
            if folder not in self._crowded_said:
                self._crowded_said.add(folder)
                self._emit(Notice(f"{folder} holds too many files to watch whole; changes past the first "
                                  "entries are not checked", "warning"))
