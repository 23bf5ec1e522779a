"""Parsing one skill file: a YAML skill or an Agent Skills ``SKILL.md``.

Every file is untrusted input. The text is bounded by the caller; here the
YAML must be plain data (no aliases, bounded nesting), every field is type-
and length-checked, and a problem is returned as a message, never raised.

Two formats:

* ``NAME.yaml`` / ``NAME.yml``: ``name``, ``description`` and ``steps``, a
  list of step descriptions, each a string or ``{description, tool_hint}``.
* ``NAME/SKILL.md`` (the Agent Skills layout): YAML front matter between
  ``---`` lines with ``name`` (equal to the folder's name) and
  ``description``; the Markdown body is the skill's instructions. The steps
  are the top-level list items under a ``## Steps`` heading when the body
  has one; otherwise the skill is one step, the body's first paragraph
  (or the description when the body is empty).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
"""A skill name: lowercase letters, digits and hyphens, at most 64 characters."""
TOOL_HINT_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
"""A tool hint: a tool or skill name."""
MAX_DESCRIPTION_CHARS = 1024
"""The longest skill description (the Agent Skills limit)."""
MAX_STEPS = 20
"""The most steps one skill may have."""
MAX_STEP_CHARS = 2000
"""The longest step description."""
MAX_INSTRUCTIONS_CHARS = 32 * 1024
"""The longest ``SKILL.md`` body kept as instructions."""
MAX_YAML_DEPTH = 8
"""The deepest nesting of mappings and lists a skill's YAML may have."""
YAML_KEYS = frozenset({"name", "description", "steps"})
"""The keys a YAML skill may have."""
FRONT_MATTER_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
"""The front matter keys of the Agent Skills layout (only ``name`` and ``description`` are used)."""
STEP_KEYS = frozenset({"description", "tool_hint"})
"""The keys a step written as a mapping may have."""
MAX_SHOWN_KEYS = 5
"""How many unknown keys a warning names."""
MAX_SHOWN_KEY_CHARS = 40
"""How much of an unknown key a warning shows."""
FENCE = "---"
"""The line that opens and closes ``SKILL.md`` front matter."""
STEPS_HEADING_RE = re.compile(r"^##\s+steps\s*#*\s*$", re.IGNORECASE)
"""The heading whose list gives a ``SKILL.md`` skill its steps."""
HEADING_RE = re.compile(r"^#{1,2}\s")
"""A heading that ends the steps section."""
LIST_ITEM_RE = re.compile(r"^(?:\d{1,3}[.)]|[-*+])\s+(.*)$")
"""A top-level list item (not indented)."""
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (and bidirectional overrides) a field may not hold; tab and newline are allowed."""


class Step(NamedTuple):
    """One step of a skill: what to do, and the tool or skill it suggests."""

    description: str
    tool_hint: str | None = None


@dataclass(frozen=True)
class ParsedSkill:
    """A skill file's validated content (where it came from is added by the loader)."""

    name: str
    description: str
    steps: tuple[Step, ...]
    instructions: str = ""
    notes: tuple[str, ...] = ()


class SkillFileError(ValueError):
    """What is wrong with a skill file, as one phrase (the loader adds the file's name)."""


def parse_yaml_skill(text: str) -> ParsedSkill:
    """A YAML skill's content.

    Raises:
        SkillFileError: the text is not a valid skill.
    """
    data = load_plain_yaml(text)
    if not isinstance(data, dict):
        raise SkillFileError("is not a mapping with name, description and steps")
    notes = _unknown_keys(data, YAML_KEYS)
    name = check_name(data.get("name"))
    description = _check_description(data.get("description"))
    steps = _check_steps(data.get("steps"))
    return ParsedSkill(name, description, steps, "", notes)


