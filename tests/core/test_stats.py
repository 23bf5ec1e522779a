"""Figures over task-plan runs: the recorded fixture, edge cases, and untrusted events."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.runlog import parse_lines
from ljtui.core.stats import MAX_FAILING_HINTS, HintFigures, compute_stats
from tests.fixtures import FIXTURES

RECORDED = FIXTURES / "runlog" / "events.jsonl"


def recorded_events() -> tuple[dict[str, object], ...]:
    read = parse_lines(RECORDED.read_bytes())
    assert read.ignored == 0 and read.other == 1
    return read.events


def test_the_recorded_log_gives_exact_figures() -> None:
    stats = compute_stats(recorded_events())
    assert stats.as_dict() == {
        "runs": 5,  # a, b, c, e, f: the rejected run-d never ran
        "finished_runs": 4,
        "unfinished_runs": 1,  # run-e has no run_finished
        "first_try_successes": 2,  # run-a, and run-f after the fallback plan
        "first_try_success_rate": 0.5,
        "mean_replans_per_run": 0.5,  # (0 + 2 + 0 + 0) / 4
        "failing_tool_hints": [
            {"hint": "bash", "uses": 5, "failures": 2},
            {"hint": "web_fetch", "uses": 1, "failures": 1},  # same failures as edit_file, higher rate
            {"hint": "edit_file", "uses": 4, "failures": 1},
        ],
    }


def test_a_stripped_hint_is_not_counted() -> None:
    stats = compute_stats(recorded_events())
    assert "magic_docs_tool" not in {h.hint for h in stats.failing_tool_hints}
    failing = [e for e in recorded_events() if e.get("run_id") == "run-b"]
    failing.append({"kind": "task_finished", "run_id": "run-b", "task_id": 4, "description": "d", "status": "failed"})
    assert compute_stats(failing).failing_tool_hints == ()


def test_no_runs_means_no_rates() -> None:
    stats = compute_stats([])
    assert (stats.runs, stats.first_try_success_rate, stats.mean_replans_per_run) == (0, None, None)
    assert stats.as_dict()["failing_tool_hints"] == []


def test_only_unfinished_runs_means_no_rates_but_a_count() -> None:
    events = [e for e in recorded_events() if e.get("run_id") == "run-e"]
    stats = compute_stats(events)
    assert (stats.runs, stats.unfinished_runs, stats.first_try_success_rate) == (1, 1, None)
    assert [h.hint for h in stats.failing_tool_hints] == ["edit_file", "web_fetch"]  # a tie: by name


def run(run_id: str, *, status: str = "done", replans: int = 0, failed: int = 0,
        extra: tuple[dict[str, object], ...] = ()) -> list[dict[str, object]]:
    return [{"kind": "task_plan_approved", "run_id": run_id}, *extra,
            {"kind": "run_finished", "run_id": run_id, "status": status, "replans": replans, "failed": failed}]


@pytest.mark.parametrize(("events", "rate"), [
    (run("x"), 1.0),
    (run("x", status="cancelled"), 0.0),
    (run("x", replans=1), 0.0),
    (run("x", failed=1), 0.0),
    (run("x", extra=({"kind": "task_plan_updated", "run_id": "x", "replan_count": 1, "reason": "r",
                      "added": [], "removed": [], "changed": []},)), 0.0),
    (run("x", extra=({"kind": "task_finished", "run_id": "x", "task_id": 1, "status": "failed"},)), 0.0),
])
def test_a_first_try_success_has_no_replan_no_failure_and_a_successful_status(
        events: list[dict[str, object]], rate: float) -> None:
    assert compute_stats(events).first_try_success_rate == rate


def test_a_rejected_plan_is_not_a_run() -> None:
    events = [{"kind": "task_plan_proposed", "run_id": "r", "tasks": []},
              {"kind": "task_plan_rejected", "run_id": "r"},
              {"kind": "run_finished", "run_id": "r", "status": "done", "replans": 0, "failed": 0}]
    assert compute_stats(events).runs == 0


def test_malformed_events_are_skipped() -> None:
    events = [*run("x"), {"kind": "run_finished", "run_id": "y", "status": "done", "replans": "lots", "failed": 0},
              {"kind": "task_plan_approved", "run_id": ["y"]}, "junk", None, 5]
    stats = compute_stats(events)  # type: ignore[arg-type]
    assert (stats.runs, stats.finished_runs) == (1, 1)


def test_hints_added_or_changed_by_a_replan_are_followed() -> None:
    events = run("x", replans=2, extra=(
        {"kind": "task_plan_proposed", "run_id": "x", "tasks": [{"id": 1, "tool_hint": "grep"}]},
        {"kind": "task_plan_updated", "run_id": "x", "replan_count": 1, "reason": "r", "removed": [],
         "added": [{"id": 2, "tool_hint": "bash"}], "changed": [{"id": 1, "after": {"tool_hint": "read_file"}}]},
        {"kind": "task_finished", "run_id": "x", "task_id": 1, "status": "failed"},
        {"kind": "task_finished", "run_id": "x", "task_id": 2, "status": "failed"},
        {"kind": "task_plan_updated", "run_id": "x", "replan_count": 2, "reason": "r", "removed": [],
         "added": [], "changed": [{"id": 2, "tool_hint": "web_fetch"}, "junk", {"id": True, "tool_hint": "x"}]},
    ))
    assert compute_stats(events).failing_tool_hints == (HintFigures("bash", 1, 1), HintFigures("read_file", 1, 1))


def test_at_most_ten_failing_hints_worst_first() -> None:
    tasks = [{"id": i, "tool_hint": f"hint{i:02d}"} for i in range(MAX_FAILING_HINTS + 5)]
    finishes = [{"kind": "task_finished", "run_id": "x", "task_id": t["id"], "status": "failed"}
                for t in tasks for _ in range(t["id"] % 3 + 1)]
    events = run("x", extra=({"kind": "task_plan_proposed", "run_id": "x", "tasks": tasks}, *finishes))
    hints = compute_stats(events).failing_tool_hints
    assert len(hints) == MAX_FAILING_HINTS
    assert [h.failures for h in hints] == sorted((h.failures for h in hints), reverse=True)
    assert hints[0] == HintFigures("hint02", 3, 3)


def test_the_fixture_is_what_the_log_writes(tmp_path: Path) -> None:
    """Every fixture line is a compact JSON object, as :class:`RunLog` writes them, kind and time first."""
    import json

    for raw in RECORDED.read_text(encoding="utf-8").splitlines():
        obj = json.loads(raw)
        assert list(obj)[:2] == ["kind", "time"]
        assert json.dumps(obj, ensure_ascii=False, separators=(",", ":")) == raw
