"""Figures over the task-plan runs of a run log (``ljtui stats``).

A *run* is the events sharing a ``run_id``; only runs with a
``task_plan_approved`` count (a rejected plan never ran). A run is
*finished* when it has a ``run_finished``; one without (ljtui crashed, or
the run is still going) is counted in ``unfinished_runs`` and left out of
the rates. Over finished runs:

* ``first_try_success_rate``: runs with zero replans and zero failed tasks
  (and a status not in :data:`UNSUCCESSFUL_RUN_STATUSES`), divided by the
  finished runs;
* ``mean_replans_per_run``: the replans of finished runs over their number.

Both are ``None`` when no run finished (no figure, rather than a made-up
0). A run's replans and failed tasks are the larger of what its
``run_finished`` says and what its own events show (``task_plan_updated``,
``task_finished`` with status ``failed``), so a log and a summary that
disagree never flatter the rate.

``failing_tool_hints``: for every tool hint, ``uses`` (``task_finished``
events of approved runs for tasks carrying that hint: a retried task counts
once per attempt) and ``failures`` (those with status ``failed``); hints
that failed at least once, most failures first, then highest failure rate,
at most :data:`MAX_FAILING_HINTS`. A task's hint comes from the plan
(``task_plan_proposed``, then the tasks a ``task_plan_updated`` added or
changed); a ``tool_hint_stripped`` removes it.

The log may hold runs a repository brought with it (a committed
``.agent/events.jsonl``): nothing in an event says where it was recorded.
So every event is untrusted input: one that is not a well-formed event of a
kind the log keeps, or whose counts are past :data:`MAX_COUNT`, is skipped
and counted in ``unreadable``; the figures never fail. Events of other
kinds, and the gate events (gate runs are not task-plan runs; a proposed or
confirmed gate has no run at all), are not runs and are passed over.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ljtui.core.runlog import OTHER_KIND, event_problem

MAX_FAILING_HINTS = 10
"""Tool hints listed in ``failing_tool_hints``."""
FAILED = "failed"
"""Status of a failed task."""
UNSUCCESSFUL_RUN_STATUSES = frozenset({"failed", "cancelled", "stopped", "error"})
"""``run_finished`` statuses that are never a first-try success, whatever the counts say."""
RUN_KINDS = frozenset({"task_plan_proposed", "task_plan_approved", "task_plan_updated", "tool_hint_stripped",
                       "task_finished", "run_finished"})
"""The kinds the figures read; every other kind the log keeps is passed over."""
MAX_COUNT = 1_000_000
"""Largest replan or failure count believed in a ``run_finished``; a larger one makes the event unreadable
(a sum of such counts could not be divided as a float)."""
COUNTS = ("replans", "failed")


@dataclass(frozen=True)
class HintFigures:
    """How tasks carrying one tool hint ended.

    Attributes:
        hint: The tool hint.
        uses: Finished tasks with that hint.
        failures: Those that finished failed.
    """

    hint: str
    uses: int
    failures: int

    @property
    def failure_rate(self) -> float:
        """``failures / uses`` (0 when unused)."""
        return self.failures / self.uses if self.uses else 0.0


@dataclass(frozen=True)
class Stats:
    """The figures of :func:`compute_stats` (see the module docstring).

    Attributes:
        runs: Approved task-plan runs.
        finished_runs: Those with a ``run_finished``.
        unfinished_runs: Those without.
        first_try_successes: Finished runs with no replan and no failed task.
        first_try_success_rate: ``first_try_successes / finished_runs``; ``None`` with no finished run.
        mean_replans_per_run: Mean replans of finished runs; ``None`` with no finished run.
        failing_tool_hints: The hints most often followed by failure, worst first.
        unreadable: Events skipped because they were not well-formed (not in :meth:`as_dict`: the caller
            adds them to the lines it could not read).
    """

    runs: int = 0
    finished_runs: int = 0
    unfinished_runs: int = 0
    first_try_successes: int = 0
    first_try_success_rate: float | None = None
    mean_replans_per_run: float | None = None
    failing_tool_hints: tuple[HintFigures, ...] = ()
    unreadable: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``failing_tool_hints`` as ``[{hint, uses, failures}]``."""
        return {
            "runs": self.runs, "finished_runs": self.finished_runs, "unfinished_runs": self.unfinished_runs,
            "first_try_successes": self.first_try_successes,
            "first_try_success_rate": self.first_try_success_rate,
            "mean_replans_per_run": self.mean_replans_per_run,
            "failing_tool_hints": [{"hint": h.hint, "uses": h.uses, "failures": h.failures}
                                   for h in self.failing_tool_hints],
        }


