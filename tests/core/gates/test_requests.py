"""The gate service's questions and the delivery-refused notice, built from a gate view (pure)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ljtui.core.approval import NO, YES, AllowAll, DenyAll
from ljtui.core.gates.model import Factors, Stats
from ljtui.core.gates.requests import (
    breaker_request, confirm_request, failsafe_request, refusal_text, risk_line, start_request,
)
from tests.tui.gate_helpers import ITEMS, L3_FACTORS, RUN, STATS, gate_view, proposed_view


def test_the_risk_line_shows_r_from_d_and_p() -> None:
    view = gate_view(factors=Factors(0.6, 0.4, 0.8, False, False), stats=STATS)
    assert risk_line(view) == "R 0.68 = 0.5·D 0.60 + 0.5·(1 − P 0.25)"


def test_confirm_shows_the_risk_every_factor_and_every_full_command(tmp_path: Path) -> None:
    request = confirm_request(proposed_view(), tmp_path)
    assert request.kind == "gate_confirm"
    assert request.title == "Confirm gate add-top-option (L2)?"
    assert request.subject == "add-top-option"
    text = "\n".join(request.lines)
    assert "R 0.60 = 0.5·D 0.70 + 0.5·(1 − P 0.50)" in text
    for part in ("change surface     0.60", "chain length       0.40", "cognitive density  0.70",
                 "objectively verifiable: yes", "irreversible:           yes"):
        assert part in text
    for item in ITEMS:
        assert f"• {item.id} ({'required' if item.required else 'optional'}): {item.description}" in text
        assert f"    $ {item.command}" in text
    assert "staging tree .agent/workspace/<run>/tree" in text
    assert "dangerous" not in text


def test_confirm_keys_enter_confirms_and_escape_is_the_safe_cancel(tmp_path: Path) -> None:
    request = confirm_request(proposed_view(), tmp_path)
    assert [(c.id, c.key) for c in request.choices] == [(YES, "enter"), (NO, "escape")]
    assert request.safe == NO


async def test_headless_answers_deny_unless_told_yes(tmp_path: Path) -> None:
    request = confirm_request(proposed_view(), tmp_path)
    assert (await DenyAll().decide(request)).choice == NO
    assert (await AllowAll().decide(request)).choice == YES


def test_confirm_flags_a_dangerous_command_and_shows_it_whole(tmp_path: Path) -> None:
    long_tail = " ".join(f"tests/test_{n}.py" for n in range(60))
    items = (dataclasses.replace(ITEMS[0], command=f"python -m pytest {long_tail}"),
             dataclasses.replace(ITEMS[1], id="clean", command="rm -rf build && make check"))
    text = "\n".join(confirm_request(proposed_view(items=items), tmp_path).lines)
    assert f"    $ python -m pytest {long_tail}" in text
    lines = text.splitlines()
    flagged = [i for i, line in enumerate(lines) if "⚠ dangerous command" in line]
    assert len(flagged) == 1 and lines[flagged[0] - 1] == "    $ rm -rf build && make check"


def test_confirm_of_a_gate_without_items_says_so(tmp_path: Path) -> None:
    text = "\n".join(confirm_request(proposed_view(items=()), tmp_path).lines)
    assert "Checks (0):" in text and "(none" in text


def test_confirm_below_l2_says_the_commands_run_in_the_repository(tmp_path: Path) -> None:
    low = Factors(0.1, 0.1, 0.1, True, False)
    view = proposed_view(factors=low, stats=Stats(runs=4, passed=4))
    assert view.level == 0 or view.level == 1
    text = "\n".join(confirm_request(view, tmp_path).lines)
    assert "run in the repository itself" in text and "staging tree" not in text


def test_start_names_the_staging_tree_and_the_block() -> None:
    request = start_request(gate_view(started=False))
    assert request.kind == "gate_start" and request.title == "Start gate add-top-option (L2)?"
    text = "\n".join(request.lines)
    assert f".agent/workspace/{RUN}/tree" in text
    assert "blocked until the gate passes" in text
    assert "verifier" not in text
    assert request.safe == NO and [c.key for c in request.choices] == ["enter", "escape"]


def test_start_before_the_run_has_an_id_uses_a_placeholder() -> None:
    assert ".agent/workspace/<run>/tree" in "\n".join(start_request(proposed_view()).lines)


def test_start_at_l3_says_a_verifier_must_check() -> None:
    view = gate_view(factors=L3_FACTORS, started=False)
    assert view.level == 3
    text = "\n".join(start_request(view).lines)
    assert "At L3 an independent verifier must check at least one required item." in text


@pytest.mark.parametrize("build", [breaker_request, lambda v: failsafe_request(v, "boom")],
                         ids=["breaker", "failsafe"])
def test_deliver_anyway_needs_d_and_escape_keeps_it_blocked(build) -> None:
    request = build(gate_view(bounces=2, breaker_open=True))
    assert [(c.id, c.key) for c in request.choices] == [(YES, "d"), (NO, "escape")]
    assert request.safe == NO
    assert all(c.key != "enter" for c in request.choices)


def test_the_breaker_says_how_often_delivery_was_refused_and_what_blocks() -> None:
    request = breaker_request(gate_view(bounces=2, breaker_open=True))
    assert request.kind == "gate_breaker"
    text = "\n".join(request.lines)
    assert "Delivery was refused 2 time(s) for gate add-top-option (L2)" in text
    assert "failed   tests" in text and "missing  docs" in text and "stale    lint" in text
    assert "with a warning" in text


def test_the_failsafe_names_the_error_and_never_says_passed() -> None:
    request = failsafe_request(gate_view(error="the content hash could not be read"), "hash read failed: EIO")
    assert request.kind == "gate_failsafe"
    text = "\n".join(request.lines)
    assert "failed with: hash read failed: EIO" in text
    assert "has NOT passed" in text and "explicit confirmation" in text


def test_refusal_names_the_gate_and_each_missing_failed_and_stale_item() -> None:
    text = refusal_text(gate_view())
    lines = text.splitlines()
    assert lines[0] == "Delivery refused: gate add-top-option (L2) has not passed — Add a --top option to wordstats."
    assert "  missing  docs — README documents --top (no evidence yet)" in lines
    assert "  failed   tests — The test suite passes (its check failed, exit 1)" in lines
    assert "  stale    lint — No lint errors (the content changed after its check)" in lines
    assert not any(" cli " in line or " types " in line for line in lines)  # passed, independent
    assert lines[-1] == f"The change stays in the staging tree .agent/workspace/{RUN}/tree."


def test_a_failed_optional_item_never_appears_in_the_refusal() -> None:
    items = (dataclasses.replace(ITEMS[3], status="failed", exit_code=2), ITEMS[0])
    text = refusal_text(gate_view(items=items))
    assert "types" not in text and "failed   tests" in text


def test_refusal_at_l3_without_a_verifier_says_so() -> None:
    items = tuple(dataclasses.replace(i, status="passed", verifier="") for i in ITEMS)
    text = refusal_text(gate_view(factors=L3_FACTORS, items=items))
    assert "independent verifier (L3)" in text


def test_refusal_carries_the_guard_error_and_the_service_reasons_when_no_item_blocks() -> None:
    items = tuple(dataclasses.replace(i, status="passed") for i in ITEMS)
    text = refusal_text(gate_view(items=items, blocked=("evidence was taken on another run",), error="EIO"))
    assert "  evidence was taken on another run" in text.splitlines()
    assert "The guard failed: EIO" in text
