"""Gate files written by hand, as a user or a cloned repository would have them."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.gates.model import CheckItem, Evidence, Factors, HistoryEntry

NOW = 1_800_000_000.0
FACTORS = Factors(0.6, 0.7, 0.9, False, True)
ITEMS = (CheckItem("tests", "Unit tests pass", "pytest -q"),
         CheckItem("lint", "Lint is clean", "ruff check `git ls-files '*.py'`", required=False))

HAND_WRITTEN = """\
---
id: {id}
title: Change the public API
level: 3
confirmed_by_user: false
factors:
  change_surface: 0.6
  chain_length: 0.7
  cognitive_density: 0.9
  objectively_verifiable: false
  irreversible: true
stats:
  runs: 0
  passed: 0
  failed: 0
  reworks: 0
created: '2027-01-15T08:00:00.000Z'
updated: '2027-01-15T08:00:00.000Z'
---

Ask Dana before loosening the contract tests.

## Checklist

- [required] `tests` — Unit tests pass: `pytest -q`
- [optional] `lint` — Lint is clean: `` ruff check `git ls-files '*.py'` ``

## History
"""


def gates_dir(root: Path) -> Path:
    folder = root / ".agent" / "gates"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_gate(root: Path, gate_id: str = "api", text: str | None = None) -> Path:
    """A gate file ``gate_id`` with ``text`` (the hand-written template by default)."""
    path = gates_dir(root) / f"{gate_id}.md"
    path.write_text(HAND_WRITTEN.format(id=gate_id) if text is None else text, encoding="utf-8")
    return path


def evidence(item: str = "tests", exit_code: int | None = 0, **fields: object) -> Evidence:
    values: dict[str, object] = {"command": "pytest -q", "duration_ms": 1234, "output": "3 passed",
                                 "content_hash": "9f86d081884c", "agent": "chat", "verifier": "", "at": NOW + 5}
    values.update(fields)
    return Evidence(item=item, exit_code=exit_code, **values)  # type: ignore[arg-type]


def run(run_id: str, outcome: str, *items: Evidence, at: float = NOW + 10) -> HistoryEntry:
    return HistoryEntry(run_id, outcome, at, items)  # type: ignore[arg-type]