@dataclass
class _Run:
    approved: bool = False
    finish: Mapping[str, Any] | None = None
    replans: int = 0
    failed: int = 0
    hints: dict[Any, str | None] = field(default_factory=dict)
    finished_tasks: list[tuple[str | None, str]] = field(default_factory=list)
    """``(hint, status)`` of every ``task_finished``, with the hint the task carried then."""


def compute_stats(events: Iterable[Mapping[str, Any]]) -> Stats:
    """The figures over the approved task-plan runs among ``events``; never raises.

    Args:
        events: Event objects as ``ljtui run --json`` prints them, in the order they happened; anything that
            is not a well-formed event is skipped and counted in :attr:`Stats.unreadable`.
    """
    runs: dict[str, _Run] = defaultdict(_Run)
    unreadable = 0
    for event in events:
        usable = _usable(event)
        if usable is None:
            continue
        if not usable:
            unreadable += 1
            continue
        try:
            _fold(runs[event["run_id"]], event)
        except (KeyError, TypeError, ValueError, AttributeError):  # a shape event_problem does not check
            unreadable += 1
    approved = [run for run in runs.values() if run.approved]
    finished = [run for run in approved if run.finish is not None]
    successes = sum(1 for run in finished if _first_try(run))
    replans = sum(max(run.replans, run.finish["replans"]) for run in finished if run.finish is not None)
    return Stats(
        runs=len(approved), finished_runs=len(finished), unfinished_runs=len(approved) - len(finished),
        first_try_successes=successes,
        first_try_success_rate=successes / len(finished) if finished else None,
        mean_replans_per_run=replans / len(finished) if finished else None,
        failing_tool_hints=_failing_hints(approved), unreadable=unreadable,
    )


def _usable(event: object) -> bool | None:
    """Whether ``event`` is a well-formed run event; ``None`` for a well-formed event the figures pass over."""
    try:
        problem = event_problem(event)
    except (TypeError, ValueError, AttributeError, RecursionError):  # not the dict of JSON it claims to be
        return False
    if problem is not None:
        return None if problem.startswith(OTHER_KIND) else False
    if not isinstance(event, dict) or event["kind"] not in RUN_KINDS:
        return None
    if event["kind"] == "run_finished" and any(event[name] > MAX_COUNT for name in COUNTS):
        return False
    return isinstance(event.get("run_id"), str)


def _fold(run: _Run, event: Mapping[str, Any]) -> None:
    """Add one well-formed event to what is known of its run."""
    kind = event["kind"]
    if kind == "task_plan_approved":
        run.approved = True
    elif kind == "task_plan_proposed":
        run.hints.update((task["id"], task.get("tool_hint")) for task in event["tasks"])
    elif kind == "task_plan_updated":
        run.replans += 1
        for task in (*event["added"], *event["changed"]):
            _take_hint(run, task)
    elif kind == "tool_hint_stripped":
        run.hints[event["task_id"]] = None
    elif kind == "task_finished":
        run.finished_tasks.append((run.hints.get(event["task_id"]), event["status"]))
        run.failed += event["status"] == FAILED
    elif kind == "run_finished":
        run.finish = event


def _take_hint(run: _Run, task: object) -> None:
    """Note the hint of a task a replan added or changed (``{id, tool_hint}``, or ``{id, after: {…}}``)."""
    if isinstance(task, Mapping) and isinstance(task.get("after"), Mapping):
        task = {"id": task.get("id", task["after"].get("id")), **task["after"]}
    if isinstance(task, Mapping) and "id" in task and "tool_hint" in task:
        hint = task["tool_hint"]
        if isinstance(hint, (str, type(None))) and isinstance(task["id"], (int, str)) \
                and not isinstance(task["id"], bool):
            run.hints[task["id"]] = hint


def _first_try(run: _Run) -> bool:
    finish = run.finish
    if finish is None or finish["status"] in UNSUCCESSFUL_RUN_STATUSES:
        return False
    return max(run.replans, finish["replans"]) == 0 and max(run.failed, finish["failed"]) == 0


def _failing_hints(runs: Iterable[_Run]) -> tuple[HintFigures, ...]:
    uses: dict[str, int] = defaultdict(int)
    failures: dict[str, int] = defaultdict(int)
    for run in runs:
        for hint, status in run.finished_tasks:
            if hint:
                uses[hint] += 1
                failures[hint] += status == FAILED
    figures = [HintFigures(hint, uses[hint], failures[hint]) for hint in uses if failures[hint]]
    figures.sort(key=lambda h: (-h.failures, -h.failure_rate, h.hint))
    return tuple(figures[:MAX_FAILING_HINTS])
