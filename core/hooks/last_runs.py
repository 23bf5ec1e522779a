"""Each hook's last result, kept in the user's state dir (``hook-runs.json``) so ``ljtui hooks list`` shows what
the last session saw. Keyed by the repository's real path, then by the hook (:attr:`~ljtui.core.hooks.spec.Hook.key`
hashed); read defensively like every user record: a malformed entry is left out."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.hooks.spec import Hook
from ljtui.core.hooks.verdict import BLOCKED, ERROR, OK, TIMED_OUT, Verdict
from ljtui.core.user_records import RecordsBacked, UserRecords
from ljtui.core.userdirs import user_state_dir

RUNS_FILE = "hook-runs.json"
RUNS_VERSION = 1
MAX_KEPT_HOOKS = 200
"""Hooks kept per repository (the most recent)."""
MAX_REASON_CHARS = 300
OUTCOMES = (OK, BLOCKED, ERROR, TIMED_OUT)


def hook_id(hook: Hook) -> str:
    return hashlib.sha256(hook.key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class LastRuns(RecordsBacked):
    """The last result of each hook of each repository."""

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=RUNS_VERSION, what="hook run list",
                                   when_damaged="no hook's last result is shown", clean=_clean)

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> LastRuns:
        return cls(user_state_dir(env) / RUNS_FILE)

    def of(self, root: Path) -> dict[str, dict[str, Any]]:
        """The repository's last results by :func:`hook_id`."""
        return self.records.load().get(self.key(root), {})

    def record(self, root: Path, verdict: Verdict, when: float) -> None:
        """Keep ``verdict`` as its hook's last result (``OSError``: the file could not be written)."""
        entry = {"outcome": verdict.outcome, "exit_code": verdict.exit_code,
                 "reason": verdict.reason[:MAX_REASON_CHARS], "duration": round(verdict.duration, 3), "when": when}
        with self.records.editing() as repos:
            runs = dict(repos.get(self.key(root), {}))
            runs.pop(hook_id(verdict.hook), None)
            runs[hook_id(verdict.hook)] = entry
            repos[self.key(root)] = dict(list(runs.items())[-MAX_KEPT_HOOKS:])


def as_verdict(hook: Hook, entry: dict[str, Any]) -> Verdict:
    """A kept result as a :class:`Verdict` of ``hook``."""
    return Verdict(hook, entry["outcome"], entry["exit_code"], entry["reason"], duration=entry["duration"])


def _clean(_: str, value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    kept = {key: entry for key, entry in value.items() if isinstance(key, str) and _valid(entry)}
    return kept or None


def _valid(entry: Any) -> bool:
    if not isinstance(entry, dict) or entry.get("outcome") not in OUTCOMES:
        return False
    code, reason, duration, when = (entry.get(k) for k in ("exit_code", "reason", "duration", "when"))
    number = (int, float)
    return ((code is None or (isinstance(code, int) and not isinstance(code, bool)))
            and isinstance(reason, str) and len(reason) <= MAX_REASON_CHARS
            and isinstance(duration, number) and not isinstance(duration, bool) and math.isfinite(duration)
            and isinstance(when, number) and not isinstance(when, bool) and math.isfinite(when))
