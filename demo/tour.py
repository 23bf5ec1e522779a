"""The demo's guide: one notice per step, each shown when the engine reports the step's start.

A :class:`Tour` is a list of :class:`Step` s. The first step is announced
when the demo opens; each later one when the engine emits the event that
begins it (a plan opened for review, an apply finished …). The tour only
reads events and returns the words to show: it never acts for the user, so
a step begins only when the user really did what the previous one asked.
:class:`Detour` s answer events that leave the path (a dialog cancelled, a
question the recording cannot answer) by repeating what to do now.

Texts are ``str.format`` templates over the facts the front end supplies,
e.g. ``{repo}`` and ``{keys[review.apply]}`` (the key the user's keymap
binds to an action), so the words always name the real keys. A step may
also learn facts from the event that begins it (``learn``), e.g. the id of
the playbook the user just saved, for the words of the steps after it.

Adding a step to the demo is adding a :class:`Step` to the list, in order
(and the model's words for it to the recorded script).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ljtui.core.events import Event, TurnFailed, TurnFinished, TurnStarted

Condition = Callable[[Event], bool]
"""Whether an event is the one a step or detour waits for."""
Learn = Callable[[Event], Mapping[str, Any]]
"""Facts a step takes from the event that begins it."""
Line = tuple[str, str]
"""A notice and its level (info, warning, error)."""


@dataclass(frozen=True)
class Step:
    """One stage of the demo.

    Attributes:
        name: stable id, for tests and logs.
        begins: the event that starts this step; ``None`` for the first step, which starts at once.
        text: what happened and what to do next, as a template.
        again: a short reminder of what to do next, shown after a detour (empty: none).
        chat: the recording answers a message the user types at this step.
        plan: the recording answers a goal the user gives ``/plan`` at this step.
        learn: facts taken from the event that begins the step, added before its text is filled.
        between_turns: an event that also begins the step when it comes while no model turn is running
            (e.g. a dialog answered after a slash command, where no turn will finish).
    """

    name: str
    begins: Condition | None
    text: str
    again: str = ""
    chat: bool = False
    plan: bool = False
    learn: Learn | None = None
    between_turns: Condition | None = None


@dataclass(frozen=True)
class Detour:
    """An event off the demo's path, and what to say about it before repeating the current step's reminder.

    Attributes:
        when: the event it answers.
        text: what to say, as a template.
        level: the notice's level.
        during: the names of the steps it applies at (empty: every step).
    """

    when: Condition
    text: str
    level: str = "info"
    during: tuple[str, ...] = ()


class Tour:
    """Which step the demo is at, and the notices each engine event calls for."""

    def __init__(self, steps: Sequence[Step], detours: Sequence[Detour], facts: Mapping[str, Any]) -> None:
        """
        Args:
            steps: the stages in order; the first has no ``begins``, every other one has.
            detours: events off the path, checked in order (the first that matches speaks).
            facts: the values the templates name, e.g. ``repo`` and ``keys``.

        Raises:
            ValueError: the steps are empty, or ``begins`` is missing where it is needed or set where it is not.
        """
        if not steps:
            raise ValueError("a tour needs at least one step")
        if steps[0].begins is not None or any(s.begins is None for s in steps[1:]):
            raise ValueError("only the first step starts at once; every later step needs 'begins'")
        self.steps = tuple(steps)
        self.detours = tuple(detours)
        self._facts = dict(facts)
        self.index = 0
        self.turn_running = False
        """A model turn has started and not yet finished or failed."""

    @property
    def current(self) -> Step:
        """The step the demo is at."""
        return self.steps[self.index]

    @property
    def finished(self) -> bool:
        """True once the last step has begun."""
        return self.index == len(self.steps) - 1

    def start(self) -> list[Line]:
        """The first step's notice."""
        return [self._say(self.steps[0])]

    def after(self, event: Event) -> list[Line]:
        """The notices ``event`` calls for: the next step's when it begins, a detour's, or none."""
        if isinstance(event, TurnStarted):
            self.turn_running = True
        elif isinstance(event, (TurnFinished, TurnFailed)):
            self.turn_running = False
        if not self.finished:
            following = self.steps[self.index + 1]
            assert following.begins is not None
            idle = following.between_turns
            if following.begins(event) or (idle is not None and not self.turn_running and idle(event)):
                self.index += 1
                if following.learn is not None:
                    self._facts.update(following.learn(event))
                return [self._say(following)]
        for detour in self.detours:
            if detour.when(event) and (not detour.during or self.current.name in detour.during):
                said = f"{self._fill(detour.text)} {self._fill(self.current.again)}".strip()
                return [(said, detour.level)] if said else []
        return []

    def off_script(self, text: str) -> list[Line]:
        """What to say instead of sending a message at a step where the recording has no answer."""
        said = f"{self._fill(text)} {self._fill(self.current.again)}".strip()
        return [(said, "warning")]

    def _say(self, step: Step) -> Line:
        number = self.steps.index(step) + 1
        return (f"Step {number} of {len(self.steps)} — {self._fill(step.text)}", "info")

    def _fill(self, template: str) -> str:
        return template.format_map(self._facts)
