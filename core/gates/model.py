"""A delivery gate as data (GATE-1, GATE-2): check items, risk factors, level, record, evidence.

Pure values and the risk formula; no disk. The store
(:mod:`ljtui.core.gates.store`) reads and writes them as Markdown, the
service decides with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Level = Literal[0, 1, 2, 3]
Outcome = Literal["pass", "fail", "exempt"]
ItemStatus = Literal["pending", "passed", "failed", "stale", "independent"]

L1_AT = 0.25
"""R at or above this is L1 (a self-check list, a soft reminder); below it L0, no gate."""
L2_AT = 0.5
"""R at or above this is L2: objective evidence before delivery."""
L3_AT = 0.75
"""R at or above this is L3: L2 and an independent verifier."""
VERIFIABLE_DISCOUNT = 0.7
"""D is multiplied by this when the result can be checked objectively."""
IRREVERSIBLE_PENALTY = 0.3
"""Added to D when the change cannot be undone."""
PRIOR_PASS_RATE = 0.5
"""P before a gate has run."""
REWORK_WEIGHT = 2
"""A rework counts this many times against P (GATE-12)."""
MAX_BOUNCES = 2
"""Refused deliveries of the same gate run before the breaker opens (GATE-8)."""
ROUND_DIGITS = 9
"""D and R are rounded to this many decimals, so factors that make R 0.75 on paper are L3 in floating point."""
GATED_LEVEL = 2
"""From this level on, a started gate stages writes and blocks delivery (GATE-4)."""
VERIFIER_LEVEL = 3
"""From this level on, a required item needs a check by an independent verifier (GATE-6)."""


@dataclass(frozen=True)
class Factors:
    """What the model estimates about a change; the engine turns them into D.

    The three scores are in 0–1; the two flags are booleans.
    """

    change_surface: float
    chain_length: float
    cognitive_density: float
    objectively_verifiable: bool
    irreversible: bool


@dataclass(frozen=True)
class CheckItem:
    """One thing that must be shown before delivery.

    Attributes:
        id: short, unique in the gate (``tests``, ``lint``).
        description: what it shows, for the user.
        command: the shell command that shows it (run by the engine, never by the model's word).
        required: a failed optional item never blocks.
    """

    id: str
    description: str
    command: str
    required: bool = True


@dataclass(frozen=True)
class Stats:
    """A gate's record over its runs (exempt runs are not counted)."""

    runs: int = 0
    passed: int = 0
    failed: int = 0
    reworks: int = 0


@dataclass(frozen=True)
class Evidence:
    """What the engine saw when it ran an item's command (GATE-5).

    Attributes:
        item: the check item's id.
        command: exactly what ran.
        exit_code: the command's exit status (``None``: it could not start or was killed at its time limit).
        duration_ms: wall time.
        output: the head and tail of its merged output.
        content_hash: the staged content's hash when it ran; a different hash now makes it stale.
        agent: who asked for the check (``chat``, ``task 2``, ``verifier-1a2b`` …).
        verifier: the independent verifier's agent id when one ran it, else ``""``.
        at: when it ended (seconds since the epoch).
    """

    item: str
    command: str
    exit_code: int | None
    duration_ms: int
    output: str
    content_hash: str
    agent: str
    verifier: str = ""
    at: float = 0.0

    @property
    def passed(self) -> bool:
        return self.exit_code == 0


@dataclass(frozen=True)
class HistoryEntry:
    """One finished run of a gate (GATE-1): how it ended and the evidence it ended with."""

    run_id: str
    outcome: Outcome | Literal["rework"]
    at: float
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class Risk:
    """The engine's reading of a gate's risk (GATE-2)."""

    d: float
    p: float
    r: float
    level: Level


@dataclass(frozen=True)
class PlaybookPrior:
    """The record of the playbook a gate's task family follows (seed 002: the same ok/fail signals).

    Taken when the gate is proposed (a snapshot, so the level the user confirmed does not move with
    another file); its ok and fail count in P beside the gate's own runs.
    """

    id: str
    ok: int = 0
    fail: int = 0


@dataclass(frozen=True)
class Gate:
    """A gate as stored in ``.agent/gates/<id>.md``.

    ``confirmed_by_user`` is what the file says; the engine believes only
    the user's own record (:mod:`ljtui.core.gates.confirmations`).
    """

    id: str
    title: str
    items: tuple[CheckItem, ...]
    factors: Factors
    level: Level
    confirmed_by_user: bool = False
    stats: Stats = Stats()
    history: tuple[HistoryEntry, ...] = ()
    created: float = 0.0
    updated: float = 0.0
    notes: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    playbook: PlaybookPrior | None = None


def clamp01(value: float) -> float:
    """``value`` limited to 0–1."""
    return min(1.0, max(0.0, value))


def difficulty(factors: Factors) -> float:
    """D: the mean of the three scores, discounted when verifiable, raised when irreversible, clamped."""
    mean = (factors.change_surface + factors.chain_length + factors.cognitive_density) / 3
    return clamp01(mean * (VERIFIABLE_DISCOUNT if factors.objectively_verifiable else 1.0)
                   + (IRREVERSIBLE_PENALTY if factors.irreversible else 0.0))


def pass_rate(stats: Stats) -> float:
    """P: 0.5 before any run, else passed / (runs + 2 × reworks)."""
    if stats.runs == 0:
        return PRIOR_PASS_RATE
    return stats.passed / (stats.runs + REWORK_WEIGHT * stats.reworks)


def level_of(r: float) -> Level:
    """The level for a risk ``r``: L0 < 0.25 ≤ L1 < 0.5 ≤ L2 < 0.75 ≤ L3."""
    if r >= L3_AT:
        return 3
    if r >= L2_AT:
        return 2
    if r >= L1_AT:
        return 1
    return 0


def risk(factors: Factors, stats: Stats) -> Risk:
    """R = 0.5·D + 0.5·(1 − P), and its level."""
    d = round(difficulty(factors), ROUND_DIGITS)
    p = pass_rate(stats)
    r = round(0.5 * d + 0.5 * (1 - p), ROUND_DIGITS)
    return Risk(d, p, r, level_of(r))


def blocks_delivery(level: int) -> bool:
    """Whether a run started at ``level`` stages every write and refuses delivery until the gate passes (GATE-4:
    from :data:`GATED_LEVEL` on); below it the run is a self-check list whose writes reach the user's files as
    they are made."""
    return level >= GATED_LEVEL


def delivery_rule(level: int) -> str:
    """What a run at ``level`` does with writes and delivery, in the words the gate dialogs, the Gates pane,
    ``ljtui gates show`` and the system prompt use."""
    if blocks_delivery(level):
        return "writes are staged and delivery is blocked until the gate passes"
    return "nothing is staged and delivery is not blocked"


def family_stats(stats: Stats, playbook: PlaybookPrior | None) -> Stats:
    """The gate's record with its playbook's: each ok a passed run, each fail a failed one."""
    if playbook is None:
        return stats
    return Stats(stats.runs + playbook.ok + playbook.fail, stats.passed + playbook.ok, stats.failed + playbook.fail,
                 stats.reworks)


def gate_risk(gate: Gate) -> Risk:
    """The gate's risk: its factors, and P from its own runs and its playbook's record."""
    return risk(gate.factors, family_stats(gate.stats, gate.playbook))
