"""Auto-demotion (PB-4): exactly the spec's rules in the spec's order, active playbooks only."""

from __future__ import annotations

import pytest

from ljtui.core.playbooks.demotion import demotion, with_feedback
from ljtui.core.playbooks.model import ACTIVE, DEPRECATED, DRAFT, Playbook, PlaybookStats

TABLE = [
    # (ok, fail) → (new status, rule) or None
    ((0, 0), None), ((0, 1), None), ((1, 1), None), ((2, 2), None), ((3, 3), None), ((5, 3), None),
    ((9, 1), None),
    ((0, 2), (DEPRECATED, 1)), ((0, 3), (DEPRECATED, 1)), ((0, 9), (DEPRECATED, 1)),
    ((1, 3), (DEPRECATED, 2)), ((1, 4), (DEPRECATED, 2)), ((2, 5), (DEPRECATED, 2)), ((4, 9), (DEPRECATED, 2)),
    ((1, 2), (DRAFT, 3)), ((2, 3), (DRAFT, 3)), ((2, 4), (DRAFT, 3)), ((3, 4), (DRAFT, 3)), ((4, 8), (DRAFT, 3)),
]


@pytest.mark.parametrize(("record", "expected"), TABLE, ids=[f"ok{o}-fail{f}" for (o, f), _ in TABLE])
def test_an_active_playbook_is_demoted_by_the_first_rule_that_holds(record: tuple[int, int],
                                                                   expected: tuple[str, int] | None) -> None:
    change = demotion(ACTIVE, *record)
    assert (None if change is None else (change.to, change.rule)) == expected


def test_every_rule_is_reachable_in_this_order() -> None:
    rules = {change.rule for (ok, fail), _ in TABLE if (change := demotion(ACTIVE, ok, fail)) is not None}
    assert rules == {1, 2, 3}


@pytest.mark.parametrize("status", [DRAFT, DEPRECATED])
def test_only_active_playbooks_are_demoted(status: str) -> None:
    assert all(demotion(status, ok, fail) is None for (ok, fail), _ in TABLE)


def _playbook(status: str, ok: int, fail: int) -> Playbook:
    return Playbook("x", "x", status, "project", (), "", "t", "t", None, PlaybookStats(ok + fail, ok, fail), "")


def test_feedback_updates_the_stats_then_demotes() -> None:
    after = with_feedback(_playbook(ACTIVE, 0, 1), "fail", "2026-02-02T00:00:00.000Z")
    assert after.stats == PlaybookStats(2, 0, 2, "2026-02-02T00:00:00.000Z", "fail")
    assert (after.status, after.updated) == (DEPRECATED, "2026-02-02T00:00:00.000Z")
    assert with_feedback(_playbook(ACTIVE, 1, 1), "fail", "t").status == DRAFT
    assert with_feedback(_playbook(ACTIVE, 1, 1), "ok", "t").status == ACTIVE
    assert with_feedback(_playbook(DRAFT, 0, 5), "fail", "t").status == DRAFT
