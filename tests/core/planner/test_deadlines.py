"""EDIT-14: a planner run's soft deadline stops new repairs; its hard deadline stops the run."""

from __future__ import annotations

import time
from pathlib import Path

from ljtui.core.planner.aborts import abort_message
from ljtui.core.planner.events import PlannerDeadlinePassed, PlannerFinished, PlannerPlanChecked
from ljtui.core.planner.loop import run_planner
from ljtui.core.ports import ListSink
from ljtui.core.providers.scripted import Script, ScriptedClient, ScriptedTurn
from tests.core.planner.helpers import BAD_ANCHOR_PLAN, GOOD_PLAN, RecordingClient


class SteppingClock:
    """A monotonic clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_past_the_soft_deadline_no_repair_starts_and_the_user_is_told(repo: Path) -> None:
    sink, client = ListSink(), RecordingClient(BAD_ANCHOR_PLAN, GOOD_PLAN)
    result = await run_planner(client, repo, "double the timeout", sink=sink, soft_deadline=120,
                               monotonic=SteppingClock(200))
    assert not result.ok and result.repair_rounds == 0 and client.played == 1
    assert result.plan == BAD_ANCHOR_PLAN and result.errors[0].startswith("AnchorNotFound")
    [passed] = [e for e in sink.events if isinstance(e, PlannerDeadlinePassed)]
    assert passed.soft_deadline == 120 and "no more repairs" in passed.message
    kinds = [type(e) for e in sink.events][-3:]
    assert kinds == [PlannerPlanChecked, PlannerDeadlinePassed, PlannerFinished]


async def test_before_the_soft_deadline_repairs_go_on(repo: Path) -> None:
    sink, client = ListSink(), RecordingClient(BAD_ANCHOR_PLAN, GOOD_PLAN)
    result = await run_planner(client, repo, "double the timeout", sink=sink, soft_deadline=120,
                               monotonic=SteppingClock(1))
    assert result.ok and result.repair_rounds == 1
    assert not [e for e in sink.events if isinstance(e, PlannerDeadlinePassed)]


async def test_the_hard_deadline_stops_a_model_that_is_still_writing(repo: Path) -> None:
    slow = ScriptedClient(Script(Path("<slow>"), [ScriptedTurn(text="thinking " * 10_000)], chunk_delay=0.05))
    sink = ListSink()
    started = time.monotonic()
    result = await run_planner(slow, repo, "double the timeout", sink=sink, hard_deadline=0.5)
    assert time.monotonic() - started < 5
    assert result.aborted == "deadline" and not result.ok and result.plan == ""
    [finished] = [e for e in sink.events if isinstance(e, PlannerFinished)]
    assert finished.aborted == "deadline" and finished.message == abort_message("deadline")
    assert "nothing was written" in finished.message
