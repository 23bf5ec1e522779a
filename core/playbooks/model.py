"""One playbook file (PB-1): YAML front matter and Markdown sections, read as untrusted input.

A playbook is ``<id>.md``::

    ---
    id: "windows-sandbox-build"
    title: "Windows 沙箱里跑构建"
    status: "active"            # draft | active | deprecated
    scope: "project"            # project | user
    tags: ["windows", "sandbox", "build"]
    when_to_use: "需要在沙箱内执行 pnpm/node 构建时"
    created: "2026-01-01T00:00:00.000Z"
    updated: "2026-01-02T00:00:00.000Z"
    source_session: "abc123"
    stats:
      uses: 3
      ok: 2
      fail: 1
      last_used: "2026-01-02T00:00:00.000Z"
      last_outcome: "ok"
    ---
    # Windows 沙箱里跑构建

    ## When to use
    ## Preconditions
    ## SOP
    ## Pitfalls
    ## Verification
    ## Evidence

Every field is checked for type, size and control characters; a problem is
a :class:`PlaybookError` naming the field, never anything else. The body
is kept byte for byte, so rewriting the front matter (stats, status) keeps
the user's hand edits.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from ljtui.core.ids import is_valid_id
from ljtui.core.skill_files import SkillFileError, load_plain_yaml, split_front_matter

DRAFT, ACTIVE, DEPRECATED = "draft", "active", "deprecated"
STATUSES = (DRAFT, ACTIVE, DEPRECATED)
"""A playbook's life: saved as a draft, promoted by the user, demoted by its record."""
PROJECT, USER = "project", "user"
SCOPES = (PROJECT, USER)
"""Where a playbook belongs: the repository's library or the user's own."""
OK, FAIL = "ok", "fail"
OUTCOMES = (OK, FAIL)
SECTION_NAMES = ("When to use", "Preconditions", "SOP", "Pitfalls", "Verification", "Evidence")
"""The body's sections, in order."""
SECTION_ALIASES = {"何时使用": "When to use", "前置条件": "Preconditions", "坑": "Pitfalls", "踩坑": "Pitfalls",
                   "验证": "Verification", "证据": "Evidence", "steps": "SOP"}
"""Other headings read as a section (the seed's Chinese headings; ``Steps`` as in a skill)."""
KEYS = frozenset({"id", "title", "status", "scope", "tags", "when_to_use", "created", "updated", "source_session",
                  "stats"})
STATS_KEYS = frozenset({"uses", "ok", "fail", "last_used", "last_outcome"})
MAX_FILE_BYTES = 64 * 1024
"""A playbook file larger than this is skipped."""
MAX_TITLE_CHARS = 200
MAX_TAGS = 16
MAX_TAG_CHARS = 40
MAX_WHEN_CHARS = 1024
"""The longest ``when_to_use`` (it becomes a skill's description, which has this limit)."""
MAX_TIME_CHARS = 40
MAX_SESSION_CHARS = 64
MAX_COUNT = 1_000_000_000
"""The largest ``uses`` / ``ok`` / ``fail`` accepted."""
MAX_SOP_STEPS = 20
"""The most SOP items a playbook may have (the limit of a skill's steps)."""
MAX_STEP_CHARS = 2000
MAX_SHOWN_CHARS = 60
"""How much of a bad value an error quotes."""
_SESSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters and bidirectional overrides (tab and newline are allowed in the body)."""
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM_RE = re.compile(r"^(?:\d{1,3}[.)]|[-*+])\s+(.*)$")


class PlaybookError(ValueError):
    """What is wrong with a playbook file: the field and one phrase."""

    def __init__(self, field_name: str, problem: str) -> None:
        self.field = field_name
        self.problem = problem
        super().__init__(f"{field_name}: {problem}")


@dataclass(frozen=True)
class PlaybookStats:
    """How a playbook fared: uses, successes, failures, the last use and its outcome."""

    uses: int = 0
    ok: int = 0
    fail: int = 0
    last_used: str | None = None
    last_outcome: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Playbook:
    """One validated playbook.

    Attributes:
        id: ASCII kebab-case, equal to the file's name without ``.md``.
        title: The full title, in any script; what search and display use.
        status: ``draft``, ``active`` or ``deprecated``.
        scope: ``project`` or ``user`` as the file says.
        tags: Short labels search matches exactly or partly.
        when_to_use: One line: the skill's description.
        created, updated: ISO 8601 times.
        source_session: The session that saved it, if known.
        stats: The record that drives demotion and ranking.
        body: The Markdown after the front matter, as written.
        source: Where it was found: ``repository`` or ``user`` (set by the store).
    """

    id: str
    title: str
    status: str
    scope: str
    tags: tuple[str, ...]
    when_to_use: str
    created: str
    updated: str
    source_session: str | None
    stats: PlaybookStats
    body: str
    source: str = ""
    sections: dict[str, str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sections", parse_sections(self.body))

    def sop_steps(self) -> tuple[str, ...]:
        """The SOP's top-level list items (continuation lines joined)."""
        return list_items(self.sections.get("SOP", ""))

    def with_changes(self, **changes: Any) -> Playbook:
        """A copy with ``changes`` (sections follow the body)."""
        return dataclasses.replace(self, **changes)


