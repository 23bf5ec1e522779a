"""Human decisions: what the engine asks, the answers it accepts, and stock answerers.

Every decision a human makes — confirming an apply or an undo, trusting a
repository, allowing a tool, approving a task plan, confirming a gate — is
one :class:`ApprovalRequest` awaited through the :class:`Approver` port. The
request carries everything the human needs to decide (core writes the
lines a dialog shows, from the same data the action will use) and its
choices, one of which is the safe answer: Escape in a dialog, the default
of a policy, the answer when nobody can be asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence, runtime_checkable

YES = "yes"
NO = "no"


@dataclass(frozen=True)
class Choice:
    """One answer a human can give.

    Attributes:
        id: what the engine receives, e.g. ``yes``, ``session``, ``deny``.
        label: how a dialog or prompt names it.
        key: the key that picks it in a dialog (``enter``, ``escape`` or one character).
    """

    id: str
    label: str
    key: str


@dataclass(frozen=True)
class ApprovalRequest:
    """A question for a human.

    Attributes:
        kind: what is decided: ``apply``, ``undo``, ``export``, ``overwrite``,
            ``trust``, ``permission`` … (policies and scripted answers key on it).
        title: one line, the question.
        lines: what the answer will touch, written by core.
        choices: the possible answers; their keys are distinct.
        safe: the id of the answer that does nothing (Escape, no terminal, a denying policy).
        subject: what the decision is about, e.g. a tool name or a file, for policies and logs.
        text: when not ``None``, the human also types a line of text (e.g. a path); this is its default.
        diff_path: when set, ``lines`` are a unified diff of this file (shown coloured).
        tasks: for a task plan (``kind`` ``task_plan``), the proposed tasks as dicts
            ``{id, description, tool_hint, depends_on, status}``; the answer may carry an edited list.
    """

    kind: str
    title: str
    lines: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = (Choice(YES, "Confirm", "enter"), Choice(NO, "Cancel", "escape"))
    safe: str = NO
    subject: str = ""
    text: str | None = None
    diff_path: str | None = None
    tasks: tuple[dict[str, Any], ...] | None = None

    def __post_init__(self) -> None:
        ids = [c.id for c in self.choices]
        keys = [c.key for c in self.choices]
        if self.safe not in ids or len(set(ids)) != len(ids) or len(set(keys)) != len(keys):
            raise ValueError(f"approval {self.kind!r}: choices need distinct ids and keys and must include {self.safe!r}")

    def choice(self, choice_id: str) -> Choice | None:
        """The choice with ``choice_id``, if the request offers it."""
        return next((c for c in self.choices if c.id == choice_id), None)


@dataclass(frozen=True)
class Decision:
    """A human's answer: the chosen id, the text typed when the request asked for some, and for a
    task plan the task list as the human left it (``None``: as proposed). Core checks an edited
    list like any plan before it runs."""

    choice: str
    text: str | None = None
    tasks: tuple[dict[str, Any], ...] | None = None


def confirm(kind: str, title: str, lines: Sequence[str], confirm_label: str,
            cancel_label: str = "cancel, nothing is written", *, subject: str = "",
            text: str | None = None) -> ApprovalRequest:
    """A yes/no request: Enter confirms, Escape cancels (the safe answer)."""
    return ApprovalRequest(kind, title, tuple(lines),
                           (Choice(YES, confirm_label, "enter"), Choice(NO, cancel_label, "escape")),
                           NO, subject, text)


@runtime_checkable
class Approver(Protocol):
    """Answers the engine's questions."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        """The human's answer to ``request``."""


class DenyAll:
    """Answers every request with its safe choice: the headless default."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(request.safe)


class AllowAll:
    """Answers every request with its first non-safe choice (``--yes``)."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        chosen = next((c.id for c in request.choices if c.id != request.safe), request.safe)
        return Decision(chosen, request.text)


@dataclass
class ScriptedApprover:
    """Answers from a script, for tests and the demo; records every request.

    ``answers`` maps a request kind to a list of answers used in turn (an
    answer is a choice id, or a :class:`Decision`); a kind with no answer
    left gets the safe choice.
    """

    answers: dict[str, list[str | Decision]] = field(default_factory=dict)
    asked: list[ApprovalRequest] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        queue = self.answers.get(request.kind, [])
        if not queue:
            return Decision(request.safe)
        answer = queue.pop(0)
        return answer if isinstance(answer, Decision) else Decision(answer, request.text)
