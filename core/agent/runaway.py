"""The runaway guard: an agent calling the same tool with the same input, for the same result, again and again.

The third identical call in a row is answered with its result and a nudge;
before the fifth (and every fifth after it) runs, the user is asked whether
the agent goes on. Each call of a reply is counted before it runs, in the
reply's order, so a reply of twenty identical calls stops at the fifth.
Nobody at the keyboard (a headless run, a denying policy) means the safe
answer: stop. Chat turns and task agents keep one :class:`RepeatGuard` each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.providers.arguments import RefusedArguments
from ljtui.core.providers.base import ToolCall

REPEATS_NUDGED = 3
"""Identical calls in a row whose result carries the nudge."""
REPEATS_ASKED = 5
"""Identical calls in a row after which the user is asked (and again every as many more)."""
GO_ON = "go_on"
STOP = "stop"


def nudge(name: str, repeats: int) -> str:
    """What the model reads after its ``repeats``-th identical call."""
    return (f"Note: you called {name} with the same input {repeats} times in a row; the result has not changed. "
            "Calling it again will not change it: use what it says, try something else, or finish.")


@dataclass(frozen=True)
class Repeating:
    """A call the guard asks about before it runs: ``ran`` identical calls ran in a row before it, and its
    reply holds ``waiting`` identical calls in a row from it on (itself included)."""

    name: str
    ran: int
    waiting: int


def stopped(seen: Repeating) -> str:
    """Why a turn or a task ended at the guard."""
    return (f"stopped: the agent called {seen.name} with the same input {seen.ran} times in a row and got the "
            f"same result each time; {_asked(seen)} did not run")


def _asked(seen: Repeating) -> str:
    more = "time" if seen.waiting == 1 else "times"
    return f"the {seen.waiting} more {more} its reply asked for it"


def question(seen: Repeating, agent: str) -> ApprovalRequest:
    """The question asked before the next identical call runs (the safe answer stops)."""
    who = "The agent" if agent == "chat" else f"The agent of {agent}"
    return ApprovalRequest(
        "runaway", f"{who} repeats itself: let it go on?",
        (f"It called {seen.name} {seen.ran} times in a row with the same input, and got the same result each "
         f"time; its reply asks for it {seen.waiting} more {'time' if seen.waiting == 1 else 'times'}.",
         "Stop it to end this " + ("message" if agent == "chat" else "task") + "; files it wrote stay written."),
        (Choice(GO_ON, "Let it go on", "enter"), Choice(STOP, "Stop it", "escape")), STOP, seen.name)


def _key(arguments: object) -> str:
    try:
        return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(arguments)


@dataclass
class RepeatGuard:
    """The last call and result of one agent, and how many times in a row they repeated."""

    _last: tuple[str, str, str] | None = None
    repeats: int = 0

    def see(self, name: str, arguments: object, result: str) -> int:
        """Count one call; how many identical calls (same tool, input and result) end here in a row.

        A call that was refused before it ran (arguments too large, past the per-reply cap) is not counted.
        """
        if isinstance(arguments, RefusedArguments):
            return 0
        seen = (name, _key(arguments), result)
        self.repeats = self.repeats + 1 if seen == self._last else 1
        self._last = seen
        return self.repeats

    def before(self, calls: Sequence[ToolCall], index: int) -> Repeating | None:
        """Whether to ask before ``calls[index]`` runs: it would be an asked-about repeat if its result is the
        same again (counted before it runs, so no call of a long reply of repeats runs unasked)."""
        call = calls[index]
        if isinstance(call.input, RefusedArguments) or self._last is None:
            return None
        key = _key(call.input)
        if self._last[:2] != (call.name, key) or not self.asks(self.repeats + 1):
            return None
        waiting = 0
        for later in calls[index:]:
            if later.name != call.name or isinstance(later.input, RefusedArguments) or _key(later.input) != key:
                break
            waiting += 1
        return Repeating(call.name, self.repeats, waiting)

    @staticmethod
    def nudged(repeats: int) -> bool:
        """Whether the result of the ``repeats``-th identical call carries the nudge."""
        return repeats >= REPEATS_NUDGED

    @staticmethod
    def asks(repeats: int) -> bool:
        """Whether the user is asked at the ``repeats``-th identical call."""
        return repeats >= REPEATS_ASKED and repeats % REPEATS_ASKED == 0
