"""The apply result contract (SPEC EDIT-6), validated before it is emitted.

::

    {"status": "done" | "partial" | "error",
     "applied_entry_ids": [...], "failed": [{"entry_id", "reason", "candidates"?}],
     "files": [...], "notes": [...], "message"?: str, "checks"?: [...]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Sequence

DONE, PARTIAL, ERROR = "done", "partial", "error"
STATUSES = (DONE, PARTIAL, ERROR)
REQUIRED_KEYS = ("status", "applied_entry_ids", "failed", "files", "notes")
OPTIONAL_KEYS = ("message", "checks")
EXIT_CODES = {DONE: 0, PARTIAL: 1, ERROR: 2}
"""Process exit code per status."""


class ContractViolation(Exception):
    """A result breaks the contract; ``problems`` names each breach."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class FailedEntry:
    """An entry that was not applied, with why and where to look."""

    entry_id: str
    reason: str
    candidates: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Contract form (``candidates`` only when there are some)."""
        data: dict[str, Any] = {"entry_id": self.entry_id, "reason": self.reason}
        if self.candidates:
            data["candidates"] = self.candidates
        return data


@dataclass
class ApplyResult:
    """The outcome of applying (or previewing) a plan."""

    status: str
    applied_entry_ids: list[str] = field(default_factory=list)
    failed: list[FailedEntry] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    message: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 done, 1 partial, 2 error."""
        return EXIT_CODES[self.status]

    def to_dict(self) -> dict[str, Any]:
        """Contract form, unvalidated."""
        data: dict[str, Any] = {"status": self.status, "applied_entry_ids": list(self.applied_entry_ids),
                                "failed": [f.to_dict() for f in self.failed], "files": list(self.files),
                                "notes": list(self.notes)}
        if self.message is not None:
            data["message"] = self.message
        if self.checks:
            data["checks"] = list(self.checks)
        return data


def contract_problems(data: Any, entry_ids: Sequence[str]) -> list[str]:
    """Every way ``data`` breaks the contract for a plan with ``entry_ids``."""
    if not isinstance(data, dict):
        return ["result must be a JSON object"]
    problems = [f"missing key {k!r}" for k in REQUIRED_KEYS if k not in data]
    problems += [f"unexpected key {k!r}" for k in data if k not in REQUIRED_KEYS + OPTIONAL_KEYS]
    if problems:
        return problems
    status = data["status"]
    if status not in STATUSES:
        problems.append(f"status {status!r} is not one of {', '.join(STATUSES)}")
    for key in ("applied_entry_ids", "failed", "files", "notes"):
        if not isinstance(data[key], list):
            problems.append(f"{key!r} must be a list")
    if problems:
        return problems
    known = set(entry_ids)
    applied = data["applied_entry_ids"]
    failed_ids = []
    for item in data["failed"]:
        if not isinstance(item, dict) or not isinstance(item.get("entry_id"), str) or not item["entry_id"]:
            problems.append("each failed item needs a non-empty 'entry_id'")
            continue
        if not isinstance(item.get("reason"), str) or not item["reason"]:
            problems.append(f"failed entry {item['entry_id']!r} needs a non-empty 'reason'")
        if not isinstance(item.get("candidates", []), list):
            problems.append(f"failed entry {item['entry_id']!r}: 'candidates' must be a list")
        failed_ids.append(item["entry_id"])
    for entry_id in [*applied, *failed_ids]:
        if entry_id not in known:
            problems.append(f"entry id {entry_id!r} does not belong to the plan")
    if set(applied) & set(failed_ids):
        problems.append("an entry cannot be both applied and failed")
    if len(set(applied)) != len(applied) or len(set(failed_ids)) != len(failed_ids):
        problems.append("entry ids must not repeat")
    if status == DONE and failed_ids:
        problems.append("'done' must have no failed entries")
    if status == ERROR and applied:
        problems.append("'error' must have no applied entries")
    if status == PARTIAL and not (applied and failed_ids):
        problems.append("'partial' needs applied and failed entries")
    if status == ERROR and not isinstance(data.get("message"), str):
        problems.append("'error' needs a 'message'")
    for path in data["files"]:
        pure = PurePosixPath(path) if isinstance(path, str) else None
        if pure is None or not path or pure.is_absolute() or ".." in pure.parts:
            problems.append(f"file {path!r} is not a path inside the repo root")
    return problems


def emit(result: ApplyResult, entry_ids: Sequence[str]) -> dict[str, Any]:
    """The result as a contract dict, after validating it.

    Raises:
        ContractViolation: When the result breaks the contract.
    """
    data = result.to_dict()
    problems = contract_problems(data, entry_ids)
    if problems:
        raise ContractViolation(problems)
    return data
