"""The session's delivery gates (GATE-3…12): the gate service, built on first use, and what the session asks of it.

:class:`SessionGates` is what the gate tools drive (it is the session's
:class:`~ljtui.core.tools.GateControls`) and what the front ends call through
the engine: the gate in focus, its view, a check from the Gates pane, the
delivery of a passed run, the independent verifier, and where an open run
stages its writes (:meth:`staging_root`, read by the tools' root).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

from ljtui.core.session_state import SessionSettings
from ljtui.core.events import Notice
from ljtui.core.ports import Clock, EventSink

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Ask
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.gates.model import PlaybookPrior
    from ljtui.core.gates.release import Delivery
    from ljtui.core.gates.service import GateService
    from ljtui.core.gates.view import GateView
    from ljtui.core.gitguard.guard import GitSettingsGuard
    from ljtui.core.playbooks.service import PlaybookService
    from ljtui.core.review.service import ReviewService
    from ljtui.core.runlog import RunLog

Verify = Callable[[int, str], Awaitable[tuple[str, str]]]
"""Runs an independent verifier on a gate in a turn; returns its agent id and its last words."""


class SessionGates:
    """The gates of the repository at ``root`` for one session.

    Given the session's sink, ``ask`` (the Approver port), the clock, the sandbox
    the checks run in, the settings in force (a check's time limit), the run
    log, the playbooks (a passed run offers a draft; the playbook the plan
    follows weighs the gate), the review (a delivery applies through it),
    ``verify``, which starts a verifier agent, and the guard of git's settings
    every check runs inside.
    """

    def __init__(self, root: Path, sink: EventSink, ask: Ask, clock: Clock, *, sandbox: CommandSandbox,
                 settings: SessionSettings, run_log: RunLog | None, playbooks: PlaybookService,
                 review: Callable[[], ReviewService], verify: Verify,
                 git_guard: GitSettingsGuard | None = None,
                 open_layer: Callable[[], Awaitable[bool]] | None = None) -> None:
        self._root = root
        self._sink = sink
        self._ask = ask
        self._clock = clock
        self._sandbox = sandbox
        self._settings = settings
        self._run_log = run_log
        self._playbooks = playbooks
        self._review = review
        self._verify = verify
        self._git_guard = git_guard
        self._open_layer = open_layer
        """Opens the layer's change for review, past the gate (a delivery of a run held in the layer)."""
        self._service: GateService | None = None

    @property
    def gates(self) -> GateService:
        """The repository's gates and the run in progress (built on first use)."""
        if self._service is None:
            from ljtui.core.gates.service import GateService

            service = GateService(self._root, self._sink, self._ask, self._clock, self._sandbox,
                                  check_timeout=lambda: self._settings.config.agent.bash_timeout,
                                  log=self._run_log.emit if self._run_log is not None else None,
                                  git_guard=self._git_guard)
            service.offer_playbook = self._offer_playbook
            service.family_playbook = self._family_prior
            service.open_layer = self._open_layer
            self._service = service
        return self._service

    @property
    def built(self) -> GateService | None:
        """The gate service, if anything used it yet."""
        return self._service

    async def _offer_playbook(self, title: str, sop: list[str], verification: list[str]) -> object:
        from ljtui.core.playbooks.service import offer_draft

        return await offer_draft(self._playbooks, title, sop, verification)

    def _family_prior(self) -> PlaybookPrior | None:
        """The record of the playbook whose SOP the running task plan follows (disk work: from a thread)."""
        from ljtui.core.gates.model import PlaybookPrior

        playbook_id = self._playbooks.following
        record = self._playbooks.record_of(playbook_id) if playbook_id else None
        return PlaybookPrior(playbook_id, record.ok, record.fail) if record is not None and playbook_id else None

    def staging_root(self) -> Path | None:
        """The open run's staging tree, where tools write now; ``None`` when no run is open."""
        service = self._service
        return service.staging_root() if service is not None and service.run is not None else None

    def layer_blocker(self) -> str | None:
        """Why the layer's change may not reach the user's files now: an open gate run held in the layer that has
        not passed, also one an earlier ljtui left open (``None``: nothing holds it back). Disk work: from a
        thread."""
        from ljtui.core.gates.layer_run import open_layer_run

        service = self.gates
        if service.run is None and open_layer_run(self._root, service.env) is not None:
            service.restore()
        return service.layer_blocker()

    def restore(self) -> None:
        """Reopen a run the last session left open (disk work: call from a thread)."""
        self.gates.restore()

    def publish(self) -> None:
        """Show the gate in focus as it now reads (disk work), when the service is in use."""
        if self._service is not None:
            self._service.publish()

    async def tail(self) -> str:
        """The gate status for the system prompt's tail (after the cached prefix), ``""`` without a gate."""
        service = self._service
        if service is None or service.current is None:
            return ""
        return await asyncio.to_thread(service.prompt_section)

    async def view(self, gate_id: str | None = None) -> GateView | None:
        """The gate ``gate_id`` (default: the one in focus) as the Gates pane shows it."""
        return await asyncio.to_thread(self.gates.view, gate_id)

    async def deliver_gate(self, gate_id: str | None = None) -> Delivery:
        """Try to deliver the open run's staged change (refused until the gate passes)."""
        from ljtui.core.gates.release import deliver

        return await deliver(self.gates, self._review(), gate_id)

    async def verify_gate(self, turn: int, gate_id: str) -> tuple[str, str]:
        """Run an independent verifier on ``gate_id`` in ``turn`` (``gate_verify``); returns its id and last words."""
        return await self._verify(turn, gate_id)

    async def check(self, item: str | None = None, *, failed_only: bool = False) -> None:
        """Run a check from the Gates pane or ``/gates check`` (the user's own, recorded as ``user``)."""
        from ljtui.core.gates.service import USER, GateRefused

        try:
            await self.gates.check(item, USER, failed_only=failed_only)
        except GateRefused as exc:
            self._sink.emit(Notice(str(exc), "error"))
