"""Where a plain message goes (TASK-1, AGENT-8): the conversation agent, a task plan, or a skill's plan.

One short model call (agent ``router``, no tools, :data:`ROUTER_MAX_TOKENS`,
quiet) reads the message and the skills' names and descriptions and answers
with a fixed JSON shape::

    {"route": "chat" | "plan", "skill": "<name>" | null, "reason": "..."}

The call is announced (``model_call_started``) but its text is not shown. Only
the model's own, finished answer is read (:mod:`ljtui.core.tasks.own_answer`): an
object its prompt already holds is an echo, not an answer, and a reply cut off
at :data:`ROUTER_MAX_TOKENS` is not read. :func:`parse_route` checks the answer
and never raises: an unusable reply, or a skill that does not exist, routes to
chat with a sentence saying why, so the message is never lost. A call that
fails (the provider's error, after its retries) is not followed by a chat call
that would meet the same provider and wait as long again: :func:`route_message`
raises it, and the message ends as a failed turn. ``agent.routing: chat``
skips the call; ``agent.router_model`` names a (small, fast) model for it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ljtui.core.providers.base import ChatRequest, Message
from ljtui.core.tasks.own_answer import Reply, find_answer
from ljtui.core.tasks.validate import clean_text

if TYPE_CHECKING:
    from ljtui.core.agent.kit import AgentKit

ROUTER_AGENT = "router"
"""The ``agent`` of the routing call (the scripted provider replays this agent's own turns)."""
ROUTER_MAX_TOKENS = 256
"""Longest routing reply asked for: one small JSON object."""
SKILL_LISTING_CHARS = 4000
"""Most characters of skill names and descriptions the router is shown."""
MAX_REASON_CHARS = 200
"""A router's reason is cut to this many characters."""
MAX_SKILL_NAME_CHARS = 80
"""A skill name longer than this is not looked up (it is shown cut in the notice)."""

CHAT, PLAN = "chat", "plan"
"""The two routes."""
ROUTES = (CHAT, PLAN)
ROUTING_MODEL, ROUTING_CHAT = "model", "chat"
"""Values of ``agent.routing``: ask the model, or send every plain message to chat."""
ROUTE_KEY = "route"

ROUTER_SYSTEM = """You route one message a user typed to a coding agent working in their repository.
Reply with one JSON object and nothing else:

{"route": "chat" | "plan", "skill": "<skill name>" | null, "reason": "<one short sentence>"}

- "chat": a question, a discussion, or a change one agent can make in a few steps. Most messages are chat;
  when in doubt, chat.
- "plan": a bigger job with several distinct steps (read, change several parts, verify) that is worth
  splitting into a task plan the user approves before anything runs.
- "skill": the name of one skill below whose description fits the request; null when none fits.
  A named skill's steps become the task plan.

Skills:
{skills}"""
"""System prompt of the routing call; ``{skills}`` is filled in."""

NO_SKILLS = "(none)"


@dataclass(frozen=True)
class Route:
    """Where a message goes.

    Attributes:
        route: ``chat`` or ``plan``.
        skill: The skill whose steps are the plan, or ``None``.
        reason: The router's short reason (or why routing fell back to chat).
        problem: A sentence for the user when the router's answer was not used as given; empty otherwise.
    """

    route: str
    skill: str | None = None
    reason: str = ""
    problem: str = ""


def router_system(skill_listing: str) -> str:
    """The routing prompt listing the skills (``name: description`` lines)."""
    return ROUTER_SYSTEM.replace("{skills}", skill_listing.strip() or NO_SKILLS)


def router_request(text: str, skill_listing: str, model: str = "") -> ChatRequest:
    """The routing call for message ``text``: no tools, a small reply, asked of ``model`` (empty: the
    session's model)."""
    return ChatRequest(router_system(skill_listing), (Message.user(text),), (), ROUTER_MAX_TOKENS,
                       agent=ROUTER_AGENT, model=model.strip() or None)


def parse_route(text: str, known_skills: Collection[str], prompt: Collection[str] = ()) -> Route:
    """Read the router's reply; never raises.

    Args:
        text: The raw reply.
        known_skills: The skills that exist.
        prompt: The texts the router was sent; an object they hold is not its answer.

    Returns:
        The route. An unusable reply, or a skill that does not exist, routes
        to chat with ``problem`` saying why; a named skill that exists routes
        to a plan whatever ``route`` said.
    """
    found = find_answer(text, ROUTE_KEY, prompt)
    if found.value is None:
        return _chat(f"the router's answer could not be read ({found.error}: {found.detail})")
    value = found.value
    route = value.get(ROUTE_KEY)
    raw_reason = value.get("reason", "")
    reason = clean_text(raw_reason, MAX_REASON_CHARS)[0] if isinstance(raw_reason, str) else ""
    if route not in ROUTES:
        shown = clean_text(str(route), MAX_SKILL_NAME_CHARS)[0]
        return _chat(f"the router's answer could not be read (\"route\" is {shown!r}, not chat or plan)")
    skill = value.get("skill")
    if skill is None or skill == "":
        return Route(route, None, reason)
    if not isinstance(skill, str):
        return _chat(f"the router's answer could not be read (\"skill\" is a {type(skill).__name__})", reason)
    name = skill.strip().removeprefix("/")
    if name not in known_skills:
        shown = clean_text(name, MAX_SKILL_NAME_CHARS)[0]
        return _chat(f"the router named the skill {shown!r}, which does not exist", reason)
    return Route(PLAN, name, reason)


def read_route(reply: Reply, known_skills: Collection[str]) -> Route:
    """Read the router's reply as :func:`parse_route` does; one cut off at its ``max_tokens`` is not read."""
    if reply.cut:
        return _chat(f"the router's answer could not be read (cut off at max_tokens: it reached the "
                     f"{reply.max_tokens:,} tokens a routing answer may take)")
    return parse_route(reply.text, known_skills, reply.prompt)


def _chat(problem: str, reason: str = "") -> Route:
    return Route(CHAT, None, reason, problem)


def routed_line(route: Route) -> str:
    """The one line the Conversation shows for a message routed to a plan (empty for chat)."""
    if route.route == CHAT:
        return ""
    target = f"the skill {route.skill!r}" if route.skill else "a task plan"
    return f"Routed to {target}" + (f": {route.reason}" if route.reason else ".")


async def route_message(kit: AgentKit, text: str) -> Route:
    """Decide where ``text`` goes: one announced, quiet model call, or chat when ``agent.routing`` is ``chat``.

    The call is retried like any model call; its token use is recorded when
    it has any (a scripted default answer has none). An answer that cannot be
    used (an echo of the prompt, a reply cut off at its token limit) routes to
    chat with ``problem`` saying why; cancelling raises ``CancelledError``.

    Raises:
        ProviderError: The call failed after its retries (or no client could be built from the
            configuration): the message goes nowhere, and the caller reports it as a failed turn.
    """
    import asyncio

    from ljtui.core.skills import load_skills

    agent = kit.settings.config.agent
    if agent.routing == ROUTING_CHAT:
        return Route(CHAT, None, "agent.routing is chat")
    skills = await asyncio.to_thread(load_skills, kit.root)
    request = router_request(text, skills.prompt_listing(SKILL_LISTING_CHARS), agent.router_model)
    return read_route(await _call(kit, request), skills.names)


async def _call(kit: AgentKit, request: ChatRequest) -> Reply:
    """The router's redacted reply and how it stopped.

    Raises:
        ProviderError: The call failed; a provider that cannot be built from the configuration is a
            ``config`` error.
    """
    from ljtui.core.providers.base import ProviderError
    from ljtui.core.tasks.quiet_call import ask

    turn = kit.turns.value + 1  # the turn the message becomes, chat or plan
    try:
        return await ask(kit, turn, request)
    except ValueError as exc:  # a provider that cannot be built from the configuration
        raise ProviderError("config", str(exc)) from None
