"""Hooks on the session's life and ljtui's own events, each a real script: SessionStart's context goes with the
next message, SessionEnd, PreCompact, Notification beside a waiting question, a PreToolUse ``allow`` and ``ask``,
TaskFinished and Replanned of a task plan."""

from __future__ import annotations

import json
from pathlib import Path

from ljtui.core.events import HookFinished, PermissionDecided
from tests.core.hooks.helpers import call, hook_script, hooked_engine, of, on
from tests.core.tasks.helpers import said


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_session_start_context_goes_with_the_first_message_and_session_end_runs_at_the_close(
        git_repo: Path, tmp_path: Path) -> None:
    start = hook_script(git_repo, "start.sh", """jq -c '{hook_event_name, source, cwd}' >> .life
echo "Branch main; CI is red on test_login." """)
    end = hook_script(git_repo, "end.sh", "jq -c '{hook_event_name, reason}' >> .life")
    engine, _, _ = hooked_engine(git_repo, tmp_path, [{"text": "Seen."}, {"text": "Again."}],
                                 {"SessionStart": on("startup", start), "SessionEnd": on("", end)}, layer="off")
    try:
        await engine.start_hooks()
        await engine.run_turn("hello")
        await engine.run_turn("and again")
    finally:
        await engine.aclose()
    first, second = engine.history[0].content[0].text, engine.history[2].content[0].text
    assert first.startswith("hello\n\n[output of the hook ") and first.endswith("CI is red on test_login.")
    assert second == "and again"  # said once
    assert lines(git_repo / ".life") == [
        {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(git_repo)},
        {"hook_event_name": "SessionEnd", "reason": "exit"}]


async def test_pre_compact_runs_before_the_summary_with_its_trigger(git_repo: Path, tmp_path: Path) -> None:
    record = hook_script(git_repo, "compact.sh", "jq -c '{trigger}' >> .compact")
    turns = [{"text": "one"}, {"text": "two"}, {"text": "three"}, {"text": "the summary"}]
    engine, _, _ = hooked_engine(git_repo, tmp_path, turns, {"PreCompact": on("manual", record)}, layer="off")
    try:
        for n in range(3):
            await engine.run_turn(f"q{n}")
        assert await engine.compact()
    finally:
        await engine.aclose()
    assert engine.summary == "the summary"
    assert lines(git_repo / ".compact") == [{"trigger": "manual"}]


async def test_notification_runs_while_a_question_waits(git_repo: Path, tmp_path: Path) -> None:
    notify = hook_script(git_repo, "notify.sh", "jq -c '{message, notification_type}' >> .notified")
    engine, sink, approver = hooked_engine(git_repo, tmp_path, [call("write_file", path="new.txt", content="n\n"),
                                                                {"text": "Wrote it."}],
                                           {"Notification": on("permission", notify)},
                                           answers={"permission": ["once"]}, layer="off")
    try:
        await engine.run_turn("write new.txt")
        await engine.hook_events.settled()
    finally:
        await engine.aclose()
    [asked] = approver.asked
    assert lines(git_repo / ".notified") == [
        {"message": f"ljtui needs your answer: {asked.title}", "notification_type": "permission"}]
    assert (git_repo / "new.txt").exists()


async def test_a_pre_tool_use_allow_skips_only_a_dialog_the_user_could_have_skipped(
        git_repo: Path, tmp_path: Path) -> None:
    allow = hook_script(git_repo, "allow.sh", """jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse",
  permissionDecision: "allow", permissionDecisionReason: "docs are fine",
  additionalContext: "notes.md is the team scratch file"}}'""")
    turns = [call("write_file", path="notes.md", content="n\n"), call("bash", command="rm -rf build"),
             {"text": "Done."}]
    engine, sink, approver = hooked_engine(git_repo, tmp_path, turns, {"PreToolUse": on("", allow)}, layer="off")
    try:
        await engine.run_turn("write notes")
    finally:
        await engine.aclose()
    assert (git_repo / "notes.md").exists()
    written = engine.history[2].content[0].content
    assert written.endswith("not an instruction from the user]\nnotes.md is the team scratch file")
    decided = [(e.tool, e.decision, e.scope) for e in of(sink, PermissionDecided)]
    assert decided == [("write_file", "allow", "hook"), ("bash", "deny", "once")]
    [asked] = approver.asked  # the dangerous command still asked the user, who (unscripted) said no
    assert asked.kind == "permission" and "rm -rf build" in "\n".join(asked.lines)


