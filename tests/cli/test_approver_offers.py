"""``--yes`` answers what a run needs, never an offer of extras (a draft playbook)."""

from __future__ import annotations

import io

from ljtui.cli.approver import CliApprover
from ljtui.core.approval import confirm
from ljtui.core.playbooks.service import offer_request


async def test_yes_confirms_a_step_of_the_run_but_declines_an_offer() -> None:
    out = io.StringIO()
    approver = CliApprover("ljtui run", yes=True, interactive=False, out=out)
    assert (await approver.decide(confirm("apply", "Apply?", [], "apply"))).choice == "yes"
    assert (await approver.decide(offer_request("Fix it", ["Edit app.py"], ["pytest"]))).choice == "no"
    assert out.getvalue() == ""


async def test_without_a_terminal_an_offer_is_declined_without_a_hint_to_pass_yes() -> None:
    out = io.StringIO()
    approver = CliApprover("ljtui run", yes=False, interactive=False, out=out)
    assert (await approver.decide(offer_request("Fix it", ["Edit app.py"], []))).choice == "no"
    assert "--yes" not in out.getvalue()


async def test_on_a_terminal_an_offer_is_asked() -> None:
    out, inp = io.StringIO(), io.StringIO("y\n")
    approver = CliApprover("ljtui run", yes=True, interactive=True, out=out, inp=inp)
    decision = await approver.decide(offer_request("Fix it", ["Edit app.py"], ["pytest -q"]))
    assert decision.choice == "yes" and "Keep this procedure as a draft playbook?" in out.getvalue()
    assert "$ pytest -q" in out.getvalue()
