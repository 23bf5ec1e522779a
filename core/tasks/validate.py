"""Validation of a task list the model wrote, shared by decomposition and replanning.

The list is untrusted input. Each item is checked field by field; what can be
repaired is repaired and what cannot is dropped, and every repair is a note a
human (or the model) can read. The result always has unique ids ``first_id ..
first_id + n - 1`` in list order and acyclic dependencies.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ljtui.core.tasks.plan import Task, TaskStatus

MIN_TASKS = 3
"""Fewest tasks a decomposition should have (fewer are kept, with a note)."""
MAX_TASKS = 8
"""Most tasks the model may propose at once; the rest are dropped, with a note."""
MAX_DESCRIPTION_CHARS = 500
"""A longer description is cut to this many characters, with a note."""
MAX_HINT_CHARS = 100
"""A tool hint is cut to this many characters (no known tool or skill name is longer)."""
ELLIPSIS = "…"
REPLACEMENT = "\ufffd"
"""What a lone surrogate becomes."""
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn"})
"""Control, format (bidi overrides …), private-use and unassigned characters."""
_KEPT_FORMAT = frozenset({"\u200d"})
"""The zero-width joiner, which emoji sequences need."""

_WHITESPACE = re.compile(r"\s+")
DEAD_DEPENDENCY = frozenset({TaskStatus.FAILED, TaskStatus.REPLANNED})
"""Statuses of a kept task that a new task may not depend on: it would never run."""


def clean_text(value: str, limit: int) -> tuple[str, bool]:
    """``value`` as one trimmed line of at most ``limit`` characters.

    Control characters (NUL included) go, lone surrogates become U+FFFD, runs of
    whitespace become one space.

    Returns:
        The cleaned text and whether it had to be cut.
    """
    value = "".join(_clean_char(ch) for ch in value)
    value = _WHITESPACE.sub(" ", value).strip()
    if len(value) <= limit:
        return value, False
    return value[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS, True


def _clean_char(ch: str) -> str:
    if ch.isspace():
        return " "
    category = unicodedata.category(ch)
    if category == "Cs":
        return REPLACEMENT
    if category in _DROPPED_CATEGORIES and ch not in _KEPT_FORMAT:
        return ""
    return ch


@dataclass(frozen=True)
class Validated:
    """A checked task list.

    Attributes:
        tasks: The tasks kept, ids renumbered from ``first_id`` in list order.
        notes: One sentence per repair or dropped item.
        invalid: How many items were dropped as unusable (not an object, no description).
    """

    tasks: tuple[Task, ...]
    notes: tuple[str, ...] = ()
    invalid: int = 0


@dataclass
class _Item:
    label: str
    raw_id: int | None
    description: str
    tool_hint: str | None
    raw_deps: list[int] = field(default_factory=list)


def validate_tasks(
    raw: list[Any], *, first_id: int = 1, kept: Mapping[int, TaskStatus] | None = None,
) -> Validated:
    """Check and repair the task list ``raw``.

    Args:
        raw: The ``tasks`` array as decoded from JSON.
        first_id: The id the first kept task gets.
        kept: Tasks already in the plan (id to status) that new tasks may
            depend on. A reference resolves to a task of ``raw`` with that id
            first, then to a kept task.

    Returns:
        The tasks (at most :data:`MAX_TASKS`), with every repair as a note.
    """
    notes: list[str] = []
    items: list[_Item] = []
    seen_ids: set[int] = set()
    invalid = 0
    for position, value in enumerate(raw, start=1):
        item = _read_item(position, value, seen_ids, notes)
        if item is None:
            invalid += 1
        else:
            items.append(item)
    if len(items) > MAX_TASKS:
        notes.append(f"{len(items)} tasks proposed: kept the first {MAX_TASKS}.")
        items = items[:MAX_TASKS]
    edges = _resolve(items, dict(kept or {}), notes)
    return Validated(_number(items, edges, first_id), tuple(notes), invalid)


def _read_item(position: int, value: Any, seen_ids: set[int], notes: list[str]) -> _Item | None:
    label = f"proposed item {position}"
    if not isinstance(value, dict):
        notes.append(f"{label} is not an object: dropped.")
        return None
    raw_id = _read_id(value.get("id"), label, seen_ids, notes)
    if raw_id is not None:
        label = f"proposed task {raw_id}"
    description = value.get("description")
    if not isinstance(description, str):
        notes.append(f"{label} has no description text: dropped.")
        return None
    description, cut = clean_text(description, MAX_DESCRIPTION_CHARS)
    if not description:
        notes.append(f"{label} has an empty description: dropped.")
        return None
    if cut:
        notes.append(f"{label}: description cut to {MAX_DESCRIPTION_CHARS} characters.")
    if raw_id is not None:
        seen_ids.add(raw_id)
    return _Item(label, raw_id, description, _read_hint(value.get("tool_hint"), label, notes),
                 _read_deps(value.get("depends_on"), label, notes))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_id(value: Any, label: str, seen: set[int], notes: list[str]) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or value < 1:
        notes.append(f"{label}: id {_show(value)} is not a positive integer; no task can depend on it.")
        return None
    if value in seen:
        notes.append(f"{label}: id {value} repeats; dependencies on {value} mean the first task with it.")
        return None
    return value


def _read_hint(value: Any, label: str, notes: list[str]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        notes.append(f"{label}: tool_hint {_show(value)} is not text: dropped.")
        return None
    hint, _ = clean_text(value, MAX_HINT_CHARS)
    return hint or None


def _read_deps(value: Any, label: str, notes: list[str]) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list):
        notes.append(f"{label}: depends_on {_show(value)} is not a list: dropped.")
        return []
    deps: list[int] = []
    for dep in value:
        if not _is_int(dep):
            notes.append(f"{label}: dependency {_show(dep)} is not a task id: dropped.")
        elif dep in deps:
            notes.append(f"{label}: dependency on {dep} repeats: kept once.")
        else:
            deps.append(dep)
    return deps


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + ELLIPSIS


_Edge = tuple[str, int]
"""A resolved dependency: ``("new", index)`` into the items or ``("kept", id)``."""


def _resolve(items: list[_Item], kept: dict[int, TaskStatus], notes: list[str]) -> list[list[_Edge]]:
    index_of: dict[int, int] = {}
    for index, item in enumerate(items):
        if item.raw_id is not None:
            index_of.setdefault(item.raw_id, index)
    edges: list[list[_Edge]] = [[] for _ in items]
    forward: list[tuple[int, int]] = []
    for index, item in enumerate(items):
        for dep in item.raw_deps:
            target = index_of.get(dep)
            if target == index:
                notes.append(f"{item.label} depends on itself: dependency dropped.")
            elif target is not None and target < index:
                edges[index].append(("new", target))
            elif target is not None:
                forward.append((index, target))
            elif dep in kept and kept[dep] in DEAD_DEPENDENCY:
                notes.append(f"{item.label} depends on task {dep}, which {kept[dep].value}: dependency dropped.")
            elif dep in kept:
                edges[index].append(("kept", dep))
            else:
                notes.append(f"{item.label} depends on {dep}, which is not in the plan: dependency dropped.")
    for index, target in forward:
        if _reaches(edges, target, index):
            notes.append(f"{items[index].label} -> {items[target].label} closes a cycle: dependency dropped.")
        else:
            edges[index].append(("new", target))
    return edges


def _reaches(edges: list[list[_Edge]], start: int, goal: int) -> bool:
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for kind, target in edges[node]:
            if kind == "new" and target not in seen:
                seen.add(target)
                stack.append(target)
    return False


def _number(items: list[_Item], edges: list[list[_Edge]], first_id: int) -> tuple[Task, ...]:
    def new_id(edge: _Edge) -> int:
        kind, value = edge
        return first_id + value if kind == "new" else value

    return tuple(
        Task(first_id + index, item.description, item.tool_hint, tuple(sorted(new_id(e) for e in edges[index])))
        for index, item in enumerate(items)
    )
