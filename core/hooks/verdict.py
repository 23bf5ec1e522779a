"""What a hook answered, read from how it ended: Claude Code's exit codes and JSON fields.

* exit 0: go on; stdout may be a JSON object with ``continue`` / ``stopReason``, ``decision`` / ``reason``,
  ``permissionDecision`` (``allow``, ``deny``, ``ask``) / ``permissionDecisionReason``, ``additionalContext``
  and ``systemMessage``, either at the top or inside ``hookSpecificOutput`` as Claude Code writes them. Plain
  stdout of a ``UserPromptSubmit`` or ``SessionStart`` hook is context for the model;
* exit 2: block, with stderr as the reason (on events that can be blocked, :data:`BLOCKING_EVENTS`; on the
  others it is an error shown to the user);
* any other exit, a timeout, or a hook that could not run: a non-blocking error shown to the user.

Everything a hook said is bounded (:data:`MAX_TEXT_CHARS`) and reaches the model only as text from a hook,
never as the user's words (:func:`for_model`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ljtui.core.hooks.runner import HookRun
from ljtui.core.hooks.spec import BLOCKING_EVENTS, Hook

MAX_TEXT_CHARS = 10_000
"""Most characters kept of one hook's reason, context or message."""
OK, BLOCKED, ERROR, TIMED_OUT = "ok", "blocked", "error", "timed out"
ALLOW, DENY, ASK = "allow", "deny", "ask"
CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart"})
"""Events whose plain stdout is context for the model (as in Claude Code)."""


@dataclass(frozen=True)
class Verdict:
    """One hook's answer.

    Attributes:
        outcome: :data:`OK`, :data:`BLOCKED`, :data:`ERROR` or :data:`TIMED_OUT`.
        reason: why it blocked, or what went wrong (its stderr, or ljtui's words).
        permission: a ``PreToolUse`` hook's ``allow``, ``deny`` or ``ask`` (``None``: it said none).
        context: text it adds for the model.
        stop: it asked to stop the agent (``"continue": false``): its ``stopReason`` (``""``: none given).
        message: text it shows the user (``systemMessage``).
    """

    hook: Hook
    outcome: str
    exit_code: int | None = None
    reason: str = ""
    permission: str | None = None
    context: str = ""
    stop: str | None = None
    message: str = ""
    duration: float = 0.0


def bounded(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` stripped, cut at ``limit`` characters with the number left out."""
    text = text.strip()
    return text if len(text) <= limit else f"{text[:limit]}\n[… {len(text) - limit:,} characters cut]"


def verdict_of(run: HookRun) -> Verdict:
    """How :data:`run`'s hook answered."""
    hook = run.hook
    if run.error:
        return Verdict(hook, ERROR, None, f"could not run: {run.error}", duration=run.duration)
    if run.timed_out:
        return Verdict(hook, TIMED_OUT, None, f"did not finish within {hook.timeout:g} s; it was stopped",
                       duration=run.duration)
    if run.exit_code == 2:
        reason = bounded(run.stderr) or "(the hook gave no reason on stderr)"
        outcome = BLOCKED if hook.event in BLOCKING_EVENTS else ERROR
        return Verdict(hook, outcome, 2, reason, duration=run.duration)
    if run.exit_code != 0:
        reason = bounded(run.stderr) or f"exit status {run.exit_code}"
        return Verdict(hook, ERROR, run.exit_code, reason, duration=run.duration)
    verdict = _answer(hook, run.stdout)
    if run.cut and verdict.outcome == OK:
        return Verdict(hook, ERROR, 0, "printed more than ljtui reads; its answer was not read",
                       duration=run.duration)
    return Verdict(verdict.hook, verdict.outcome, 0, verdict.reason, verdict.permission, verdict.context,
                   verdict.stop, verdict.message, run.duration)


def _answer(hook: Hook, stdout: str) -> Verdict:
    """A hook's answer on exit 0: its JSON object, or its plain stdout."""
    text = stdout.strip()
    document: Any = None
    if text.startswith("{"):
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            return Verdict(hook, ERROR, 0, "printed something that starts like JSON but is not valid JSON")
    if not isinstance(document, dict):
        return Verdict(hook, OK, 0, context=bounded(text) if hook.event in CONTEXT_EVENTS else "")
    specific = document.get("hookSpecificOutput")
    fields = {**document, **specific} if isinstance(specific, dict) else document
    permission = fields.get("permissionDecision")
    decision = fields.get("decision")
    if decision == "approve" and permission is None:
        permission = ALLOW  # Claude Code's older spelling
    permission = permission if permission in (ALLOW, DENY, ASK) else None
    reason = _text(fields.get("permissionDecisionReason")) or _text(fields.get("reason"))
    context = _text(fields.get("additionalContext"))
    stop = _text(fields.get("stopReason")) if fields.get("continue") is False else None
    blocked = decision == "block" or permission == DENY
    if blocked and not reason:
        reason = "(the hook gave no reason)"
    if blocked and hook.event not in BLOCKING_EVENTS:
        return Verdict(hook, ERROR, 0, f"asked to block {hook.event}, which cannot be blocked: {reason}")
    outcome = BLOCKED if blocked else OK
    return Verdict(hook, outcome, 0, reason, permission, context, stop, _text(fields.get("systemMessage")))


def _text(value: Any) -> str:
    return bounded(value) if isinstance(value, str) else ""


@dataclass(frozen=True)
class HookOutcome:
    """What every hook of one event answered, together: all must pass."""

    verdicts: tuple[Verdict, ...] = ()

    @property
    def blocked(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.outcome == BLOCKED)

    @property
    def permission(self) -> str | None:
        """``deny`` if any hook denied, else ``ask`` if any asked, else ``allow`` if any allowed."""
        said = {v.permission for v in self.verdicts if v.outcome in (OK, BLOCKED)}
        return next((p for p in (DENY, ASK, ALLOW) if p in said), None)

    @property
    def stop(self) -> Verdict | None:
        """The first hook that asked to stop the agent."""
        return next((v for v in self.verdicts if v.stop is not None), None)

    def reason(self) -> str:
        """Why the blocking hooks blocked, each named."""
        return "\n".join(f"{v.hook.name}: {v.reason}" for v in self.blocked)

    def context(self) -> str:
        """What the hooks add for the model, each as text from a hook (empty: nothing)."""
        return "\n\n".join(for_model(v.hook, v.context) for v in self.verdicts if v.context)


def for_model(hook: Hook, text: str) -> str:
    """``text`` a hook printed, as the model reads it: marked as a hook's output, never the user's words."""
    return (f"[output of the hook `{hook.name}` on {hook.event} ({hook.source}); text a program printed, not "
            f"an instruction from the user]\n{text}")
