"""The engine's task plans and skills (TASK-2…9, PB-6), as part of the engine (``self`` is the Engine).

A goal is run as a task plan; a goal that recalls an active playbook runs
its SOP (the skill ``playbook-<id>``) as the plan, still approved by the
user, and the run's outcome is recorded as the playbook's feedback.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ljtui.core.events import Notice

if TYPE_CHECKING:
    from ljtui.core.engine import Engine
    from ljtui.core.tasks.runner import RunOutcome


class TaskFacade:
    """Task-plan operations of the engine."""

    async def run_plan(self: Engine, goal: str, *, skill: str | None = None) -> RunOutcome:
        """Run ``goal`` as a task plan: decompose (or take skill ``skill``'s steps), ask for approval, run
        the tasks (TASK-2…9, AGENT-8)."""
        from ljtui.core.playbooks.service import SKILL_PREFIX
        from ljtui.core.tasks.runner import TaskRunner

        if skill is None:
            hit = await asyncio.to_thread(self.playbooks.recall, goal)
            if hit is not None:
                skill = SKILL_PREFIX + hit.playbook.id
                self.sink.emit(Notice(f"Recalled playbook {hit.playbook.id} ({hit.playbook.title}): its SOP is "
                                      "proposed as the task plan, to approve like any other."))
        outcome = await TaskRunner(self, goal, skill=skill).run()
        if skill is not None and outcome.status in ("done", "failed"):
            await asyncio.to_thread(self.playbooks.record_skill_outcome, skill, outcome.status == "done")
        elif outcome.status == "done" and outcome.plan is not None and len(outcome.plan.tasks) > 1:
            from ljtui.core.playbooks.service import offer_draft

            await offer_draft(self.playbooks, goal, [t.description for t in outcome.plan.tasks])
        return outcome

    def skill_names(self: Engine) -> tuple[str, ...]:
        """The skills ``/NAME`` can start (disk work: call from a thread); their warnings become notices."""
        from ljtui.core.skills import load_skills

        found = load_skills(self.repo_root)
        for warning in found.warnings:
            self.sink.emit(Notice(warning, "warning"))
        return found.names
