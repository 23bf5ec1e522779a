"""The engine's hook points that belong to no one service: the session's start and end, the user's message,
a question waiting for the user, and ljtui's own events seen as they are reported.

* ``SessionStart`` (``source``: ``startup`` or ``resume``): what the hooks print is context for the model's
  next message;
* ``UserPromptSubmit`` (``prompt``): a block keeps the message from the model (the user reads why); context
  goes with the message, marked as a hook's;
* ``Notification`` (``message``, ``title``): when a question waits for the user; never delays it;
* ``SessionEnd`` (``reason``);
* ``TaskFinished``, ``Replanned``, ``GateChecked`` and ``AfterApply`` run as their core events are reported
  (:class:`HookTap`), beside the work, which they can neither hold nor change.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from ljtui.core.events import Event, Notice, event_to_dict

if TYPE_CHECKING:
    from ljtui.core.approval import ApprovalRequest
    from ljtui.core.hooks.service import SessionHooks
    from ljtui.core.ports import EventSink

OBSERVED = frozenset({"TaskFinished", "TaskPlanUpdated", "GateCheckRecorded", "ApplyFinished"})
"""The core events that fire ljtui's own hook events."""
SETTLE_SECONDS = 120.0
"""Longest wait, as the session ends, for hooks still running on reported events."""


class HookEvents:
    """The hooks the engine fires itself, and those that run beside the work (see the module's docstring)."""

    def __init__(self, hooks: SessionHooks, sink: EventSink) -> None:
        self.hooks = hooks
        self._sink = sink
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running: set[asyncio.Task[Any]] = set()
        self._lock = threading.Lock()
        self._context: list[str] = []
        self._starting: asyncio.Event | None = None
        self.started = False

    async def session_start(self, source: str) -> None:
        """Fire ``SessionStart``; what the hooks say waits for the next message (a message sent meanwhile waits
        for them)."""
        self._loop = asyncio.get_running_loop()
        self.started = True
        self._starting = asyncio.Event()
        try:
            outcome = await self.hooks.fire("SessionStart", {"source": source}, source)
            if outcome.context():
                self._context.append(outcome.context())
        finally:
            self._starting.set()

    async def session_end(self, reason: str) -> None:
        """Wait (bounded) for the hooks running beside the work, then fire ``SessionEnd``."""
        await self.settled(SETTLE_SECONDS)
        if self.started:
            await self.hooks.fire("SessionEnd", {"reason": reason}, reason)

    async def prompt(self, text: str) -> str | None:
        """``text`` as it goes to the model after the ``UserPromptSubmit`` hooks (and what ``SessionStart`` left),
        or ``None`` when a hook kept it back (the user is told why)."""
        self._loop = asyncio.get_running_loop()
        if self._starting is not None:
            await self._starting.wait()
        outcome = await self.hooks.fire("UserPromptSubmit", {"prompt": text})
        stop = outcome.stop
        if outcome.blocked or stop is not None:
            why = outcome.reason() if outcome.blocked else f"{stop.hook.name}: {stop.stop or 'no reason given'}"
            self._sink.emit(Notice(f"Your message was not sent: a UserPromptSubmit hook kept it back.\n{why}",
                                   "warning"))
            return None
        extra = [*self._context, outcome.context()]
        self._context.clear()
        return "\n\n".join(filter(None, [text, *extra]))

    def notify(self, request: ApprovalRequest) -> None:
        """Fire ``Notification`` beside a question that waits for the user."""
        self._spawn("Notification", {"message": f"ljtui needs your answer: {request.title}", "title": request.title,
                                     "notification_type": request.kind}, request.kind)

    def observe(self, event: Event) -> None:
        """Fire ljtui's own hook events for a reported core event (from any thread)."""
        found = _hook_event(event)
        if found is not None:
            self._spawn(*found)

    def _spawn(self, event: str, payload: dict[str, Any], subject: str = "") -> None:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        loop = self._loop = self._loop or running
        if loop is None or loop.is_closed():
            return
        if running is loop:
            self._start(event, payload, subject)
        else:
            try:
                loop.call_soon_threadsafe(self._start, event, payload, subject)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def _start(self, event: str, payload: dict[str, Any], subject: str) -> None:
        task = asyncio.ensure_future(self.hooks.fire(event, payload, subject))
        with self._lock:
            self._running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        with self._lock:
            self._running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            self._sink.emit(Notice(f"A hook could not run: {type(error).__name__}: {error}", "warning"))

    async def settled(self, timeout: float = SETTLE_SECONDS) -> None:
        """Wait until the hooks running beside the work have ended (at most ``timeout`` seconds)."""
        with self._lock:
            running = set(self._running)
        if running:
            await asyncio.wait(running, timeout=timeout)


def _hook_event(event: Event) -> tuple[str, dict[str, Any], str] | None:
    """The hook event a core event fires, its input and subject, or ``None``."""
    if type(event).__name__ not in OBSERVED:  # every event passes here, each streamed token too: a set lookup
        return None
    kind = event.kind
    data = {k: v for k, v in event_to_dict(event).items() if k != "kind"}
    if kind == "task_finished":
        status = str(getattr(event.status, "value", event.status))  # type: ignore[attr-defined]
        return "TaskFinished", {**data, "status": status}, status
    if kind == "task_plan_updated":
        diff = {key: data.pop(key) for key in ("added", "removed", "changed")}
        return "Replanned", {**data, "count": data.get("replan_count"), "diff": diff}, ""
    if kind == "gate_check_recorded":
        evidence = {key: data.pop(key) for key in ("exit_code", "duration_ms", "command", "content_hash", "output")}
        return "GateChecked", {**data, "gate_id": data["gate"], "exit": evidence["exit_code"],
                               "evidence": evidence}, str(data["gate"])
    return "AfterApply", {**data}, ""


class HookTap:
    """An event sink that passes every event on, and lets :class:`HookEvents` see the ones that fire hooks."""

    def __init__(self, inner: EventSink) -> None:
        self.inner = inner
        self.events: HookEvents | None = None

    def emit(self, event: Event) -> None:
        self.inner.emit(event)
        if self.events is not None:
            self.events.observe(event)


async def vet_apply(hooks: SessionHooks, change: dict[str, Any]) -> str | None:
    """Fire ``BeforeApply`` with ``change`` (the blocks about to be written): why a hook vetoes the apply, or
    ``None``. A hook can only keep blocks from being written, never add or widen one."""
    outcome = await hooks.fire("BeforeApply", change, str(change.get("origin", "")))
    if outcome.blocked:
        return f"a BeforeApply hook vetoed the apply; nothing was written.\n{outcome.reason()}"
    stop = outcome.stop
    if stop is not None:
        why = stop.stop or "no reason given"
        return f"a BeforeApply hook stopped the apply; nothing was written: {stop.hook.name}: {why}"
    return None
