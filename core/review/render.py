"""Writing EDIT blocks back out as a plan the parser reads again unchanged."""

from __future__ import annotations

import json
import re
from typing import Iterable

from ljtui.core.edits.plan import CREATE, EDIT
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, Declarations, EditBlock

MIN_FENCE = 3
_BACKTICK_RUN = re.compile(r"`+")


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside ``text``."""
    longest = max((len(m.group(0)) for m in _BACKTICK_RUN.finditer(text)), default=0)
    return "`" * max(MIN_FENCE, longest + 1)


def _fenced(info: str, body: str) -> str:
    fence = fence_for(body)
    if body and not body.endswith(("\n", "\r")):
        raise ValueError("a fence body must end with a line break to be written back exactly")
    return f"{fence}{info}\n{body}{fence}\n"


def render_block(block: EditBlock, number: int | None = None) -> str:
    """One ``### EDIT N`` block as Markdown."""
    lines = [f"### EDIT {block.number if number is None else number}", "", f"- file: `{block.file}`"]
    if block.where:
        lines.append(f"- where: {block.where}")
    if block.entry != DEFAULT_ENTRY_ID:
        lines.append(f"- entry: `{block.entry}`")
    text = "\n".join(lines) + "\n\n" + _fenced("old", block.old) + "\n" + _fenced("new", block.new)
    if block.prose:
        text += "\n" + block.prose.rstrip("\n") + "\n"
    return text


def render_plan(blocks: Iterable[EditBlock], declarations: Declarations | None = None) -> str:
    """A whole plan: its blocks and, when present, the declaration block."""
    parts = [render_block(b) for b in blocks]
    if declarations is not None and declarations.present:
        parts.append("```json\n" + json.dumps(declarations.to_dict(), ensure_ascii=False) + "\n```\n")
    return "\n".join(parts)


def edit_form_problem(block: EditBlock) -> str | None:
    """Why ``block`` (read from a diff, say) cannot be written as an EDIT block that means the same (``None``: it
    can): the EDIT format replaces and creates text; it neither deletes, renames nor sets modes, places nothing
    at a file's start or end, and its fences hold whole lines."""
    if block.action not in (EDIT, CREATE):
        return f"EDIT {block.number} ({block.action} {block.file}): an EDIT plan has no {block.action} block"
    anchor = block.anchor
    placed = anchor is not None and (anchor.at_start or anchor.at_end or anchor.after is not None)
    if placed or any(text and not text.endswith(("\n", "\r")) for text in (block.old, block.new)):
        return (f"EDIT {block.number}: a hunk placed at the start or end of {block.file}, or ending without a "
                "line break, has no EDIT form")
    return None
