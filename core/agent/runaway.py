"""The runaway guard: an agent calling the same tool with the same input, for the same result, again and again.

The third identical call in a row is answered with its result and a nudge;
the fifth (and every fifth after it) asks the user whether the agent goes
on. Nobody at the keyboard (a headless run, a denying policy) means the safe
answer: stop. Chat turns and task agents keep one :class:`RepeatGuard` each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.providers.arguments import RefusedArguments

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


def stopped(name: str, repeats: int) -> str:
    """Why a turn or a task ended at the guard."""
    return (f"stopped: the agent called {name} with the same input {repeats} times in a row and got the same "
            "result each time")


def question(name: str, repeats: int, agent: str) -> ApprovalRequest:
    """The question asked at the ``repeats``-th identical call (the safe answer stops)."""
    who = "The agent" if agent == "chat" else f"The agent of {agent}"
    return ApprovalRequest(
        "runaway", f"{who} repeats itself: let it go on?",
        (f"It called {name} {repeats} times in a row with the same input, and got the same result each time.",
         "Stop it to end this " + ("message" if agent == "chat" else "task") + "; files it wrote stay written."),
        (Choice(GO_ON, "Let it go on", "enter"), Choice(STOP, "Stop it", "escape")), STOP, name)


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
        try:
            key = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):
            key = repr(arguments)
        seen = (name, key, result)
        self.repeats = self.repeats + 1 if seen == self._last else 1
        self._last = seen
        return self.repeats

    @staticmethod
    def nudged(repeats: int) -> bool:
        """Whether the result of the ``repeats``-th identical call carries the nudge."""
        return repeats >= REPEATS_NUDGED

    @staticmethod
    def asks(repeats: int) -> bool:
        """Whether the user is asked at the ``repeats``-th identical call."""
        return repeats >= REPEATS_ASKED and repeats % REPEATS_ASKED == 0