def parse_skill_md(text: str, folder: str) -> ParsedSkill:
    """An Agent Skills ``SKILL.md``'s content; ``folder`` is the name of the folder holding it.

    Raises:
        SkillFileError: the text is not a valid skill.
    """
    header, body = split_front_matter(text)
    data = load_plain_yaml(header)
    if not isinstance(data, dict):
        raise SkillFileError("front matter is not a mapping with name and description")
    notes = _unknown_keys(data, FRONT_MATTER_KEYS)
    name = check_name(data.get("name"))
    if name != folder:
        raise SkillFileError(f"name {name!r} differs from its folder's name {folder!r}")
    description = _check_description(data.get("description"))
    body = body.strip()
    if len(body) > MAX_INSTRUCTIONS_CHARS:
        raise SkillFileError(f"instructions are longer than {MAX_INSTRUCTIONS_CHARS} characters")
    if _CONTROL_RE.search(body):
        raise SkillFileError("instructions contain control characters")
    return ParsedSkill(name, description, _body_steps(body, description), body, notes)


def split_front_matter(text: str) -> tuple[str, str]:
    """``(front matter, body)`` of a Markdown file that opens with a ``---`` line.

    Raises:
        SkillFileError: there is no front matter, or it is not closed.
    """
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip() != FENCE:
        raise SkillFileError(f"does not open with front matter (a {FENCE} line)")
    for index, line in enumerate(lines[1:], start=1):
        if line.rstrip() == FENCE:
            return "".join(lines[1:index]), "".join(lines[index + 1:])
    raise SkillFileError(f"front matter is not closed by a {FENCE} line")


def load_plain_yaml(text: str) -> Any:
    """The YAML document in ``text``, refused when it uses aliases or nests too deeply.

    Aliases are refused outright (a skill has no use for them), so an alias
    bomb is never expanded by anything that walks the result.

    Raises:
        SkillFileError: the text is not valid YAML, or not plain data.
    """
    import yaml

    from ljtui.core.yaml_text import load_yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        depth = 0
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent):
                raise SkillFileError("uses a YAML alias (*name), which skill files may not")
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise SkillFileError(f"nests deeper than {MAX_YAML_DEPTH} levels")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        return load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SkillFileError(f"is not valid YAML{where}") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        if isinstance(exc, SkillFileError):
            raise
        raise SkillFileError(f"has a value YAML cannot read ({type(exc).__name__})") from None


def check_name(value: Any) -> str:
    """``value`` as a skill name.

    Raises:
        SkillFileError: it is missing, not a string, or not a valid name.
    """
    if value is None:
        raise SkillFileError("has no name")
    if not isinstance(value, str):
        raise SkillFileError(f"name must be a string, not {_kind(value)}")
    if not NAME_RE.match(value) or value.endswith("-") or "--" in value:
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise SkillFileError(f"name {shown!r} is not lowercase letters, digits and single hyphens "
                             f"(at most 64 characters, starting and ending with a letter or digit)")
    return value


def _check_description(value: Any) -> str:
    if value is None:
        raise SkillFileError("has no description")
    if not isinstance(value, str):
        raise SkillFileError(f"description must be a string, not {_kind(value)}")
    text = " ".join(value.split())
    if not text:
        raise SkillFileError("description is empty")
    if len(text) > MAX_DESCRIPTION_CHARS:
        raise SkillFileError(f"description is longer than {MAX_DESCRIPTION_CHARS} characters")
    if _CONTROL_RE.search(text):
        raise SkillFileError("description contains control characters")
    return text


def _check_steps(value: Any) -> tuple[Step, ...]:
    if value is None:
        raise SkillFileError("has no steps")
    if not isinstance(value, list):
        raise SkillFileError(f"steps must be a list, not {_kind(value)}")
    if not value:
        raise SkillFileError("steps is empty")
    if len(value) > MAX_STEPS:
        raise SkillFileError(f"has {len(value)} steps; at most {MAX_STEPS} are allowed")
    return tuple(_check_step(item, number) for number, item in enumerate(value, start=1))


def _check_step(item: Any, number: int) -> Step:
    hint: Any = None
    if isinstance(item, dict):
        extra = sorted(str(k) for k in item if k not in STEP_KEYS)
        if extra:
            raise SkillFileError(f"step {number} has unknown key(s) {', '.join(extra)}")
        text, hint = item.get("description"), item.get("tool_hint")
    elif isinstance(item, str):
        text = item
    else:
        raise SkillFileError(f"step {number} must be a string or a mapping, not {_kind(item)}")
    return Step(_check_step_text(text, number), _check_hint(hint, number))


