"""A staged change written as one EDIT plan, to be reviewed and applied atomically (GATE-4 delivery).

Each changed file becomes EDIT blocks in ljtui's plan format
(:mod:`ljtui.core.edits.plan_format`): one block per changed run of lines
(difflib opcodes), applied top to bottom, each ``old`` widened with lines of
context until it occurs exactly once in the file as the earlier blocks left
it, and neighbouring blocks merged when their contexts would overlap. A new
file is a block with an empty ``old``. The plan ends with the format's
declarations block.

What the format cannot say is never dropped silently; it is listed in
``skipped`` with the reason: removing a file, binary or non-UTF-8 content,
a new file (or an emptied-then-filled one) whose last line has no line
break where the format's fences always end with one, a path the format
refuses, a symbolic link or executable bit. Every file's blocks are checked
before they are kept: parsed back with the real parser and applied with the
real anchor matcher to the current bytes, they must give exactly the staged
bytes.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Iterable

from ljtui.core.edits.anchors import replace_once
from ljtui.core.edits.paths import check_spelling
from ljtui.core.edits.plan import DECLARATION_KEYS
from ljtui.core.edits.plan_format import PlanParseError, parse_plan
from ljtui.core.gates.workspace import StagedChange

MIN_FENCE = 3
"""Shortest fence; longer when the text holds a run of backticks this long."""
EXHAUSTIVE_CONTEXT = 8
"""Up to this many context lines every split between above and below is tried; past it, both sides double."""
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
"""A line with its break, split exactly as the plan parser splits plan text."""
_BACKTICKS = re.compile(r"`+")
_BREAKS = ("\r\n", "\r", "\n")


@dataclass(frozen=True)
class DeliveryPlan:
    """The staged change as an EDIT plan.

    Attributes:
        text: the plan (``""`` when no file can be delivered).
        files: the paths the plan changes, sorted.
        skipped: ``(path, reason)`` of each staged change the plan does not carry.
        notes: ``(path, note)`` caveats for files the plan does carry.
    """

    text: str
    files: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    notes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class _Block:
    old: str
    new: str
    line: int


def delivery_plan(changes: Iterable[StagedChange]) -> DeliveryPlan:
    """The staged ``changes`` as one EDIT plan, with what it cannot carry listed and why.

    Args:
        changes: the staged changes against the user's current tree (``before`` is the current bytes).
    """
    sections: list[str] = []
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    notes: list[tuple[str, str]] = []
    number = 1
    for change in sorted(changes, key=lambda c: c.path):
        if change.before == change.after and not change.reason:
            continue
        blocks = _file_blocks(change)
        if isinstance(blocks, str):
            skipped.append((change.path, blocks))
            continue
        section = "".join(_render(change.path, n, b) for n, b in enumerate(blocks, number))
        problem = _check(section, change)
        if problem is not None:
            skipped.append((change.path, problem))
            continue
        sections.append(section)
        files.append(change.path)
        if change.note:
            notes.append((change.path, change.note))
        number += len(blocks)
    if not sections:
        return DeliveryPlan("", (), tuple(skipped), tuple(notes))
    declarations = json.dumps({key: [] for key in DECLARATION_KEYS})
    return DeliveryPlan("".join(sections) + f"```json\n{declarations}\n```\n", tuple(files), tuple(skipped),
                        tuple(notes))


def _file_blocks(change: StagedChange) -> list[_Block] | str:
    """The blocks that turn ``before`` into ``after``, or why the format cannot carry this change."""
    if change.reason:
        return change.reason
    if change.after is None:
        return "staging removed it; an EDIT plan cannot remove a file (remove it by hand after delivery)"
    path_problem = _path_problem(change.path)
    if path_problem:
        return path_problem
    after = _text(change.after)
    before = _text(change.before) if change.before is not None else ""
    if after is None or before is None:
        return "it is binary or not UTF-8 text; an EDIT plan carries UTF-8 text only"
    if change.before is None:
        if after and not after.endswith(_BREAKS):
            return ("its last line has no line break, and an EDIT plan can only create a file that ends with one "
                    "(its fences always end with a line break)")
        return [_Block("", after, 1)]
    if not before:
        return "it was an empty file, and an EDIT block needs existing text to anchor on"
    if after and not after.endswith(_BREAKS) and before.endswith(_BREAKS):
        return "staging removed its final line break, which an EDIT plan cannot do"
    return _modify(before, after)


def _text(data: bytes) -> str | None:
    """``data`` as text, or ``None`` when it is not UTF-8 or holds a NUL byte (binary)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _path_problem(path: str) -> str:
    refused = check_spelling(path)
    if refused is not None:
        return f"its path cannot be written in a plan: {refused.message}"
    if path != path.strip() or any(brk in path for brk in _BREAKS):
        return "its path begins or ends with a space or holds a line break, which a plan's file line cannot carry"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "its path is not valid UTF-8, which a plan's file line cannot carry"
    return ""


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _modify(before: str, after: str) -> list[_Block] | str:
    """Blocks for a changed file, top to bottom, each checked against the text the earlier ones leave."""
    a, b = _lines(before), _lines(after)
    done: list[tuple[tuple[int, int, int, int], int, int, _Block]] = []
    for hunk in _hunks(a, b):
        while True:
            found = _anchor(a, b, hunk)
            if found is None:
                return "no unique anchor was found for one of its changes"
            above, below, block = found
            if done and hunk[2] - above < done[-1][0][3] + done[-1][2]:
                previous = done.pop()[0]
                hunk = (previous[0], hunk[1], previous[2], hunk[3])
                continue
            break
        done.append((hunk, above, below, block))
    return [block for *_, block in done]


