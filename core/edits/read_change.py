"""Any tool's proposed change as an :class:`EditPlan`: which format a text is in, and its reader.

ljtui reads four formats, each into the same blocks with the same validation:

* ``edit`` — its own EDIT plans (:mod:`.plan_format`);
* ``diff`` — unified diffs: ``git diff``, ``diff -u`` and ``git format-patch`` mails (:mod:`.read_unified`);
* ``aider`` — Aider's SEARCH/REPLACE blocks (:mod:`.read_aider`);
* ``codex`` — Codex's ``*** Begin Patch`` envelopes (:mod:`.read_codex`).

A text's format is the one whose first marker comes first in it: an EDIT
heading, a diff's file header, a SEARCH marker or a patch envelope. A
text with none of them is refused by name, with what each format starts
with; a format named explicitly is read as that format, whatever the text
looks like. A byte-order mark an editor saved at the start of a change is
not part of it: every format is detected and read without it.
"""

from __future__ import annotations

import re
from typing import Callable

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import EditPlan, PlanParseError

EDIT, DIFF, AIDER, CODEX = "edit", "diff", "aider", "codex"
FORMATS = (EDIT, DIFF, AIDER, CODEX)
"""The names ``--format`` and ``/open`` accept."""
NAMES = {EDIT: "EDIT plan", DIFF: "unified diff", AIDER: "Aider SEARCH/REPLACE edit", CODEX: "Codex patch"}
DESCRIPTIONS = {
    EDIT: "an EDIT plan (### EDIT 1)",
    DIFF: "a unified diff (git diff, diff -u, git format-patch)",
    AIDER: "Aider SEARCH/REPLACE blocks (<<<<<<< SEARCH)",
    CODEX: "a Codex patch (*** Begin Patch)",
}

_MARKERS = {
    EDIT: re.compile(r"^[ ]{0,3}#{1,6}[ \t]+EDIT\b", re.M),
    DIFF: re.compile(r"^(?:diff --git |--- [^\n]*\n\+\+\+ |From [0-9a-f]{40} )", re.M),
    AIDER: re.compile(r"^<{5,9} SEARCH[ \t]*\r?$", re.M),
    CODEX: re.compile(r"^[ \t]*\*\*\* Begin Patch[ \t]*\r?$", re.M),
}

BOM = "\ufeff"
"""The UTF-8 byte-order mark, as text: dropped from the start of a change before its format is detected."""

_SURROGATE = re.compile("[\udc80-\udcff]")


def without_bom(text: str) -> str:
    """``text`` without the byte-order mark at its start (one inside it is content, and kept)."""
    return text[1:] if text.startswith(BOM) else text


def detect_format(text: str) -> str | None:
    """The format whose first marker comes first in ``text`` (``None``: no format's marker is in it)."""
    text = without_bom(text)
    found = [(m.start(), name) for name, pattern in _MARKERS.items() if (m := pattern.search(text)) is not None]
    return min(found)[1] if found else None


def read_change(text: str, fmt: str | None = None) -> tuple[EditPlan, str]:
    """``text`` read as ``fmt`` (detected when ``None``): its blocks, and the format read.

    Raises:
        PlanParseError: The text is in no format ljtui reads, or breaks the one it is in.
        ValueError: ``fmt`` is not one of :data:`FORMATS`.
    """
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    text = without_bom(text)
    chosen = fmt or detect_format(text)
    if chosen is None:
        known = "; ".join(DESCRIPTIONS.values())
        raise PlanParseError([E.UnknownFormat(None, f"no change found: the text is none of the formats ljtui "
                                                    f"reads ({known})")])
    if chosen == EDIT and _SURROGATE.search(text):
        raise PlanParseError([E.MalformedPatch(None, "an EDIT plan must be UTF-8 text; this one holds bytes that "
                                                     "are not")])
    return _reader(chosen)(text), chosen


def read_or_explain(text: str, origin: str, fmt: str | None = None) -> EditPlan | str:
    """``text`` read as :func:`read_change` reads it, or one sentence saying why it cannot be (``origin``: where
    the text came from)."""
    try:
        return read_change(text, fmt)[0]
    except ValueError as exc:
        return f"cannot open {origin}: {exc}"
    except PlanParseError as exc:
        problems = "; ".join(str(e) for e in exc.errors)
        chosen = fmt or detect_format(text)
        what = f"a valid {NAMES[chosen]}" if chosen is not None else "a change ljtui reads"
        return f"{origin} is not {what}: {problems}"


def decode_change(data: bytes) -> str:
    """The text of a change read as bytes: UTF-8, and any other byte kept as it is (a diff of a Latin-1 file)."""
    return data.decode("utf-8", "surrogateescape")


def undecodable(text: str, fmt: str | None) -> bool:
    """True when ``text`` holds bytes that are not UTF-8 and is (or would be read as) an EDIT plan or nothing."""
    return (fmt or detect_format(text)) in (EDIT, None) and _SURROGATE.search(text) is not None


def _reader(fmt: str) -> Callable[[str], EditPlan]:
    if fmt == DIFF:
        from ljtui.core.edits.read_unified import parse_unified

        return parse_unified
    if fmt == AIDER:
        from ljtui.core.edits.read_aider import parse_aider

        return parse_aider
    if fmt == CODEX:
        from ljtui.core.edits.read_codex import parse_codex

        return parse_codex
    from ljtui.core.edits.plan_format import parse_plan

    return parse_plan
