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
from typing import Any, Callable, Iterator, Protocol, Sequence, overload, runtime_checkable

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


class LazyLines(Sequence[str]):
    """A question's lines written when first read: a costly body (the diff of a large plan) that a policy
    answering unread (``--yes``) never pays for. Read, it is the same lines, compared and hashed as a tuple."""

    def __init__(self, write: Callable[[], Sequence[str]]) -> None:
        self._write: Callable[[], Sequence[str]] | None = write
        self._lines: tuple[str, ...] = ()

    def _read(self) -> tuple[str, ...]:
        if self._write is not None:
            self._lines, self._write = tuple(self._write()), None
        return self._lines

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._read()[index]

    def __len__(self) -> int:
        return len(self._read())

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and self._read() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._read())

    def __repr__(self) -> str:
        return repr(self._read()) if self._write is None else "LazyLines(unread)"


@dataclass(frozen=True)
class ApprovalRequest:
    """A question for a human.

    Attributes:
        kind: what is decided: ``apply``, ``undo``, ``export``, ``overwrite``,
            ``trust``, ``permission`` … (policies and scripted answers key on it).
        title: one line, the question.
        lines: what the answer will touch, written by core (a :class:`LazyLines` when costly to write).
        choices: the possible answers; their keys are distinct.
        safe: the id of the answer that does nothing (Escape, no terminal, a denying policy).
        subject: what the decision is about, e.g. a tool name or a file, for policies and logs.
        text: when not ``None``, the human also types a line of text (e.g. a path); this is its default.
        multiline: the text is a whole passage the human edits (a hunk's new text), not one line.
        diff_path: when set, ``lines`` are a unified diff of this file (shown coloured).
        tasks: for a task plan (``kind`` ``task_plan``), the proposed tasks as dicts
            ``{id, description, tool_hint, depends_on, status}``; the answer may carry an edited list.
    """

    kind: str
    title: str
    lines: Sequence[str] = ()
    choices: tuple[Choice, ...] = (Choice(YES, "Confirm", "enter"), Choice(NO, "Cancel", "escape"))
    safe: str = NO
    subject: str = ""
    text: str | None = None
    multiline: bool = False
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
    return ApprovalRequest(kind, title, lines if isinstance(lines, LazyLines) else tuple(lines),
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
