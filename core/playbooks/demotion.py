"""Feedback and auto-demotion (PB-4): a playbook's record decides whether it stays active.

Only an active playbook is demoted, by the first rule that holds, in
exactly this order:

1. ``fail >= 2 and ok == 0`` → deprecated (it never worked);
2. ``fail >= 3 and fail > 2 * ok`` → deprecated (it worked, but rarely);
3. ``fail >= 2 and fail > ok`` → draft (it needs revising).

The draft rule comes last: checked first, it would take every playbook out
of ``active`` at its second failure and the deprecated rules could never
fire.
"""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.playbooks.model import ACTIVE, DEPRECATED, DRAFT, FAIL, OK, Playbook, PlaybookStats

NEVER_WORKED_FAILS = 2
"""Rule 1: this many failures and no success deprecate."""
RARELY_WORKED_FAILS = 3
"""Rule 2: this many failures, more than :data:`RARELY_WORKED_RATIO` times the successes, deprecate."""
RARELY_WORKED_RATIO = 2
NEEDS_REVISION_FAILS = 2
"""Rule 3: this many failures, more than the successes, send it back to draft."""


@dataclass(frozen=True)
class Demotion:
    """A demotion the record calls for: the new status, the rule (1-3) and why, in words."""

    to: str
    rule: int
    reason: str


def demotion(status: str, ok: int, fail: int) -> Demotion | None:
    """The demotion an ``active`` playbook with this record gets, or None (always None when not active)."""
    if status != ACTIVE:
        return None
    if fail >= NEVER_WORKED_FAILS and ok == 0:
        return Demotion(DEPRECATED, 1, f"failed {fail} times and never worked")
    if fail >= RARELY_WORKED_FAILS and fail > RARELY_WORKED_RATIO * ok:
        return Demotion(DEPRECATED, 2, f"failed {fail} times and worked only {ok}")
    if fail >= NEEDS_REVISION_FAILS and fail > ok:
        return Demotion(DRAFT, 3, f"failed {fail} times and worked {ok}: it needs revising")
    return None


def with_feedback(playbook: Playbook, outcome: str, now: str) -> Playbook:
    """``playbook`` after one use with ``outcome`` (``ok`` or ``fail``) at ``now``: stats, then demotion."""
    s = playbook.stats
    stats = PlaybookStats(uses=s.uses + 1, ok=s.ok + (outcome == OK), fail=s.fail + (outcome == FAIL),
                          last_used=now, last_outcome=outcome)
    change = demotion(playbook.status, stats.ok, stats.fail)
    status = change.to if change else playbook.status
    return playbook.with_changes(stats=stats, status=status, updated=now)
