"""The gate service: propose, confirm, start, check, finish, deliver, rework, discard (GATE-1…12).

The engine holds one :class:`GateService`. The model reaches it through the
gate tools, the user through ``/gates`` and the Gates pane, the CLI through
``ljtui gates``; every path ends here. What only the user may decide —
confirming a gate, starting it, exempting it, delivering past the breaker or
a failed guard — is an :class:`~ljtui.core.approval.ApprovalRequest` asked
through the Approver port: the model's word never counts.

While a confirmed gate of level 2 or more is started, the engine points
every agent's tools at the run's staging tree (:meth:`staging_root`), so
writes and commands land there; delivery of the staged change to the
user's tree (:mod:`ljtui.core.gates.release`) is refused until the gate
passes. A run below that level stages nothing: it is over once it ends.

A gate's level is the one the user confirmed it at
(:meth:`confirmed_level`), for as long as its items and factors are the
ones confirmed; its record only moves the level the risk formula proposes,
which confirming the gate again adopts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping

from ljtui.core.asking import Ask
from ljtui.core.events import GateChanged, Notice
from ljtui.core.gates import events as G
from ljtui.core.gates import endings
from ljtui.core.gates.endings import GateRefused
from ljtui.core.gates.refusals import NoSuchGate
from ljtui.core.gates.model import (
    MAX_BOUNCES, CheckItem, Evidence, Factors, Gate, Level, PlaybookPrior, gate_risk,
)
from ljtui.core.gates.records import GateInvalid
from ljtui.core.gates.runs import GateRun, RunOwners, list_runs, save_run
from ljtui.core.gates.status import blockers, gate_view, prompt_section
from ljtui.core.gates.view import GateView
from ljtui.core.statedir import StateDirUnsafe

if TYPE_CHECKING:
    from ljtui.core.clock import Clock
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.gitguard.guard import GitSettingsGuard
    from ljtui.core.layer.service import Layer
    from ljtui.core.ports import EventSink


USER = "user"
"""The agent name of checks the user runs from the Gates pane or the CLI."""


class GateService:
    """The gates of one repository and the run in progress."""

    def __init__(self, root: Path, sink: EventSink, ask: Ask, clock: Clock, sandbox: CommandSandbox, *,
                 env: Mapping[str, str] | None = None, check_timeout: Callable[[], float] = lambda: 600.0,
                 log: Callable[[object], object] | None = None, git_guard: GitSettingsGuard | None = None) -> None:
        from ljtui.core.gates.confirmations import ConfirmationStore
        from ljtui.core.gates.store import GateStore

        self.root = root
        self.sink = G.RunLogSink(sink, log)
        """Where events go: the engine's sink, and the gate events also to the run log."""
        self.ask = ask
        self.clock = clock
        self.sandbox = sandbox
        """Where check commands run: the session's sandbox, writes confined to where the check works."""
        self.env = env
        self.check_timeout = check_timeout
        self.git_guard = git_guard
        """Watches git's executable settings around every check that runs in the repository."""
        self.store = GateStore(root)
        self.confirmations = ConfirmationStore.for_env(env)
        self.current: str | None = None
        """The gate in focus (the latest proposed, started or shown)."""
        self.run: GateRun | None = None
        """The run in progress, if any."""
        self.ended: GateRun | None = None
        """The latest run that is over: how its gate ended, until the gate is proposed, confirmed or started."""
        self._workspace = None
        self.lock = threading.RLock()
        self.family_playbook: Callable[[], PlaybookPrior | None] | None = None
        """The record of the playbook the running task plan follows, if any (set by the engine): a gate proposed
        meanwhile counts it in P."""
        self.offer_playbook: Callable[[str, list[str], list[str]], Awaitable[object]] | None = None
        """Offers to keep a passed run's procedure as a draft playbook (set by the engine)."""
        self.open_layer: Callable[[], Awaitable[bool]] | None = None
        """Opens the layer's change for review, past the gate: the delivery of a run held in the layer (set by the
        engine)."""
        self._unstarted: dict[str, list[Evidence]] = {}
        """Checks run in the repository while no run of their gate was open (shown, never delivery evidence)."""

    # -- reading -------------------------------------------------------------------------------------------

    def restore(self) -> None:
        """Pick up the newest undelivered run left by an earlier process (disk work)."""
        runs, problems = list_runs(self.root, self.env)
        for problem in problems:
            self.sink.emit(Notice(f"A gate run was ignored: {problem}", "warning"))
        for run in runs:
            if endings.over_once_ended(run) and run.outcome and not run.delivered:
                try:  # an earlier ljtui left it open: it is over all the same
                    endings.close(self, run)
                except (OSError, StateDirUnsafe) as exc:
                    self.sink.emit(Notice(f"Gate run {run.run_id} is over, but its file could not say so: {exc}",
                                          "warning"))
        open_run = next((r for r in runs if not r.delivered), None)
        self.ended = next((r for r in runs if r.delivered), None)
        if open_run is not None:
            with self.lock:
                self.run, self.current = open_run, open_run.gate_id
                self._workspace = None
            self.publish()

    def listing(self) -> tuple[list[dict[str, object]], list[str]]:
        """Every gate as ``{id, title, level, suggested, R, P, confirmed_by_user, runs, passed, failed, reworks}``,
        and the error of each malformed file (disk work).

        ``suggested`` and ``R`` are what the gate's factors and its record give now (a file's own level is never
        believed); ``P`` is the pass rate they rest on; ``confirmed_by_user`` is whether the user's confirmation
        covers the gate's items and factors as they are now; ``level`` is the level it was confirmed at, else the
        suggested one.
        """
        rows, problems = [], []
        for found in self.store.list():
            if isinstance(found, Exception):
                problems.append(str(found))
                continue
            r = gate_risk(found)
            stats = found.stats
            confirmed = self.confirmed_level(found)
            rows.append({"id": found.id, "title": found.title, "level": r.level if confirmed is None else confirmed,
                         "suggested": r.level, "R": round(r.r, 4), "P": round(r.p, 4),
                         "confirmed_by_user": confirmed is not None, "runs": stats.runs,
                         "passed": stats.passed, "failed": stats.failed, "reworks": stats.reworks})
        return rows, problems

    def gate(self, gate_id: str) -> Gate:
        """The stored gate ``gate_id``.

        Raises:
            NoSuchGate: it does not exist (the message names the gates there are).
            GateRefused: its file is malformed (the message names file and field).
        """
        from ljtui.core.gates.records import GateFileError, GateNotFound

        try:
            return self.store.load(gate_id)
        except GateNotFound:
            raise NoSuchGate(gate_id, self._known_ids()) from None
        except GateFileError as exc:
            raise GateRefused(str(exc)) from None

    def _known_ids(self) -> tuple[str, ...] | None:
        """The ids of the gate files, or ``None`` when the folder cannot be listed."""
        from ljtui.core.gates.records import GateFileError

        try:
            return tuple(self.store.ids())
        except GateFileError:
            return None

    def confirmed_level(self, gate: Gate) -> Level | None:
        """The level the user confirmed ``gate`` at, while its items and factors are the ones confirmed (``None``:
        not confirmed as it is now; a file's ``confirmed_by_user`` is not believed)."""
        return self.confirmations.confirmed_level(self.root, gate)

    def confirmed(self, gate: Gate) -> bool:
        """The user's own record matches the gate's items and factors as they are now."""
        return self.confirmed_level(gate) is not None

    def layer(self) -> Layer | None:
        """The session's layer when commands here run in it (probes it once: call from a thread); a run that
        stages then holds its writes there (:mod:`~ljtui.core.gates.layer_run`)."""
        layer = self.sandbox.layer
        return layer if layer is not None and self.sandbox.layered_at(self.root) else None

    def workspace(self):
        """The staging workspace of the run in progress, or ``None`` when its writes are not staged in a tree of
        their own (none, or held in the layer)."""
        from ljtui.core.gates.workspace import Workspace

        with self.lock:
            run = self.run
            if run is None or not run.staged or run.delivered or run.in_layer:
                return None
            if self._workspace is None:
                self._workspace = Workspace.open(self.root, run.run_id)
            return self._workspace

    def staging_root(self) -> Path | None:
        """Where agents' tools work now: the staging tree while a gated run is open, else ``None``."""
        try:
            found = self.workspace()
        except Exception as exc:  # GATE-9: a broken workspace is never a silent pass to the user's tree
            self._guard_failed(f"the staging tree cannot be opened: {exc}")
            raise GateRefused(f"the gate's staging tree cannot be opened ({exc}); the user was warned") from None
        return found.tree if found is not None else None

    def content_hash(self) -> str:
        """The staged content's hash now: the staging tree's, or the layer's for a run held there (``""`` when
        nothing is staged: checks then run in the repository)."""
        run = self.run
        if run is not None and run.in_layer and not run.delivered and self.sandbox.layer is not None:
            from ljtui.core.gates import layer_run

            return layer_run.content_hash(self.sandbox.layer)
        found = self.workspace()
        return found.content_hash() if found is not None else ""

    def view(self, gate_id: str | None = None, *, with_staged_files: bool = True) -> GateView | None:
        """The gate ``gate_id`` (default: the one in focus) as the user sees it; ``with_staged_files=False``
        skips listing the staged files (comparing both trees), which the system prompt does not show."""
        gate_id = gate_id or self.current
        if gate_id is None:
            return None
        gate = self.gate(gate_id)
        run = self.run if self.run is not None and self.run.gate_id == gate_id else None
        staged: tuple[str, ...] = ()
        content = ""
        error = ""
        try:
            content = self.content_hash() if run is not None else ""
            if run is not None and run.staged and with_staged_files:
                staged = self._staged_files(run)
        except Exception as exc:  # GATE-9
            error = f"{type(exc).__name__}: {exc}"
        view = gate_view(gate, confirmed_level=self.confirmed_level(gate), run=run, content_hash=content,
                         staged_files=staged, breaker_at=MAX_BOUNCES, unstarted=self._unstarted.get(gate_id),
                         ended=self.ended)
        in_layer = run.in_layer if run is not None else self.layer() is not None
        if (error and not view.error) or in_layer:
            view = dataclasses.replace(view, error=view.error or error, in_layer=in_layer)
        return view

    def _staged_files(self, run: GateRun) -> tuple[str, ...]:
        if run.in_layer:
            from ljtui.core.gates import layer_run

            return layer_run.held_paths(self.sandbox.layer) if self.sandbox.layer is not None else ()
        workspace = self.workspace()
        return tuple(c.path for c in workspace.changes()) if workspace is not None else ()

    def layer_blocker(self) -> str | None:
        """Why the layer's change may not reach the user's files now: a run held in the layer that has not passed
        (``None``: nothing holds it back). Call from a thread."""
        from ljtui.core.gates.layer_run import layer_blocker

        return layer_blocker(self)

    def publish(self) -> None:
        """Tell the UI where the gate in focus stands (disk work: the view hashes the run's work; from a thread)."""
        try:
            self.sink.emit(GateChanged(self.view()))
        except GateRefused as exc:
            self.sink.emit(Notice(str(exc), "error"))
            self.sink.emit(GateChanged(None))

    def prompt_section(self) -> str:
        """The gate status for the system prompt's tail (empty without a gate in focus)."""
        try:
            return prompt_section(self.view(with_staged_files=False))
        except GateRefused as exc:
            return f"## Delivery gate\nThe gate in focus cannot be read: {exc}"

    # -- the model's side ----------------------------------------------------------------------------------

    def propose(self, title: str, items: list[CheckItem], factors: Factors, gate_id: str | None = None) -> Gate:
        """Write a new gate, or change ``gate_id``'s items and factors (which needs confirming again).

        The engine computes R and the level; the file always says ``confirmed_by_user: false``.
        """
        with self.lock:
            if self.run is not None and not self.run.delivered and self.run.gate_id == gate_id:
                raise GateRefused(f"gate {gate_id} has a run in progress; finish it before changing its items")
            try:
                if gate_id:
                    self.gate(gate_id)
                    gate = self.store.update_definition(gate_id, title, items, factors, self.clock.now())
                else:
                    family = self.family_playbook() if self.family_playbook is not None else None
                    gate = self.store.propose(title, items, factors, self.clock.now(), playbook=family)
            except GateInvalid as exc:
                raise GateRefused(f"the gate was not written: {exc}") from None
            self.current = gate.id
            self._forget_ending(gate.id)
        self._record_author(gate)
        found = gate_risk(gate)
        self.sink.emit(G.GateProposed(gate.id, found.level, round(found.r, 4), tuple(i.id for i in gate.items)))
        self.publish()
        return gate

    def _record_author(self, gate: Gate) -> None:
        from ljtui.core.gates.authors import record_author

        record_author(self.env, self.root, gate, self.clock.now(), self.sink)

    async def confirm(self, gate_id: str) -> bool:
        """Ask the user to confirm the gate's items, commands and the level its risk gives now; record a yes in the
        user's state (that level is then the gate's; :mod:`~ljtui.core.gates.starts`)."""
        from ljtui.core.gates.starts import confirm

        return await confirm(self, gate_id)

    async def start(self, gate_id: str, agent: str) -> GateRun:
        """Ask the user to start a run at the level the user confirmed; at L2 and above its writes are held back (in
        the layer, else in a staging tree; :mod:`~ljtui.core.gates.starts`)."""
        from ljtui.core.gates.starts import start

        return await start(self, gate_id, agent)

    def _open_run(self, run: GateRun) -> None:
        RunOwners.for_env(self.env).record(self.root, run.run_id)
        run.in_layer = run.staged and self.layer() is not None
        if run.staged and not run.in_layer:
            from ljtui.core.gates.workspace import Workspace

            workspace = Workspace.create(self.root, run.run_id)
        else:
            workspace = None
        save_run(self.root, run)
        with self.lock:
            self.run, self._workspace, self.current = run, workspace, run.gate_id
            self._forget_ending(run.gate_id)

    async def check(self, item_id: str | None, agent: str, *, verifier: str = "", failed_only: bool = False,
                    cancelled: asyncio.Event | None = None) -> list[Evidence]:
        """Run the command of ``item_id`` (all items when ``None``; only failed or stale ones with
        ``failed_only``) where the work is, and record what the engine saw (GATE-5, GATE-11;
        :mod:`~ljtui.core.gates.check_runs`)."""
        from ljtui.core.gates.check_runs import check

        return await check(self, item_id, agent, verifier=verifier, failed_only=failed_only, cancelled=cancelled)

    def sandbox_line(self) -> str:
        """What the sandbox lets checks do, for the confirm dialog (finds the sandbox: call from a thread)."""
        if self.layer() is not None:
            rules = self.sandbox.rules(self.root, layered=True)
            return ("in the layer (bubblewrap): what they change lands in the layer, never in your files; "
                    f"network: {rules.network_word()}.")
        status = self.sandbox.status
        if not status.confined:
            return f"Unsandboxed: {status.why}. The checks will run with your full rights."
        rules = self.sandbox.rules(self.root)
        extra = "".join(f", {p.label}" for p in rules.places[2:])
        return (f"in the sandbox ({status.backend}): they may write only where they run, a private temp dir{extra}; "
                f"network: {rules.network_word()}.")

    def _refuse_untrusted(self, gate: Gate) -> None:
        """A gate that is not the user's own (:mod:`~ljtui.core.gates.authors`) runs its commands only in a
        trusted repository."""
        from ljtui.core.gates.authors import users_own
        from ljtui.core.trust import TrustStore

        if not users_own(self.root, gate, self.env) and not TrustStore.for_env(self.env).is_trusted(self.root):
            raise GateRefused(f"gate {gate.id} was not written by ljtui for you: it was committed to this repository, "
                              "which is not trusted, or came with it (git cannot say it is untracked): its commands "
                              "do not run (`ljtui trust` first)")

    def blockers_now(self):
        """What blocks the run in progress now (raises when the guard itself fails)."""
        run = self.run
        if run is None:
            raise GateRefused("no gate run is in progress")
        return blockers(self.gate(run.gate_id), run, self.content_hash())

    # -- the user's side -----------------------------------------------------------------------------------

    # --- endings (:mod:`ljtui.core.gates.endings`) -------------------------------------------

    async def finish(self, outcome: str, agent: str) -> str:
        """End the run: ``pass`` (only on complete, fresh evidence), ``fail``, or ``exempt`` (asked)."""
        return await endings.finish(self, outcome, agent)

    async def rework(self, gate_id: str) -> None:
        """Send the latest passed delivery of ``gate_id`` back (counts twice against P, GATE-12)."""
        await endings.rework(self, gate_id)

    def discard(self, gate_id: str | None = None, *, delivered: bool = False) -> str:
        """Throw away the staged work of the run of ``gate_id`` (default: the run in progress)."""
        return endings.discard(self, gate_id, delivered=delivered)

    def _guard_failed(self, error: str) -> None:
        endings.guard_failed(self, error)

    def forget(self, run: GateRun) -> None:
        """The run in progress is over: no run, no staging tree; how it ended stays in :attr:`ended`."""
        self.run, self._workspace, self.ended = None, None, run

    def _forget_ending(self, gate_id: str) -> None:
        """The gate is set up again: its last run's ending is no longer its state."""
        self.ended = None if self.ended is not None and self.ended.gate_id == gate_id else self.ended
