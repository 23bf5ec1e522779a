"""The Gates pane, the gate dialogs and the delivery-refused notice as a user sees them, at 80x24 and 120x40.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

import dataclasses

import pytest

from ljtui.core.events import Notice
from ljtui.core.gates.requests import breaker_request, confirm_request, refusal_text
from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.tui.conftest import AppFactory, notices, until
from tests.tui.gate_helpers import ITEMS, gate_view, post_gate, proposed_view
from tests.tui.test_gates_pane import Asked, focused, pane, shown

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])

CLEAN = dataclasses.replace(ITEMS[3], id="build", description="The package builds from a clean tree",
                            command="rm -rf build dist && python -m build --wheel", required=False)
"""An item whose command the confirm dialog flags as dangerous (a recursive delete)."""


async def _pane(pilot) -> None:
    await focused(pilot, gate_view())


async def _history(pilot) -> None:
    await focused(pilot, gate_view())
    await pilot.press("end")
    await until(pilot, lambda: pane(pilot.app).scroll_y == pane(pilot.app).max_scroll_y, "the end")


async def _expanded(pilot) -> None:
    await focused(pilot, gate_view(breaker_open=True, bounces=2))
    await pilot.press("enter")
    await until(pilot, lambda: pane(pilot.app).expanded == {"tests"}, "the output")


async def _beside(pilot) -> None:
    await shown(pilot, gate_view())
    await pilot.press("f5", "j")
    await until(pilot, lambda: pane(pilot.app).selected_item.id == "lint", "the selection")


async def _confirm(pilot) -> None:
    view = proposed_view(items=(*ITEMS, CLEAN))
    Asked(pilot.app, confirm_request(view, pilot.app.repo_root))
    await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalDialog), "the confirm dialog")


async def _breaker(pilot) -> None:
    view = gate_view(bounces=2, breaker_open=True)
    await shown(pilot, view)
    Asked(pilot.app, breaker_request(view))
    await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalDialog), "the breaker dialog")


async def _refused(pilot) -> None:
    view = gate_view()
    post_gate(pilot.app, view)
    pilot.app.post_message(EngineEventPosted(Notice(refusal_text(view), "error")))
    await until(pilot, lambda: any(n.startswith("Delivery refused") for n in notices(pilot.app)), "the notice")


@SIZES
def test_the_pane_with_failed_stale_independent_passed_and_pending_checks(snap_compare, make_app: AppFactory,
                                                                          size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_pane)


def test_the_pane_scrolled_to_its_history(snap_compare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_history)


@SIZES
def test_a_failed_check_s_command_and_output_expanded(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_expanded)


@SIZES
def test_the_pane_beside_the_conversation(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_beside)


@SIZES
def test_the_confirm_dialog_with_r_factors_and_every_command(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_confirm)


@SIZES
def test_the_breaker_dialog(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_breaker)


@SIZES
def test_the_delivery_refused_notice(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_refused)