def _check_step_text(text: Any, number: int) -> str:
    if not isinstance(text, str):
        raise SkillFileError(f"step {number} description must be a string, not {_kind(text)}")
    text = text.strip()
    if not text:
        raise SkillFileError(f"step {number} is empty")
    if len(text) > MAX_STEP_CHARS:
        raise SkillFileError(f"step {number} is longer than {MAX_STEP_CHARS} characters")
    if _CONTROL_RE.search(text):
        raise SkillFileError(f"step {number} contains control characters")
    return text


def _check_hint(hint: Any, number: int) -> str | None:
    if hint is None:
        return None
    if not isinstance(hint, str):
        raise SkillFileError(f"step {number} tool_hint must be a string, not {_kind(hint)}")
    if not TOOL_HINT_RE.match(hint):
        raise SkillFileError(f"step {number} tool_hint is not a tool or skill name")
    return hint


def _body_steps(body: str, description: str) -> tuple[Step, ...]:
    listed = _steps_section(body)
    if listed:
        if len(listed) > MAX_STEPS:
            raise SkillFileError(f"has {len(listed)} steps; at most {MAX_STEPS} are allowed")
        return tuple(Step(_check_step_text(text, n)) for n, text in enumerate(listed, start=1))
    paragraph = _first_paragraph(body)
    if len(paragraph) > MAX_STEP_CHARS:
        paragraph = paragraph[:MAX_STEP_CHARS - 1] + "…"
    return (Step(_check_step_text(paragraph or description, 1)),)


def _steps_section(body: str) -> list[str]:
    """The top-level list items under a ``## Steps`` heading (continuation lines joined)."""
    items: list[str] = []
    inside = False
    for line in body.splitlines():
        if STEPS_HEADING_RE.match(line):
            inside, items = True, []
            continue
        if not inside:
            continue
        if HEADING_RE.match(line):
            break
        match = LIST_ITEM_RE.match(line)
        if match:
            items.append(match.group(1).strip())
        elif items and line.strip() and line[:1].isspace():
            items[-1] = f"{items[-1]} {line.strip()}"
    return [item for item in items if item]


def _first_paragraph(body: str) -> str:
    """The first block of non-heading text in ``body``, joined into one line."""
    lines: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            if lines:
                break
            continue
        lines.append(stripped)
    return " ".join(lines)


def _unknown_keys(data: dict[Any, Any], allowed: frozenset[str]) -> tuple[str, ...]:
    extra = sorted(str(key)[:MAX_SHOWN_KEY_CHARS] for key in data if key not in allowed)
    shown = ", ".join(extra[:MAX_SHOWN_KEYS])
    if len(extra) > MAX_SHOWN_KEYS:
        shown += f" and {len(extra) - MAX_SHOWN_KEYS} more"
    return (f"unknown key(s) {shown} ignored",) if extra else ()


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", bool: "a boolean", int: "a number", float: "a number",
            type(None): "empty"}.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class Skill:
    """One loaded skill.

    Attributes:
        name: The skill's name; ``/name`` triggers it.
        description: One line saying when to use it (what the planner matches on).
        steps: The plan it stands for, each ``(description, tool_hint | None)``.
        source: ``"bundled"``, ``"user"`` or ``"repository"``.
        path: The file it was read from (``SKILL.md`` for an Agent Skills folder).
        instructions: The Markdown body of a ``SKILL.md`` (empty for a YAML skill).
    """

    name: str
    description: str
    steps: tuple[Step, ...]
    source: str
    path: Path
    instructions: str = ""

    def task_specs(self) -> list[dict[str, Any]]:
        """The skill as a task list in the planner's shape, each task depending on the one before.

        Returns:
            ``[{id, description, tool_hint, depends_on}, …]`` with ids from 1.
        """
        return [{"id": number, "description": step.description, "tool_hint": step.tool_hint,
                 "depends_on": [number - 1] if number > 1 else []}
                for number, step in enumerate(self.steps, start=1)]
