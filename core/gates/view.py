"""What the Gates pane, ``ljtui gates show`` and the system prompt show of a gate (GATE-10).

Built by the gate service from the stored gate, its risk, the user's
confirmation and the active run's evidence; rendered by the TUI without
any further decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.gates.model import Factors, HistoryEntry, ItemStatus, Level, Risk, Stats, blocks_delivery, delivery_rule


@dataclass(frozen=True)
class ItemView:
    """One check item and its latest evidence in the active run.

    Attributes:
        status: ``pending`` (no evidence), ``passed``, ``failed``, ``stale`` (evidence taken on
            content that has changed since), ``independent`` (passed, checked by the verifier).
        exit_code, duration_ms, output, agent, verifier: the latest evidence (``None``/empty without one).
    """

    id: str
    description: str
    command: str
    required: bool
    status: ItemStatus
    exit_code: int | None = None
    duration_ms: int | None = None
    output: str = ""
    agent: str = ""
    verifier: str = ""


@dataclass(frozen=True)
class GateView:
    """A gate as the user sees it.

    Attributes:
        level: the level in force: the active run's, else the one the user confirmed, else the one the risk
            formula proposes (``risk.level``, which is also what confirming the gate again would make it).
        confirmed: the user's own record matches the gate's current items and factors (at ``level``).
        started: a run is active (writes are staged when it :attr:`blocks_delivery`).
        run_id: the active run, ``""`` when none.
        staged_files: paths changed in the staging tree, relative to the repository.
        blocked: why delivery is refused now (one line per missing, failed or stale item); empty when it may go,
            and always at a level that does not block delivery.
        bounces: refused deliveries of this run; the breaker opens at ``MAX_BOUNCES``.
        error: the guard's own failure, when it had one (GATE-9): delivery then needs the user's word.
        outcome: how the gate's latest run ended (``pass``, ``fail``, ``exempt``, ``rework``); ``""`` while it
            is open or when no run of it ended since the gate was last proposed or confirmed.
        delivered: that run's staged change reached the user's tree.
        unmet: what a pass still needs, at any level (one line per missing, failed or stale required item); at a
            level that blocks delivery the same lines are ``blocked``, below it they are a soft reminder.
        in_layer: a run of it holds its writes in the session's layer at the repository's own path (the open run's
            own setting, else where a run started now would hold them): no staging tree.
    """

    id: str
    title: str
    level: Level
    risk: Risk
    factors: Factors
    stats: Stats
    confirmed: bool
    started: bool
    run_id: str
    items: tuple[ItemView, ...]
    history: tuple[HistoryEntry, ...] = ()
    staged_files: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    bounces: int = 0
    breaker_open: bool = False
    error: str = ""
    outcome: str = ""
    delivered: bool = False
    unmet: tuple[str, ...] = ()
    in_layer: bool = False

    @property
    def blocks_delivery(self) -> bool:
        """A run at this gate's level stages writes and refuses delivery until the gate passes
        (:func:`~ljtui.core.gates.model.blocks_delivery`)."""
        return blocks_delivery(self.level)

    @property
    def delivery_rule(self) -> str:
        """What a run at this gate's level does with writes and delivery, in words
        (:func:`~ljtui.core.gates.model.delivery_rule`)."""
        return delivery_rule(self.level)
