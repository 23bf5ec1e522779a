"""Builders of EDIT plan text for the edits tests."""

from __future__ import annotations

import itertools
from pathlib import Path

from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import ApplyReport, apply_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.transaction import Transaction
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import FixedClock

DECLARATION = '```json\n{"will_modify": [], "will_add": [], "will_remove": []}\n```\n'


def fence(kind: str, body: str) -> str:
    """A fence long enough for ``body`` (which may hold backtick runs)."""
    longest = max((len(run) for run in body.split("\n") for run in _backtick_runs(run)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{kind}\n{body}{marks}\n"


def _backtick_runs(line: str) -> list[str]:
    return [g for g in "".join(c if c == "`" else " " for c in line).split() if g]


def block(number: int, file: str, old: str, new: str, *, entry: str | None = None, where: str | None = None,
          prose: str = "") -> str:
    """One ``### EDIT`` block; ``old``/``new`` must end with a line break unless empty."""
    lines = [f"### EDIT {number}", "", f"- file: `{file}`"]
    if where is not None:
        lines.append(f"- where: {where}")
    if entry is not None:
        lines.append(f"- entry: `{entry}`")
    text = "\n".join(lines) + "\n\n" + fence("old", old) + "\n" + fence("new", new) + "\n"
    return text + (prose + "\n\n" if prose else "")


def plan_text(*blocks: str, declaration: str = DECLARATION) -> str:
    """Blocks followed by a declaration."""
    return "".join(blocks) + declaration


def id_factory():
    """A deterministic transaction id factory: tx0001, tx0002, …"""
    counter = itertools.count(1)
    return lambda: f"tx{next(counter):04d}"


def apply_text(text: str, root: Path, **options: object) -> ApplyReport:
    """Parse and apply ``text`` with a fixed clock and deterministic ids."""
    options.setdefault("clock", FixedClock())
    options.setdefault("new_id", id_factory())
    return apply_plan(parse_plan(text), root, **options)  # type: ignore[arg-type]


def interrupted_transaction(root: Path, changes: list[FileChange]) -> Transaction:
    """Run a transaction's steps up to and including the writes, then stop as a crash would."""
    tx = Transaction(root, changes, clock=FixedClock(), new_id=id_factory())
    J.ensure_agent_gitignore(tx.root)
    (tx.dir / J.BLOBS).mkdir(parents=True)
    prepared = tx._snapshot()
    J.Manifest(tx.id, 0.0, "apply", [p.record for p in prepared]).save(tx.dir)
    tx._write_all(prepared)
    tx.folders.close()
    return tx