def parse_playbook(text: str, stem: str) -> tuple[Playbook, tuple[str, ...]]:
    """The playbook in ``text`` (the file ``<stem>.md``) and notes about keys it ignored.

    Raises:
        PlaybookError: the file is not a valid playbook; names the field.
    """
    try:
        header, body = split_front_matter(text)
        data = load_plain_yaml(header)
    except SkillFileError as exc:
        raise PlaybookError("front matter", str(exc)) from None
    if not isinstance(data, dict):
        raise PlaybookError("front matter", "is not a mapping of fields")
    notes = tuple(f"unknown key {str(k)[:MAX_SHOWN_CHARS]!r} ignored" for k in data if k not in KEYS)
    pid = data.get("id")
    if not is_valid_id(pid):
        raise PlaybookError("id", f"{_shown(pid)} is not a lowercase kebab-case id")
    if pid != stem:
        raise PlaybookError("id", f"{pid!r} differs from the file's name {stem!r}.md")
    if _CONTROL_RE.search(body):
        raise PlaybookError("body", "contains control characters")
    playbook = Playbook(
        id=pid, title=_text(data, "title", MAX_TITLE_CHARS), status=_choice(data, "status", STATUSES),
        scope=_choice(data, "scope", SCOPES), tags=_tags(data.get("tags")),
        when_to_use=_text(data, "when_to_use", MAX_WHEN_CHARS, empty_ok=True),
        created=_time(data.get("created"), "created"), updated=_time(data.get("updated"), "updated"),
        source_session=_session(data.get("source_session")), stats=_stats(data.get("stats")), body=body)
    steps = playbook.sop_steps()
    if len(steps) > MAX_SOP_STEPS:
        raise PlaybookError("SOP", f"has {len(steps)} items; at most {MAX_SOP_STEPS} are allowed")
    if any(len(step) > MAX_STEP_CHARS for step in steps):
        raise PlaybookError("SOP", f"an item is longer than {MAX_STEP_CHARS} characters")
    return playbook, notes


def render_playbook(playbook: Playbook) -> str:
    """The file's text: front matter in PB-1's order, then the body as it was."""
    s = playbook.stats
    lines = ["---", f"id: {_q(playbook.id)}", f"title: {_q(playbook.title)}", f"status: {_q(playbook.status)}",
             f"scope: {_q(playbook.scope)}", f"tags: [{', '.join(_q(t) for t in playbook.tags)}]",
             f"when_to_use: {_q(playbook.when_to_use)}", f"created: {_q(playbook.created)}",
             f"updated: {_q(playbook.updated)}", f"source_session: {_q(playbook.source_session)}", "stats:",
             f"  uses: {s.uses}", f"  ok: {s.ok}", f"  fail: {s.fail}", f"  last_used: {_q(s.last_used)}",
             f"  last_outcome: {_q(s.last_outcome)}", "---"]
    body = playbook.body if playbook.body.startswith("\n") else "\n" + playbook.body
    return "\n".join(lines) + body


def render_body(title: str, sections: dict[str, list[str] | str]) -> str:
    """A new playbook's body: the title, then every section in order (lists as items, SOP numbered)."""
    parts = [f"\n# {title}\n"]
    for name in SECTION_NAMES:
        value = sections.get(name) or []
        if isinstance(value, str):
            text = value.strip()
        else:
            items = [" ".join(str(item).split()) for item in value]
            text = "\n".join(f"{n}. {item}" if name == "SOP" else f"- {item}"
                             for n, item in enumerate((i for i in items if i), start=1))
        parts.append(f"## {name}\n\n{text}\n" if text else f"## {name}\n")
    return "\n".join(parts)


