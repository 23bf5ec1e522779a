"""The session's task plans and skills (TASK-1…9, PB-6).

A plain message is routed first (:mod:`ljtui.core.tasks.route`): one short
model call sends it to the conversation agent, to a task plan, or to a
skill's steps as the plan. A goal is run as a task plan; a goal that
recalls an active playbook runs its SOP (the skill ``playbook-<id>``) as the
plan, still approved by the user, and the run's outcome is recorded as the
playbook's feedback.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ljtui.core.agent.chat import Conversation, TurnResult
from ljtui.core.agent.kit import AgentKit
from ljtui.core.events import Notice

if TYPE_CHECKING:
    from ljtui.core.playbooks.service import PlaybookService
    from ljtui.core.tasks.runner import RunOutcome

CHAT_FALLBACK = "; the message goes to the conversation agent."
"""Ends the notice of a routing that fell back to chat."""
ROUTING_CANCELLED = "Cancelled while routing the message: nothing was sent to the agent."
"""What the user reads when they cancel a message before it was routed."""
GOAL_SHOWN_CHARS = 120
"""The most of a goal a notice quotes."""


def recalled_line(goal: str, playbook_id: str, title: str) -> str:
    """The notice of a plan taken from a recalled playbook: the goal it is for, and the playbook it came from
    (whose title names the goal it was written for)."""
    from ljtui.core.display import shown_line

    quoted = shown_line(goal.strip())
    if len(quoted) > GOAL_SHOWN_CHARS:
        quoted = quoted[:GOAL_SHOWN_CHARS - 1] + "…"
    return (f"Plan for '{quoted}', from playbook {playbook_id} ({shown_line(title)}): its SOP is proposed as the "
            "task plan, to approve like any other.")


class SessionTasks:
    """Routes plain messages and runs task plans, given the agent kit, the conversation a message routed to
    chat goes to, and the playbooks (recalled for a goal, told how a run that followed one ended)."""

    def __init__(self, kit: AgentKit, *, chat: Conversation, playbooks: PlaybookService) -> None:
        self._kit = kit
        self._chat = chat
        self._playbooks = playbooks

    async def handle_message(self, text: str) -> TurnResult | RunOutcome | None:
        """A plain message (TASK-1, AGENT-8): routed, then run as a chat turn or a task plan.

        The routing is reported as ``message_routed``; a message routed to a
        plan (or a skill) is also announced by a notice, and one whose router
        answered something unusable goes to chat with a notice saying why. A
        routing call that failed ends the message as a failed turn
        (``turn_failed``, as a failed chat call does): a chat call would meet
        the same provider and make the user wait as long again.

        Returns:
            The chat turn's result (``None`` when it, or the routing call, failed) or the task plan's outcome.
        """
        from ljtui.core.providers.base import ProviderError
        from ljtui.core.tasks.events import MessageRouted
        from ljtui.core.tasks.route import CHAT, route_message, routed_line

        sink = self._kit.sink
        try:
            route = await route_message(self._kit, text)
        except asyncio.CancelledError:
            sink.emit(Notice(ROUTING_CANCELLED, "warning"))
            raise
        except ProviderError as exc:
            self._kit.model.failed(self._kit.turns.next(), exc)
            return None
        sink.emit(MessageRouted(route.route, route.skill, route.reason or route.problem))
        if route.problem:
            sink.emit(Notice(route.problem[0].upper() + route.problem[1:] + CHAT_FALLBACK, "warning"))
        if route.route == CHAT:
            return await self._chat.run_turn(text)
        sink.emit(Notice(routed_line(route)))
        return await self.run_plan(text, skill=route.skill)

    async def run_plan(self, goal: str, *, skill: str | None = None) -> RunOutcome:
        """Run ``goal`` as a task plan: decompose (or take skill ``skill``'s steps), ask for approval, run
        the tasks (TASK-2…9, AGENT-8)."""
        from ljtui.core.playbooks.skills import SKILL_PREFIX
        from ljtui.core.tasks.runner import TaskRunner

        playbooks = self._playbooks
        if skill is None:
            hit = await asyncio.to_thread(playbooks.recall, goal)
            if hit is not None:
                skill = SKILL_PREFIX + hit.playbook.id
                self._kit.sink.emit(Notice(recalled_line(goal, hit.playbook.id, hit.playbook.title)))
        playbooks.following = skill.removeprefix(SKILL_PREFIX) if skill and skill.startswith(SKILL_PREFIX) else None
        try:
            outcome = await TaskRunner(self._kit, goal, skill=skill).run()
        finally:
            playbooks.following = None
        if skill is not None and outcome.status in ("done", "failed"):
            await asyncio.to_thread(playbooks.record_skill_outcome, skill, outcome.status == "done")
        elif outcome.status == "done" and outcome.plan is not None and len(outcome.plan.tasks) > 1:
            from ljtui.core.playbooks.service import offer_draft

            await offer_draft(playbooks, goal, [t.description for t in outcome.plan.tasks])
        return outcome

    def skill_names(self) -> tuple[str, ...]:
        """The skills ``/NAME`` can start (disk work: call from a thread); their warnings become notices."""
        from ljtui.core.skills import load_skills

        found = load_skills(self._kit.root)
        for warning in found.warnings:
            self._kit.sink.emit(Notice(warning, "warning"))
        return found.names
