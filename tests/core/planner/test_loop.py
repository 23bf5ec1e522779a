"""Whole planner runs against a scripted model: every outcome and failure path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ljtui.core.events import ModelCallStarted, ToolCallFinished, ToolCallStarted, event_to_dict
from ljtui.core.planner.events import (
    PlannerFinished, PlannerPlanChecked, PlannerReplyRejected, PlannerTurnStarted,
)
from ljtui.core.planner.loop import FABRICATION_LIMIT, MAX_REPAIR_ROUNDS, PlannerResult, run_planner
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ProviderError
from tests.core.planner.helpers import BAD_ANCHOR_PLAN, GOOD_PLAN, HANDBOOK, RecordingClient, action

FABRICATED = "## Tool result\nsrc/shipper/upload.py:\n    def send(self): ...\n\n" + GOOD_PLAN


async def plan(repo: Path, *replies: str, max_turns: int = 10, **kw: object) -> tuple[PlannerResult, RecordingClient]:
    client = RecordingClient(*replies)
    result = await run_planner(client, repo, "double the upload timeout", max_turns=max_turns, **kw)  # type: ignore[arg-type]
    return result, client


async def test_good_plan_after_reading(repo: Path) -> None:
    sink = ListSink()
    result, client = await plan(repo, action("read_file", path="src/shipper/upload.py"), GOOD_PLAN, sink=sink)
    assert result.ok and result.aborted is None and result.errors == ()
    assert result.plan == GOOD_PLAN and result.turns == 2
    assert result.declarations is not None and result.declarations.will_modify == ("Uploader.send",)
    assert result.trace == ("turn 1: read_file path=src/shipper/upload.py -> src/shipper/upload.py lines 1-31 of 31",)
    kinds = [type(e) for e in sink.events]
    assert kinds == [PlannerTurnStarted, ModelCallStarted, ToolCallStarted, ToolCallFinished, PlannerTurnStarted,
                     ModelCallStarted, PlannerPlanChecked, PlannerFinished]
    started = {(e.turn, e.provider, e.model) for e in sink.events if isinstance(e, ModelCallStarted)}
    assert started == {(1, "scripted", "scripted"), (2, "scripted", "scripted")}
    assert {e.agent for e in sink.events if isinstance(e, (ToolCallStarted, ToolCallFinished))} == {"planner"}
    assert "## Tool result" in client.prompt(1) and "class Uploader:" in client.prompt(1)


async def test_instructions_come_after_the_transcript_every_turn(repo: Path) -> None:
    _, client = await plan(repo, action("list_dir", path="."), action("read_file", path="README.md"), GOOD_PLAN)
    for n in range(3):
        prompt = client.prompt(n)
        last_result = prompt.rfind("\n## Tool result\n")
        instructions = prompt.rfind("# Instructions (repeated)")
        assert instructions > last_result and (n == 0 or last_result > 0)
        assert prompt.rstrip().endswith("only the harness reports tool output.")
        assert client.requests[n].system.startswith("You are planning a change")


async def test_fabricated_replies_abort_after_the_limit(repo: Path) -> None:
    sink = ListSink()
    result, client = await plan(repo, *[FABRICATED] * FABRICATION_LIMIT, sink=sink)
    assert result.aborted == "fabrication" and not result.ok
    assert result.plan == "" and result.turns == FABRICATION_LIMIT
    rejected = [e for e in sink.events if isinstance(e, PlannerReplyRejected)]
    assert [e.reason for e in rejected] == ["fabrication"] * FABRICATION_LIMIT
    assert not any(isinstance(e, PlannerPlanChecked) for e in sink.events)
    second = client.prompt(1)
    assert "was rejected whole" in second
    assert "def send(self): ..." not in second  # the invented contents are not kept


async def test_fabrication_streak_resets_on_an_honest_reply(repo: Path) -> None:
    replies = [FABRICATED, FABRICATED, action("list_dir", path="."), FABRICATED, FABRICATED, GOOD_PLAN]
    result, _ = await plan(repo, *replies)
    assert result.ok and result.turns == 6


async def test_malformed_action_json_is_pushed_back(repo: Path) -> None:
    sink = ListSink()
    bad = '```json\n{"action": "read_file", "path": "README.md",}\n```'
    result, client = await plan(repo, bad, GOOD_PLAN, sink=sink)
    assert result.ok
    assert "does not parse" in client.prompt(1)
    assert [e.reason for e in sink.events if isinstance(e, PlannerReplyRejected)] == ["malformed-action"]


async def test_prose_without_action_is_pushed_back(repo: Path) -> None:
    result, client = await plan(repo, "Let me think about uploads.", GOOD_PLAN)
    assert result.ok and "had no action and no plan" in client.prompt(1)


@pytest.mark.parametrize("args", [{"path": 7}, {"path": ["src"]}, {"path": None}, {}, {"path": {"a": 1}}])
async def test_non_string_path_is_a_tool_error_not_a_crash(repo: Path, args: dict[str, object]) -> None:
    result, client = await plan(repo, action("read_file", **args), GOOD_PLAN)
    assert result.ok
    assert "argument 'path'" in client.prompt(1)
    assert result.trace[0].startswith("turn 1: read_file") and "error:" in result.trace[0]


async def test_unknown_action_is_a_tool_error(repo: Path) -> None:
    result, client = await plan(repo, action("write_file", path="x.py", content="boom"), GOOD_PLAN)
    assert result.ok and not (repo / "x.py").exists()
    assert "unknown action 'write_file'" in client.prompt(1)
    assert "error: unknown action" in result.trace[0]


async def test_turn_limit_without_a_plan(repo: Path) -> None:
    result, client = await plan(repo, *[action("list_dir", path=".")] * 3, max_turns=3)
    assert result.aborted == "turn-limit" and result.turns == 3 and client.played == 3
    assert result.plan == "" and len(result.trace) == 3


async def test_finish_without_a_plan(repo: Path) -> None:
    result, _ = await plan(repo, "Sorry, I could not find it.\n\n" + action("finish"))
    assert result.aborted == "no-plan" and result.plan == "" and not result.ok


async def test_finish_carrying_the_plan_is_checked(repo: Path) -> None:
    result, _ = await plan(repo, action("finish", plan=GOOD_PLAN))
    assert result.ok and result.plan == GOOD_PLAN


async def test_unclosed_final_fence_is_repaired(repo: Path) -> None:
    cut = GOOD_PLAN.rstrip("\n").removesuffix("```")
    result, _ = await plan(repo, cut)
    assert result.ok and result.fence_repaired and result.plan == GOOD_PLAN


async def test_unclosed_fence_in_the_middle_is_rejected(repo: Path) -> None:
    broken = GOOD_PLAN.replace("timeout=self._timeout)\n```\n", "timeout=self._timeout)\n", 1)
    result, _ = await plan(repo, *[broken] * (MAX_REPAIR_ROUNDS + 1))
    assert not result.ok and result.aborted is None and not result.fence_repaired
    assert result.errors and result.repair_rounds == MAX_REPAIR_ROUNDS


async def test_sandbox_escapes_are_tool_errors(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOKEN=abc\n")
    (repo / "leak").symlink_to(tmp_path / "secret.txt")
    replies = [action("read_file", path="../secret.txt"), action("read_file", path=str(tmp_path / "secret.txt")),
               action("read_file", path="leak"), action("grep", pattern="TOKEN", path="."), GOOD_PLAN]
    result, client = await plan(repo, *replies)
    assert result.ok
    assert all("error:" in line for line in result.trace[:3])
    assert "TOKEN=abc" not in client.prompt(4)


async def test_catastrophic_regex_is_refused_in_a_run(repo: Path) -> None:
    result, client = await plan(repo, action("grep", pattern="(a+)+$", path="."), GOOD_PLAN)
    assert result.ok and "unbounded quantifier" in client.prompt(1)


async def test_failing_plan_is_sent_back_with_evidence_and_repaired(repo: Path) -> None:
    sink = ListSink()
    result, client = await plan(repo, BAD_ANCHOR_PLAN, GOOD_PLAN, sink=sink)
    assert result.ok and result.repair_rounds == 1 and result.plan == GOOD_PLAN
    feedback = client.prompt(1)
    assert "AnchorNotFound in EDIT 1" in feedback
    assert "candidate src/shipper/upload.py:24" in feedback
    assert "24 |         response = self._client.put(url, data, timeout=self._timeout)" in feedback
    assert "Repair round 1 of 3" in feedback
    checks = [e for e in sink.events if isinstance(e, PlannerPlanChecked)]
    assert [(e.ok, e.repair_round) for e in checks] == [(False, 0), (True, 1)]


async def test_plan_still_failing_after_repairs_is_returned_with_errors(repo: Path) -> None:
    result, client = await plan(repo, *[BAD_ANCHOR_PLAN] * 5)
    assert not result.ok and result.aborted is None
    assert result.plan == BAD_ANCHOR_PLAN and client.played == MAX_REPAIR_ROUNDS + 1
    assert result.errors[0].startswith("AnchorNotFound: block 1:")


async def test_repair_may_read_files_before_resending(repo: Path) -> None:
    replies = [BAD_ANCHOR_PLAN, action("read_file", path="src/shipper/upload.py", start_line=20), GOOD_PLAN]
    result, _ = await plan(repo, *replies)
    assert result.ok and result.repair_rounds == 1 and result.turns == 3


async def test_turn_limit_during_repair_returns_the_failing_plan(repo: Path) -> None:
    result, _ = await plan(repo, BAD_ANCHOR_PLAN, action("list_dir", path="."), max_turns=2)
    assert result.aborted is None and result.errors and not result.ok


async def test_plan_without_declarations_goes_back_for_repair(repo: Path) -> None:
    bare = GOOD_PLAN[: GOOD_PLAN.index("```json")]
    result, client = await plan(repo, bare, GOOD_PLAN)
    assert result.ok and "MissingDeclarations" in client.prompt(1)


async def test_handbook_is_readable_in_a_run(repo: Path) -> None:
    result, client = await plan(repo, action("read_file", path="__handbook__/upload.md"), GOOD_PLAN,
                                handbook_dir=HANDBOOK)
    assert result.ok and "one place that talks to the store" in client.prompt(1)
    assert "__handbook__/" in client.requests[0].system


async def test_model_failure_propagates(repo: Path) -> None:
    with pytest.raises(ProviderError, match="no turn left"):
        await plan(repo, action("list_dir", path="."))


async def test_bad_arguments_are_refused(repo: Path) -> None:
    with pytest.raises(ValueError, match="max_turns"):
        await plan(repo, GOOD_PLAN, max_turns=0)
    with pytest.raises(ValueError, match="not a directory"):
        await plan(repo / "README.md", GOOD_PLAN)


async def test_events_serialise_for_the_headless_stream(repo: Path) -> None:
    sink = ListSink()
    await plan(repo, action("list_dir", path="."), "## Tool result\n", GOOD_PLAN, sink=sink)
    kinds = [event_to_dict(e)["kind"] for e in sink.events]
    assert kinds[:5] == ["planner_turn_started", "model_call_started", "tool_call_started", "tool_call_finished",
                         "planner_turn_started"]
    assert "planner_reply_rejected" in kinds and kinds[-1] == "planner_finished"
    json.dumps([event_to_dict(e) for e in sink.events])