async def test_a_pre_tool_use_ask_asks_even_where_the_users_config_allows(git_repo: Path, tmp_path: Path) -> None:
    ask = hook_script(git_repo, "ask.sh", """jq -n '{permissionDecision: "ask", reason: "read of a big file"}'""")
    engine, sink, approver = hooked_engine(git_repo, tmp_path, [call("read_file", path="app.py"), {"text": "ok"}],
                                           {"PreToolUse": on("Read", ask)}, answers={"permission": ["deny"]},
                                           layer="off")
    try:
        await engine.run_turn("read app.py")
    finally:
        await engine.aclose()
    [asked] = approver.asked
    assert asked.title == "A hook asks you first: run read_file?"
    assert f"{ask}: read of a big file" in asked.lines and asked.lines[-1] == 'read_file {"path": "app.py"}'
    block = engine.history[2].content[0]
    assert block.is_error and "denied" in block.content


async def test_task_finished_and_replanned_run_for_a_task_plan(git_repo: Path, tmp_path: Path) -> None:
    record = hook_script(git_repo, "plan.sh", "jq -c '{hook_event_name, task_id, status, count, reason}' >> .plan")
    plan = {"text": json.dumps({"tasks": [
        {"id": 1, "description": "Read app.py", "tool_hint": "read_file", "depends_on": []},
        {"id": 2, "description": "Check", "tool_hint": None, "depends_on": [1]}]})}
    agents = {"decompose": [plan], "task 1": [said("read", 1)],
              "task 2": [{"tool_calls": [{"name": "update_task_plan", "input": {
                  "reason": "one more look", "tasks": [{"id": 3, "description": "Look again"}]}}]},
                         {"text": "replanned"}],
              "task 3": [said("looked", 3)], "task 4": [said("the goal is met", 4)]}
    engine, sink, _ = hooked_engine(git_repo, tmp_path, [], {"TaskFinished": on("done", record),
                                                             "Replanned": on("", record)},
                                    answers={"task_plan": ["approve"]}, layer="off", agents=agents)
    try:
        outcome = await engine.run_plan("check")
        await engine.hook_events.settled()
    finally:
        await engine.aclose()
    assert outcome.status == "done"
    seen = lines(git_repo / ".plan")
    assert {"hook_event_name": "Replanned", "task_id": None, "status": None, "count": 1,
            "reason": "one more look"} in seen
    done = sorted(e["task_id"] for e in seen if e["hook_event_name"] == "TaskFinished")
    assert done == [1, 3, 4]  # the replanned task 2 did not match "done"; 4 is the plan's own last check
    assert {e.event for e in of(sink, HookFinished)} == {"TaskFinished", "Replanned"}


async def test_a_message_sent_while_session_start_hooks_run_waits_for_their_context(
        git_repo: Path, tmp_path: Path) -> None:
    import asyncio

    slow = hook_script(git_repo, "slow-start.sh", "sleep 1; echo 'the release branch is frozen'")
    engine, _, _ = hooked_engine(git_repo, tmp_path, [{"text": "Seen."}], {"SessionStart": on("", slow)},
                                 layer="off")
    try:
        starting = asyncio.ensure_future(engine.start_hooks())
        await asyncio.sleep(0.2)  # the hook runs
        await engine.run_turn("hello")
        await starting
    finally:
        await engine.aclose()
    assert engine.history[0].content[0].text.endswith("the release branch is frozen")
