"""How far an apply is: numbered steps, and the events a front end draws them from (UI-6).

An apply counts its steps up front: one per chunk validated, one per chunk
written (one transaction for an all-or-nothing plan), one for checking the
written files. :func:`~ljtui.core.edits.apply.preview_plan` and
:func:`~ljtui.core.edits.apply.commit_plan` report each step as a
:class:`Step` before it runs, and a last one with ``done == total`` once
everything ran. :class:`StepEvents` turns steps into
:class:`~ljtui.core.review.events.ApplyProgressed` events stamped with the
time the apply began, and says when the apply ended, however it ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ljtui.core.clock import Clock
from ljtui.core.events import Event


@dataclass(frozen=True)
class Step:
    """One step of an apply: what it does (``""`` when nothing is worth a line) and how many ran before it."""

    line: str
    done: int
    total: int


Say = Callable[[Step], None]
"""Receives each step of an apply."""


def step_count(chunks: int, partial: bool) -> int:
    """Steps of an apply of ``chunks`` chunks: validate each, write each (or all at once), check the files."""
    return chunks + (chunks if partial else 1) + 1


class StepEvents:
    """Steps as ``ApplyProgressed`` events on ``emit``, stamped with the time the first of them came.

    Use as a context manager around the apply: on leaving, an event with
    ``ended=True`` follows the last step, so a progress bar is cleared
    whether the apply finished, was refused, failed or was cancelled.
    :meth:`end` may also be called earlier (before asking the user); the
    next step then starts the clock again.
    """

    def __init__(self, emit: Callable[[Event], None], clock: Clock) -> None:
        self._emit = emit
        self._clock = clock
        self._started = 0.0
        self._last: Step | None = None

    def __call__(self, step: Step) -> None:
        """Emit ``step``."""
        from ljtui.core.review.events import ApplyProgressed

        if self._last is None:
            self._started = self._clock.monotonic()
        self._last = step
        self._emit(ApplyProgressed(step.line, step.done, step.total, self._started))

    def line(self, text: str) -> None:
        """A line about the apply that is no step of it (a re-validation, the errors found)."""
        from ljtui.core.review.events import ApplyProgressed

        self._emit(ApplyProgressed(text))

    def end(self) -> None:
        """Say the apply ended (only when a step was reported, and once)."""
        from ljtui.core.review.events import ApplyProgressed

        last, self._last = self._last, None
        if last is not None:
            self._emit(ApplyProgressed("", last.done, last.total, self._started, ended=True))

    def __enter__(self) -> StepEvents:
        return self

    def __exit__(self, *_: object) -> None:
        self.end()
