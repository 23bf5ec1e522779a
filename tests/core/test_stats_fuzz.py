"""The run log is untrusted input: whatever bytes ``.agent/events.jsonl`` holds, the figures are computed, bad
lines are skipped and counted, and nothing raises."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ljtui.core.runlog import FIELDS, parse_lines
from ljtui.core.stats import MAX_COUNT, Stats, compute_stats

KINDS = sorted(FIELDS)
KEYS = sorted({name for fields in FIELDS.values() for name in fields}
              | {"kind", "id", "tool_hint", "after", "description", "depends_on"})
HUGE = st.sampled_from([10**18, -(10**18), 2**63, 10**300, 10**400, MAX_COUNT, MAX_COUNT + 1, -1])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), HUGE, st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.sampled_from(KINDS), st.sampled_from(["run-a", "run-b", "failed", "done", "bash"]),
)
JUNK = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=5)),
    max_leaves=20)


@st.composite
def eventish(draw: st.DrawFn) -> Any:
    """Mostly objects that look like logged events with some fields missing, mistyped or junk."""
    kind = draw(st.sampled_from(KINDS) | st.text(max_size=8))
    obj: dict[str, Any] = {"kind": kind}
    for name, types in FIELDS.get(kind, {}).items():
        if draw(st.integers(0, 9)) == 0:
            continue  # a missing key
        if draw(st.booleans()):
            obj[name] = draw(JUNK)
        elif types[0] is str:
            obj[name] = draw(st.sampled_from(["run-a", "run-b", "failed", "done"]) | st.text(max_size=10))
        elif types[0] is int:
            obj[name] = draw(st.integers(-2, 3) | HUGE)
        else:
            obj[name] = draw(st.lists(JUNK | st.fixed_dictionaries(
                {"id": st.integers(0, 3) | JUNK, "tool_hint": st.sampled_from(["bash", None]) | JUNK}), max_size=4))
    obj.update(draw(st.dictionaries(st.sampled_from(KEYS), JUNK, max_size=2)))
    return draw(st.sampled_from([obj, obj, obj, draw(JUNK)]))


def encoded(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


@st.composite
def log_line(draw: st.DrawFn) -> bytes:
    line = encoded(draw(eventish()))
    damage = draw(st.integers(0, 7))
    if damage == 0:
        return line[: draw(st.integers(0, len(line)))]  # truncated
    if damage == 1:
        return draw(st.binary(max_size=40))  # anything, often not UTF-8
    if damage == 2:
        return line.replace(b"0", b"NaN", 1).replace(b"1", b"Infinity", 1)
    if damage == 3:
        return b"\xff" + line
    return line


def sane(stats: Stats) -> None:
    json.dumps(stats.as_dict(), allow_nan=False)  # finite, JSON-ready figures
    assert stats.runs == stats.finished_runs + stats.unfinished_runs
    assert 0 <= stats.first_try_successes <= stats.finished_runs
    rate = stats.first_try_success_rate
    assert rate is None or 0.0 <= rate <= 1.0
    mean = stats.mean_replans_per_run
    assert mean is None or (math.isfinite(mean) and mean >= 0)
    assert all(0 < h.failures <= h.uses for h in stats.failing_tool_hints)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(log_line(), max_size=30))
def test_any_log_bytes_give_figures_and_a_count_of_what_was_skipped(lines: list[bytes]) -> None:
    data = b"\n".join(lines) + b"\n"
    read = parse_lines(data)
    stats = compute_stats(read.events)
    sane(stats)
    kept = sum(1 for line in data.split(b"\n") if line.strip())  # a damaged line may hold line breaks
    assert read.ignored + stats.unreadable <= kept
    assert stats.unreadable <= len(read.events)


@settings(max_examples=300, deadline=None)
@given(st.lists(eventish(), max_size=30))
def test_compute_stats_itself_takes_any_objects(events: list[Any]) -> None:
    stats = compute_stats(events)
    sane(stats)
    assert stats.unreadable <= len(events)


def test_a_ten_megabyte_line_is_one_unreadable_line() -> None:
    approved = encoded({"kind": "task_plan_approved", "run_id": "a"})
    finished = encoded({"kind": "run_finished", "run_id": "a", "status": "done", "replans": 0, "failed": 0})
    big = encoded({"kind": "task_plan_approved", "run_id": "b" * (10 * 1024 * 1024)})
    read = parse_lines(b"\n".join([approved, big, finished]) + b"\n")
    stats = compute_stats(read.events)
    assert (read.ignored, stats.unreadable, stats.runs, stats.first_try_success_rate) == (1, 0, 1, 1.0)


def test_gate_events_without_a_run_id_are_passed_over_not_counted_as_unreadable() -> None:
    events = [{"kind": "gate_proposed", "gate": "g", "level": 2}, {"kind": "gate_confirmed", "gate": "g", "level": 2},
              {"kind": "gate_started", "gate": "g", "run_id": "gate-run", "level": 2},
              {"kind": "task_plan_approved", "run_id": "a"},
              {"kind": "run_finished", "run_id": "a", "status": "done", "replans": 0, "failed": 0}]
    stats = compute_stats(events)
    assert (stats.runs, stats.first_try_success_rate, stats.unreadable) == (1, 1.0, 0)


def test_counts_past_the_believable_make_a_finish_unreadable() -> None:
    events = [{"kind": "task_plan_approved", "run_id": "a"},
              {"kind": "run_finished", "run_id": "a", "status": "done", "replans": 10**400, "failed": 0}]
    stats = compute_stats(events)
    assert (stats.runs, stats.unfinished_runs, stats.unreadable) == (1, 1, 1)
    sane(stats)


def test_objects_that_are_not_dicts_are_unreadable() -> None:
    stats = compute_stats([None, 7, "x", [1, 2], {"kind": 3}, {"kind": "task_plan_approved", "run_id": 1}])
    assert stats.unreadable == 6 and stats.runs == 0
