"""The risk formula (GATE-2) on a table of cases, every level boundary exactly, the clamp, and P with reworks."""

from __future__ import annotations

import math

import pytest

from ljtui.core.gates.model import Factors, Stats, difficulty, level_of, pass_rate, risk

FLAT = Factors(0.0, 0.0, 0.0, False, False)
HALF = Factors(0.5, 0.5, 0.5, False, False)
FULL = Factors(1.0, 1.0, 1.0, False, False)
NEVER_RUN = Stats()
ALL_PASSED = Stats(runs=1, passed=1)
ALL_FAILED = Stats(runs=1, failed=1)


@pytest.mark.parametrize(("factors", "stats", "r", "level"), [
    (FLAT, NEVER_RUN, 0.25, 1),          # R exactly 0.25: L1, not L0
    (HALF, NEVER_RUN, 0.5, 2),           # R exactly 0.5: L2
    (FULL, NEVER_RUN, 0.75, 3),          # R exactly 0.75: L3
    (FLAT, ALL_PASSED, 0.0, 0),
    (HALF, ALL_PASSED, 0.25, 1),
    (FULL, ALL_PASSED, 0.5, 2),
    (FLAT, ALL_FAILED, 0.5, 2),
    (HALF, ALL_FAILED, 0.75, 3),
    (FULL, ALL_FAILED, 1.0, 3),
    (Factors(0.6, 0.6, 0.6, True, False), ALL_PASSED, 0.21, 0),     # 0.6 × 0.7 = 0.42; R = 0.21
    (Factors(0.6, 0.6, 0.6, True, True), ALL_PASSED, 0.36, 1),      # 0.42 + 0.3 = 0.72; R = 0.36
    (Factors(0.2, 0.4, 0.9, False, False), Stats(4, 3, 1, 0), 0.375, 1),  # D = 0.5, P = 0.75
])
def test_risk_table(factors: Factors, stats: Stats, r: float, level: int) -> None:
    got = risk(factors, stats)
    assert math.isclose(got.r, r, abs_tol=1e-12)
    assert got.level == level


@pytest.mark.parametrize(("boundary", "level"), [(0.25, 1), (0.5, 2), (0.75, 3)])
def test_every_boundary_belongs_to_the_level_above(boundary: float, level: int) -> None:
    assert level_of(boundary) == level
    assert level_of(math.nextafter(boundary, 0.0)) == level - 1


def test_level_extremes() -> None:
    assert level_of(0.0) == 0
    assert level_of(1.0) == 3


def test_irreversible_with_high_scores_is_clamped_to_one() -> None:
    assert difficulty(Factors(1.0, 1.0, 1.0, False, True)) == 1.0
    assert difficulty(Factors(0.9, 0.95, 1.0, False, True)) == 1.0
    assert risk(Factors(1.0, 1.0, 1.0, False, True), ALL_FAILED).r == 1.0


def test_verifiable_discount_and_irreversible_penalty() -> None:
    assert math.isclose(difficulty(Factors(0.6, 0.6, 0.6, True, False)), 0.42)
    assert math.isclose(difficulty(Factors(0.6, 0.6, 0.6, True, True)), 0.72)
    assert math.isclose(difficulty(Factors(0.3, 0.6, 0.9, False, False)), 0.6)


def test_pass_rate_before_any_run_is_one_half() -> None:
    assert pass_rate(NEVER_RUN) == 0.5


def test_a_rework_counts_twice_against_p() -> None:
    assert pass_rate(Stats(runs=1, passed=1, reworks=1)) == pytest.approx(1 / 3)
    assert pass_rate(Stats(runs=3, passed=2, failed=1, reworks=1)) == pytest.approx(2 / 5)
    # One rework weighs like two more failed runs would on the denominator.
    assert pass_rate(Stats(runs=3, passed=2, failed=1, reworks=1)) == pass_rate(Stats(runs=5, passed=2, failed=3))