def _hunks(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """``(i1, i2, j1, j2)`` of each changed run; the common head and tail are set aside first (difflib is
    quadratic on repeated lines)."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail], autojunk=False)
    return [(i1 + head, i2 + head, j1 + head, j2 + head)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _anchor(a: list[str], b: list[str], hunk: tuple[int, int, int, int]) -> tuple[int, int, _Block] | None:
    """The least context (lines above, lines below) that makes the hunk's block apply exactly, and the block.

    The text the block meets is ``b[:j1] + a[i1:]``: the earlier blocks are applied, the later ones not.
    """
    i1, i2, j1, j2 = hunk
    current = "".join(b[:j1] + a[i1:]).encode("utf-8")
    expected = "".join(b[:j2] + a[i2:]).encode("utf-8")
    room_above, room_below = j1, len(a) - i2
    for above, below in _context_sizes(room_above, room_below):
        old = "".join(b[j1 - above:j1] + a[i1:i2 + below])
        if not old:
            continue
        new = "".join(b[j1 - above:j2] + a[i2:i2 + below])
        if i2 + below == len(a) and not old.endswith(_BREAKS):
            old, new = old + "\n", new + ("\r" if new.endswith("\r") else "\n")
        replaced = replace_once(current, old, new)
        if replaced.result == expected:
            return above, below, _Block(old, new, j1 - above + 1)
    return None


def _context_sizes(room_above: int, room_below: int) -> Iterable[tuple[int, int]]:
    """Context sizes to try, least first: every split up to :data:`EXHAUSTIVE_CONTEXT`, then doubling, then all."""
    seen = set()
    for total in range(EXHAUSTIVE_CONTEXT + 1):
        for above in range(total + 1):
            pair = (min(above, room_above), min(total - above, room_below))
            if pair not in seen:
                seen.add(pair)
                yield pair
    size = EXHAUSTIVE_CONTEXT
    while size < max(room_above, room_below):
        size *= 2
        for pair in ((min(size, room_above), min(size // 2, room_below)),
                     (min(size // 2, room_above), min(size, room_below)),
                     (min(size, room_above), min(size, room_below))):
            if pair not in seen:
                seen.add(pair)
                yield pair
    if (room_above, room_below) not in seen:
        yield room_above, room_below


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(MIN_FENCE, longest + 1)


def _code_span(path: str) -> str:
    """``path`` as one Markdown code span that reads back exactly."""
    ticks = "`" * (max((len(run) for run in _BACKTICKS.findall(path)), default=0) + 1)
    pad = " " if path.startswith("`") or path.endswith("`") else ""
    return f"{ticks}{pad}{path}{pad}{ticks}"


def _render(path: str, number: int, block: _Block) -> str:
    where = f"- where: ~{block.line}\n" if block.old else ""
    old_fence, new_fence = _fence(block.old), _fence(block.new)
    return (f"### EDIT {number}\n- file: {_code_span(path)}\n{where}\n"
            f"{old_fence}old\n{block.old}{old_fence}\n\n{new_fence}new\n{block.new}{new_fence}\n\n")


def _check(section: str, change: StagedChange) -> str | None:
    """Why ``section``, parsed back and applied to the current bytes, does not give the staged bytes."""
    try:
        plan = parse_plan(section)
    except PlanParseError as exc:
        return f"its blocks did not read back as written ({exc})"
    data = change.before
    for block in plan.blocks:
        if block.file != change.path:
            return f"its file line read back as {block.file!r}"
        if block.creates:
            data = None if data is not None else block.new.encode("utf-8")
            continue
        data = None if data is None else replace_once(data, block.old, block.new).result
    if data != change.after:
        return "its blocks do not reproduce the staged bytes exactly"
    return None