def iso_time(seconds: float) -> str:
    """``seconds`` since the epoch as ISO 8601 UTC with milliseconds (``…Z``)."""
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_sections(body: str) -> dict[str, str]:
    """The ``##`` sections of ``body`` by canonical name (aliases folded); unknown ones by their heading."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        heading = _HEADING_RE.match(line)
        if heading and len(heading.group(1)) <= 2:
            current = None
            if len(heading.group(1)) == 2:
                current = sections.setdefault(section_name(heading.group(2)), [])
            continue
        if current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def section_name(heading: str) -> str:
    """The canonical name of a ``##`` heading (case-insensitive; aliases folded)."""
    folded = heading.strip().casefold()
    for name in SECTION_NAMES:
        if name.casefold() == folded:
            return name
    return SECTION_ALIASES.get(folded, SECTION_ALIASES.get(heading.strip(), heading.strip()))


def list_items(text: str) -> tuple[str, ...]:
    """Top-level list items of ``text`` (indented continuation lines joined)."""
    items: list[str] = []
    for line in text.splitlines():
        match = _ITEM_RE.match(line)
        if match:
            items.append(match.group(1).strip())
        elif items and line.strip() and line[:1].isspace():
            items[-1] = f"{items[-1]} {line.strip()}"
    return tuple(item for item in items if item)


def _q(value: str | None) -> str:
    """A YAML scalar: ``null`` or a double-quoted string (JSON's quoting is valid YAML)."""
    return "null" if value is None else json.dumps(value, ensure_ascii=False)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS - 1] + "…"


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", bool: "a boolean", int: "a number", float: "a number",
            type(None): "empty"}.get(type(value), type(value).__name__)


def _plain(value: Any, name: str, limit: int, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise PlaybookError(name, f"must be a string, not {_kind(value)}")
    text = " ".join(value.split())
    if not text and not empty_ok:
        raise PlaybookError(name, "is empty")
    if len(text) > limit:
        raise PlaybookError(name, f"is longer than {limit} characters")
    if _CONTROL_RE.search(text):
        raise PlaybookError(name, "contains control characters")
    return text


def _text(data: dict[Any, Any], name: str, limit: int, *, empty_ok: bool = False) -> str:
    if name not in data:
        raise PlaybookError(name, "is missing")
    return _plain(data[name], name, limit, empty_ok=empty_ok)


def _choice(data: dict[Any, Any], name: str, allowed: tuple[str, ...]) -> str:
    value = data.get(name)
    if value not in allowed:
        raise PlaybookError(name, f"{_shown(value)} is not one of {', '.join(allowed)}")
    return str(value)


def _tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise PlaybookError("tags", f"must be a list, not {_kind(value)}")
    if len(value) > MAX_TAGS:
        raise PlaybookError("tags", f"has {len(value)} tags; at most {MAX_TAGS} are allowed")
    tags = tuple(_plain(tag, "tags", MAX_TAG_CHARS) for tag in value)
    return tuple(dict.fromkeys(tags))


def _time(value: Any, name: str) -> str:
    """An ISO 8601 time as text (YAML turns an unquoted one into a datetime: accepted)."""
    if isinstance(value, datetime):
        stamp = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if not isinstance(value, str) or not value or len(value) > MAX_TIME_CHARS:
        raise PlaybookError(name, f"{_shown(value)} is not an ISO 8601 time")
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise PlaybookError(name, f"{_shown(value)} is not an ISO 8601 time") from None
    return value


def _session(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_SESSION_CHARS or not _SESSION_RE.fullmatch(value):
        raise PlaybookError("source_session", f"{_shown(value)} is not a session id")
    return value


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise PlaybookError(f"stats.{name}", f"{_shown(value)} is not a whole number from 0 to {MAX_COUNT}")
    return value


def _stats(value: Any) -> PlaybookStats:
    if value is None:
        return PlaybookStats()
    if not isinstance(value, dict):
        raise PlaybookError("stats", f"must be a mapping, not {_kind(value)}")
    extra = sorted(str(k)[:MAX_SHOWN_CHARS] for k in value if k not in STATS_KEYS)
    if extra:
        raise PlaybookError("stats", f"has unknown key(s) {', '.join(extra)}")
    counts = {name: _count(value.get(name, 0), name) for name in ("uses", "ok", "fail")}
    last_used = value.get("last_used")
    outcome = value.get("last_outcome")
    if outcome is not None and outcome not in OUTCOMES:
        raise PlaybookError("stats.last_outcome", f"{_shown(outcome)} is not ok, fail or null")
    return PlaybookStats(**counts, last_used=None if last_used is None else _time(last_used, "stats.last_used"),
                         last_outcome=outcome)
