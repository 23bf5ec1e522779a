"""How a task's agent loop ends, and the nudges that reach its model (seed 003), through the real runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ljtui.core.agent import runaway as R
from ljtui.core.approval import ScriptedApprover
from ljtui.core.events import Notice, ToolCallFinished
from ljtui.core.tasks import events as T
from ljtui.core.tasks.nudges import depth_limit_nudge, no_tool_call_nudge
from ljtui.core.tasks.plan import TaskStatus
from ljtui.core.tasks.replan import soft_cap_text
from tests.core.tasks.helpers import said
from tests.core.tasks.test_runner import make_engine, plan_reply

READ = {"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}


def read(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read_file", "input": {"path": path}}]}


class Recording:
    """Wraps the engine's scripted client to keep every request."""

    def __init__(self, engine) -> None:
        self.requests: list[Any] = []
        client = engine.model.client()
        stream = client.stream

        def recorded(request):
            self.requests.append(request)
            return stream(request)

        client.stream = recorded  # type: ignore[method-assign]

    def of(self, agent: str) -> list[Any]:
        return [r for r in self.requests if r.agent == agent]


def results_seen(request) -> list[str]:
    """The tool results and user texts in the last message of ``request``."""
    last = request.messages[-1]
    return [getattr(b, "content", None) or getattr(b, "text", "") for b in last.content]


async def test_a_replanning_agent_reads_its_result_and_the_soft_cap_reaches_a_model(git_repo: Path) -> None:
    def replan_to(description: str) -> list[dict[str, Any]]:
        return [{"tool_calls": [{"name": "update_task_plan", "input": {
            "reason": "again", "tasks": [{"id": 1, "description": description, "tool_hint": "bash"}]}}]},
                {"text": "I will follow the new plan."}]

    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Run the tests", "bash", []))],
        "task 1": replan_to("first try"), "task 2": replan_to("second try"), "task 3": replan_to("third try"),
        "task 4": [said("done", 4)], "task 5": [said("checked", 5)],
    })
    seen = Recording(engine)
    outcome = await engine.run_plan("run the tests")
    assert outcome.status == "done" and outcome.plan is not None and outcome.plan.replan_count == 3
    third = seen.of("task 3")
    assert len(third) == 2, "one more model call after the replan"
    assert results_seen(third[1])[0].endswith(soft_cap_text(3)), "the soft cap reaches the replanning agent"
    later = seen.of("task 4")[0].messages[0].text
    assert "The plan has been replanned 3 time(s) in this run." in later and soft_cap_text(3) in later
    second_start = seen.of("task 2")[0].messages[0].text
    assert "replanned 1 time(s)" in second_start and soft_cap_text(1) not in second_start
    finished = {e.task_id: e for e in sink.events if isinstance(e, T.TaskFinished)}
    assert finished[3].status is TaskStatus.REPLANNED and finished[3].summary == "I will follow the new plan."


async def test_the_depth_nudge_comes_with_two_model_calls_left_and_complete_task_then_ends_it(
        git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Read everything", "read_file", []))],
        "task 1": [read("app.py"), read("README.md")] * 2 + [said("read all", 1)],
        "task 2": [said("checked", 2)],
    }, max_iterations=6)
    seen = Recording(engine)
    outcome = await engine.run_plan("read")
    assert outcome.status == "done"
    requests = seen.of("task 1")
    nudged = [n for n, r in enumerate(requests) if any(depth_limit_nudge(1, 4) in t for t in results_seen(r))]
    assert nudged == [4], "after the 4th of 6 model calls: two left to act on it"


async def test_a_turn_without_a_tool_call_is_nudged_and_a_second_one_ends_the_task_done(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Say what app.py does", None, []))],
        "task 1": [{"text": "It greets."}, {"text": "It greets, as I said."}],
        "task 2": [{"text": "looks fine"}, said("checked", 2)],
    })
    seen = Recording(engine)
    outcome = await engine.run_plan("explain")
    assert outcome.status == "done"
    first = seen.of("task 1")
    assert len(first) == 2 and first[1].messages[-1].text == no_tool_call_nudge(1)
    finished = {e.task_id: e for e in sink.events if isinstance(e, T.TaskFinished)}
    assert finished[1].status is TaskStatus.DONE and finished[1].summary == "It greets, as I said."
    assert finished[2].status is TaskStatus.DONE and len(seen.of("task 2")) == 2, "a nudge, then complete_task"


