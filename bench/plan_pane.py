"""Benchmark: what one tick of the Plan pane's clock costs, against a full re-layout of the screen.

A headless app (Textual's test driver) shows a run of nine tasks, all
running. Each sample advances the app's clock by one second and times, on
the event loop, (a) the pane's tick: the timer's callback and the repaint
of the task lines it asks for, no layout; and (b) the reference, measured
in the same run: a re-layout of the main screen and a redraw of every
widget on it (what a tick would cost if it refreshed the screen rather than
the task lines). Prints medians, p95, the ratio, and the share of one CPU
the tick takes at one tick a second.

    python bench/plan_pane.py [--samples 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TASKS = 9
"""The most tasks a plan has."""
COLUMNS, LINES = 120, 40
PERCENTILE = 95


async def measure(samples: int) -> tuple[list[float], list[float]]:
    from ljtui.core.approval import ApprovalRequest, Choice
    from ljtui.core.ports import FixedClock
    from ljtui.core.tasks.events import TaskPlanApproved, TaskStarted
    from textual.geometry import Region

    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.messages import EngineEventPosted
    from ljtui.tui.widgets.plan_lines import PlanLines
    from ljtui.tui.widgets.plan_pane import PlanPane

    repo = Path(tempfile.mkdtemp(prefix="ljtui-bench-plan-"))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    tasks = tuple({"id": i, "description": f"Step {i} of the benchmark plan", "tool_hint": "edit_file",
                   "depends_on": [i - 1] if i > 1 else [], "status": "pending"} for i in range(1, TASKS + 1))
    request = ApprovalRequest("task_plan", "Run this plan?", (), (Choice("approve", "Run it", "enter"),
                              Choice("reject", "Reject", "escape")), "reject", "bench", tasks=tasks)
    clock = FixedClock()
    app = LjtuiApp(repo, overrides={"provider.name": "scripted"}, clock=clock, cursor_blink=False, watch=False)
    tick, relayout = [], []
    async with app.run_test(size=(COLUMNS, LINES)) as pilot:
        waiting = asyncio.ensure_future(app.approver.decide(request))
        while not app.main_screen.query_one(PlanPane).approving:
            await pilot.pause()
        await pilot.press("enter")
        await waiting
        app.post_message(EngineEventPosted(TaskPlanApproved("bench")))
        for task in tasks:
            app.post_message(EngineEventPosted(TaskStarted("bench", task["id"], task["description"])))
        await pilot.pause()
        pane = app.main_screen.query_one(PlanPane)
        lines = pane.query_one("#plan-tasks", PlanLines)
        region = Region(0, 0, lines.size.width, lines.size.height)
        screen = app.screen
        widgets = list(screen.walk_children())
        for _ in range(samples):
            clock.advance(1)
            start = time.perf_counter()
            pane._tick()  # what the timer runs: a repaint of the task lines
            lines.render_lines(region)
            tick.append(time.perf_counter() - start)
            clock.advance(1)
            start = time.perf_counter()
            screen._refresh_layout(app.size)  # a tick that re-laid out and redrew the whole screen
            for widget in widgets:
                widget.refresh()
            screen._compositor.render_update(full=True)
            relayout.append(time.perf_counter() - start)
    return tick, relayout


def _p(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    tick, relayout = asyncio.run(measure(args.samples))
    for name, values in (("tick (repaint)", tick), ("reference (re-layout)", relayout)):
        print(f"{name:24} median {statistics.median(values) * 1000:7.3f} ms   "
              f"p{PERCENTILE} {_p(values, PERCENTILE) * 1000:7.3f} ms")
    print(f"ratio reference / tick (medians): {statistics.median(relayout) / statistics.median(tick):.2f}x")
    print(f"tick share of one CPU at one tick a second: {statistics.median(tick) * 100:.2f}%")


if __name__ == "__main__":
    main()
