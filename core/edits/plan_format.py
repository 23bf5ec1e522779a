"""The EDIT plan format: a pure function from Markdown text to an :class:`EditPlan`.

Structure comes from markdown-it-py tokens; the bytes of ``old`` and ``new``
come from the original text's lines, using the token line map, because
markdown-it normalises line breaks (``\\r\\n`` → ``\\n``) and the patcher must
see exactly what the plan wrote. Fences holding backticks use longer fences,
as Markdown does.

The grammar, block by block::

    ### EDIT <n>
    - file: `path`            (one code span or one bare word, nothing after it)
    - where: `Symbol (~88)` …  (optional free text; ``~88`` is a line hint)
    - entry: `name`           (optional, as ``file``; default: one entry for the plan)
    ```old   …   ```           (empty → create the file)
    ```new   …   ```
    prose
    ```json {"will_modify": [...], "will_add": [...], "will_remove": [...]}```
                               (once, after the last block)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import (
    DECLARATION_KEYS,
    DEFAULT_ENTRY_ID,
    MAX_NUMBER_DIGITS,
    Declarations,
    EditBlock,
    EditPlan,
    Entry,
    PlanParseError,
)
from ljtui.core.edits.plan_fields import field_value
from ljtui.core.gc_pause import cyclic_gc_paused

__all__ = ["DEFAULT_ENTRY_ID", "Declarations", "EditBlock", "EditPlan", "Entry", "PlanParseError", "parse_plan"]


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_HEADING = re.compile(r"EDIT[ \t]+([0-9]{1,%d})(?:[ \t]*(?:[:\u2014\u2013-].*)?)?" % MAX_NUMBER_DIGITS, re.S)
_HEADING_LIKE = re.compile(r"EDIT\b")
_NUMBER_THEN_TITLE = re.compile(r"EDIT[ \t]+([0-9]{1,%d})[ \t]+\S" % MAX_NUMBER_DIGITS)
_FIELD = re.compile(r"[ \t]*(file|where|entry)[ \t]*:[ \t]*(.*)", re.S | re.I)
_EDIT_FENCES = ("old", "new")
_MARKDOWN = MarkdownIt("commonmark").disable("inline")
"""Block structure only; paragraphs keep their source text, and :meth:`_Parser._inline` parses one on demand."""


@dataclass
class _Draft:
    number: int
    line: int
    fields: dict[str, str] = field(default_factory=dict)
    old: str | None = None
    new: str | None = None
    prose: list[str] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)
    """Fences (``old``/``new``) and fields already reported as malformed."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = [m.group(0) for m in _LINE.finditer(text)]
        self.env: dict[str, Any] = {}
        self.tokens = _MARKDOWN.parse(text, self.env)
        self.errors: list[E.EditError] = []
        self.drafts: list[_Draft] = []
        self.trailing_json: list[tuple[int | None, str]] = []

    @property
    def current(self) -> _Draft | None:
        return self.drafts[-1] if self.drafts else None

    def run(self) -> EditPlan:
        tokens = self.tokens
        for i, tok in enumerate(tokens):
            if tok.type == "heading_open":
                self._heading(tok, tokens[i + 1])
            elif tok.type == "fence":
                self._fence(tok)
            elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
                self._paragraph(tok, in_list=tok.level > 1)
        blocks = self._finish()
        declarations = self._declarations()
        if self.errors:
            raise PlanParseError(sorted(self.errors, key=lambda e: (e.block or 0)))
        return EditPlan(tuple(blocks), declarations)

    def _block_no(self) -> int | None:
        return self.current.number if self.current else None

    def _heading(self, tok: Token, inline: Token) -> None:
        text = inline.content.strip()
        match = _HEADING.fullmatch(text)
        if match:
            number = int(match.group(1))
            if self.current is not None and number <= self.current.number:
                self.errors.append(E.NonAscendingNumber(
                    number, f"EDIT {number} follows EDIT {self.current.number}; numbers must strictly ascend"))
            self.drafts.append(_Draft(number, (tok.map or [0])[0] + 1))
            self.trailing_json.clear()
        elif _HEADING_LIKE.match(text):
            where = f"heading {text[:60]!r} (line {(tok.map or [0])[0] + 1})"
            numbered = _NUMBER_THEN_TITLE.match(text)
            problem = (f"needs ':' between its number and its title (### EDIT {numbered.group(1)}: title)"
                       if numbered else "has no block number")
            self.errors.append(E.MalformedHeading(self._block_no(), f"{where} {problem}"))

    def _paragraph(self, tok: Token, in_list: bool) -> None:
        draft = self.current
        if draft is None:
            return
        match = _FIELD.fullmatch(tok.content) if in_list and draft.old is None else None
        if match is None:
            draft.prose.append(tok.content)
            return
        key, raw = match.group(1).lower(), match.group(2).strip()
        if key in draft.fields:
            self.errors.append(E.DuplicateField(draft.number, f"`{key}` is given twice"))
            return
        if key == "where":
            draft.fields[key] = raw
            return
        value = field_value(self._inline(tok), key, raw, draft.number)
        if isinstance(value, E.EditError):
            self.errors.append(value)
            draft.refused.add(key)
            value = ""
        draft.fields[key] = value

    def _inline(self, tok: Token) -> Token:
        """``tok`` with its inline children, parsed as the full parser would (same reference definitions)."""
        if tok.children is None or not tok.children:
            tok.children = []
            _MARKDOWN.inline.parse(tok.content, _MARKDOWN, self.env, tok.children)
        return tok

    def _fence(self, tok: Token) -> None:
        start, end = tok.map or (0, 0)
        closed = self._closed(tok, start, end)
        info = tok.info.strip().split(maxsplit=1)
        kind = info[0].lower() if info else ""
        number = self._block_no()
        if self.current is not None and kind in _EDIT_FENCES:
            self.current.refused.add(kind)
        if not closed:
            self.errors.append(E.UnclosedFence(
                number, f"the ```{kind} fence opened on line {start + 1} is never closed"))
            return
        body = "".join(self.lines[start + 1:end - 1])
        if kind == "json" and self.current is not None and self.current.new is not None:
            self.trailing_json.append((number, body))
            return
        if kind not in _EDIT_FENCES:
            return
        draft = self.current
        if draft is None:
            self.errors.append(E.OrphanFence(None, f"```{kind} fence on line {start + 1} is outside any EDIT block"))
        elif tok.level > 0 or self.lines[start][:1] in (" ", "\t"):
            self.errors.append(E.IndentedFence(
                draft.number, f"```{kind} fence on line {start + 1} must start at column 0, outside lists and quotes"))
        elif getattr(draft, kind) is not None:
            self.errors.append(E.DuplicateFence(draft.number, f"second ```{kind} fence on line {start + 1}"))
        elif kind == "new" and draft.old is None and "old" not in draft.refused:
            self.errors.append(E.FenceOrder(draft.number, f"```new fence on line {start + 1} comes before any ```old"))
        else:
            setattr(draft, kind, body)
            draft.refused.discard(kind)

    def _closed(self, tok: Token, start: int, end: int) -> bool:
        if end - 1 <= start or end > len(self.lines):
            return False
        marker = tok.markup[:1]
        closing = re.compile(r" {0,3}%s{%d,}[ \t]*(?:\r\n|\r|\n)?" % (re.escape(marker), len(tok.markup)))
        return closing.fullmatch(self.lines[end - 1]) is not None

    def _finish(self) -> list[EditBlock]:
        if not self.drafts:
            if not self.errors:
                self.errors.append(E.NoBlocks(None, "the plan has no `### EDIT N` block"))
            return []
        blocks = []
        for d in self.drafts:
            if not d.fields.get("file") and "file" not in d.refused:
                self.errors.append(E.MissingFile(d.number, "no `- file:` line"))
            if d.old is None and "old" not in d.refused:
                self.errors.append(E.MissingOld(d.number, "no ```old fence"))
            if d.new is None and "new" not in d.refused:
                self.errors.append(E.MissingNew(d.number, "no ```new fence"))
            blocks.append(EditBlock(
                number=d.number, file=d.fields.get("file", ""), where=d.fields.get("where"),
                entry=d.fields.get("entry") or DEFAULT_ENTRY_ID, old=d.old or "", new=d.new or "",
                prose="\n\n".join(p.strip() for p in d.prose), line=d.line))
        self._check_entries(blocks)
        return blocks

    def _check_entries(self, blocks: list[EditBlock]) -> None:
        closed: set[str] = set()
        previous: str | None = None
        for block in blocks:
            if block.entry != previous:
                if block.entry in closed:
                    self.errors.append(E.EntrySplit(
                        block.number, f"entry {block.entry!r} resumes after other entries; keep its blocks together"))
                if previous is not None:
                    closed.add(previous)
                previous = block.entry

    def _declarations(self) -> Declarations:
        if not self.trailing_json:
            return Declarations()
        if len(self.trailing_json) > 1:
            self.errors.append(E.DuplicateDeclaration(
                self.trailing_json[1][0], f"{len(self.trailing_json)} ```json blocks follow the last EDIT block"))
        number, body = self.trailing_json[0]
        try:
            data: Any = json.loads(body)
        except (ValueError, RecursionError) as exc:
            self.errors.append(E.MalformedDeclaration(number, f"declaration is not valid JSON: {exc}"))
            return Declarations()
        problem = _declaration_problem(data)
        if problem:
            self.errors.append(E.MalformedDeclaration(number, problem))
            return Declarations()
        return Declarations(tuple(data["will_modify"]), tuple(data["will_add"]), tuple(data["will_remove"]), True)


def _declaration_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "declaration must be a JSON object"
    unknown = sorted(set(data) - set(DECLARATION_KEYS))
    if unknown:
        return f"declaration has unknown keys: {', '.join(unknown)}"
    for key in DECLARATION_KEYS:
        if key not in data:
            return f"declaration lacks `{key}`"
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"`{key}` must be a list of strings"
    return None


def parse_plan(text: str) -> EditPlan:
    """Parse an EDIT plan.

    Args:
        text: The whole plan as Markdown (a leading byte order mark is ignored).

    Returns:
        The plan, with ``old``/``new`` exactly as written (line breaks included).

    Raises:
        PlanParseError: With every problem found, each a named error value.
    """
    text = text.removeprefix("\ufeff")  # a byte order mark an editor saved is not part of the plan
    with cyclic_gc_paused():  # tokens make no cycles; collecting while they are made doubled the time
        return _Parser(text).run()