async def test_a_fourth_failure_after_three_decisions_stops_without_calling_the_replanner(git_repo: Path) -> None:
    retry = {"text": '{"decision": "retry", "reason": "try again"}'}
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Do the impossible", None, []))],
        "task 1": [read("missing-1.txt")] * 2,
        "replanner": [retry, retry, retry, retry],
        "task 2": [said("checked", 2)],
    }, max_iterations=1)
    seen = Recording(engine)
    outcome = await engine.run_plan("impossible")
    assert outcome.status == "stopped"
    assert len(seen.of("replanner")) == 3, "no fourth replanner call"
    assert len([e for e in sink.events if isinstance(e, T.ReplannerDecided)]) == 3
    assert any("failed" in getattr(e, "message", "") for e in sink.events if isinstance(e, Notice))


async def test_the_same_call_three_times_is_nudged_and_the_fifth_asks_before_it_runs_whose_safe_answer_stops(
        git_repo: Path) -> None:
    approver = ScriptedApprover({"task_plan": ["approve"]})
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Read app.py", "read_file", []))],
        "task 1": [READ] * 6,
        "replanner": [{"text": '{"decision": "skip", "reason": "it loops"}'}],
        "task 2": [said("checked", 2)],
    }, approver, max_iterations=20)
    seen = Recording(engine)
    outcome = await engine.run_plan("read")
    reads = [e for e in sink.events if isinstance(e, ToolCallFinished) and e.name == "read_file"]
    assert len(reads) == 4, "the fifth identical call asked before it ran, and the answer stopped it"
    requests = seen.of("task 1")
    assert len(requests) == 5
    nudges = [any(R.nudge("read_file", n) in t for t in results_seen(r)) for n, r in enumerate(requests)]
    assert nudges == [False, False, False, True, True], "the results of the 3rd and 4th calls carry it"
    [asked] = [r for r in approver.asked if r.kind == "runaway"]
    assert asked.safe == R.STOP and asked.title == "The agent of task 1 repeats itself: let it go on?"
    finished = {e.task_id: e for e in sink.events if isinstance(e, T.TaskFinished)}
    assert finished[1].status is TaskStatus.FAILED and finished[1].summary == R.stopped(R.Repeating("read_file", 4, 1))
    assert outcome.plan is not None


class LongTaskModel:
    """Plans one task that reads a big file part by part, ``parts`` times, then completes; summarises when asked.

    Every request is refused as the Messages API would refuse it, when it breaks the API's rules.
    """

    provider = "scripted"
    model = "claude-test"

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.read = 0
        self.requests: list[Any] = []

    async def stream(self, request):
        from ljtui.core.agent.compression import SUMMARY_SYSTEM
        from ljtui.core.providers.base import StreamEnd, TextDelta, ToolCall
        from ljtui.core.providers.scripted import refuse_invalid

        refuse_invalid(request, self.model)
        self.requests.append(request)
        if request.agent == "decompose":
            yield TextDelta(plan_reply((1, "Read big.txt", "read_file", []))["text"])
        elif request.system == SUMMARY_SYSTEM:
            yield TextDelta(f"SUMMARY: {self.read} parts of big.txt read.")
        elif request.agent == "task 1" and self.read < self.parts:
            start = self.read * 400 + 1
            self.read += 1
            yield ToolCall(f"toolu_{self.read}", "read_file", {"path": "big.txt", "start_line": start,
                                                               "end_line": start + 399})
        else:
            task_id = int(request.agent.split()[1])
            yield ToolCall(f"toolu_done_{task_id}", "complete_task", {"task_id": task_id})
        yield StreamEnd("end_turn")

    async def aclose(self) -> None:
        return None


async def test_a_long_task_is_compressed_keeping_its_task_message_first(git_repo: Path) -> None:
    from ljtui.core.agent.compression import CHARS_PER_TOKEN, estimate_tokens
    from ljtui.core.config import Config
    from ljtui.core.engine import Engine
    from ljtui.core.ports import ListSink

    (git_repo / "big.txt").write_text("a line of a rather big file\n" * 4_000)
    model = LongTaskModel(parts=8)
    config = Config()
    config.agent.max_iterations = 20
    config.agent.compress_at_tokens = 12_000
    sink = ListSink()
    engine = Engine(config, sink, repo_root=git_repo, approver=ScriptedApprover({"task_plan": ["approve"]}),
                    client_factory=lambda cfg: model)
    outcome = await engine.run_plan("read big.txt")
    assert outcome.status == "done", [getattr(e, "message", "") for e in sink.events if isinstance(e, Notice)]
    task = [r for r in model.requests if r.agent == "task 1"]
    working = [r for r in task if r.tools]
    assert model.read == 8 and any(not r.tools for r in task), "the task's history was compressed"
    assert all(r.messages[0].text.startswith("Goal: read big.txt") for r in working), "its task message stays first"
    assert working[-1].system_tail.startswith("# Summary of the earlier conversation\n\nSUMMARY")
    one_part = 400 * 40 // CHARS_PER_TOKEN
    assert max(estimate_tokens(r.system + r.system_tail, r.messages, r.tools) for r in working) \
        <= config.agent.compress_at_tokens + one_part
