"""One slash command file: its name from its path, its front matter and body, and the message it expands to.

A command file is a Markdown prompt, as Claude Code's ``.claude/commands``
files are: an optional YAML front matter between ``---`` lines with
``description`` and ``argument-hint``, then the prompt. Every file is
untrusted input: the caller bounds its size; here the front matter must be
plain data (:func:`~ljtui.core.skill_files.load_plain_yaml`), each field is
type- and length-checked, and a problem is raised as
:class:`CommandFileError`, one phrase the loader adds the file's name to.

The prompt is only ever text for the model. ``$ARGUMENTS`` becomes what was
typed after the command's name and ``$1``, ``$2``… its words (quotes group
words, as a shell does); the typed text is put in once, never read again for
placeholders. Claude Code's ``!`` + backtick lines, which run a shell
command there, are not run: they reach the model as the text they are.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from ljtui.core.skill_files import SkillFileError, load_plain_yaml, split_front_matter

SEGMENT_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
"""One part of a command's name (a folder's or the file's name without ``.md``), after lowercasing."""
SUFFIX = ".md"
"""The suffix of a command file."""
SEPARATOR = ":"
"""What joins a folder's name to the command's: ``frontend/component.md`` is ``/frontend:component``."""
MAX_DESCRIPTION_CHARS = 300
"""The longest description (and the longest first line used as one)."""
MAX_HINT_CHARS = 120
"""The longest ``argument-hint``."""
MAX_BODY_CHARS = 32 * 1024
"""The longest prompt."""
SHELL_MARK = "!`"
"""What starts a shell command in a Claude Code command file (never run here)."""
PLACEHOLDER_RE = re.compile(r"\$(ARGUMENTS|[1-9][0-9]?)")
"""``$ARGUMENTS``, or ``$1`` to ``$99``."""
UNUSED_ARGUMENTS = "\n\nARGUMENTS: {args}"
"""Added to a prompt that has no placeholder when text was typed after the name, so it is never lost."""
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (and bidirectional overrides) a field may not hold; tab and newline are allowed."""
_KEY_LINE_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):[ \t]*(.*?)[ \t]*$")
"""A ``key: value`` line of front matter that YAML cannot read (``argument-hint: [pr] [priority]``)."""


class CommandFileError(ValueError):
    """What is wrong with a command file, as one phrase (the loader adds the file's name)."""


@dataclass(frozen=True)
class ParsedCommand:
    """A command file's validated content (its name and where it came from are added by the loader)."""

    description: str
    argument_hint: str
    body: str

    @property
    def runs_nothing(self) -> bool:
        """Whether the prompt holds Claude Code's ``!`` + backtick, which is sent as text, not run."""
        return SHELL_MARK in self.body


def command_name(relative: str) -> str:
    """The command name of a file at ``relative`` (``/``-separated, below its commands folder), lowercased.

    Raises:
        CommandFileError: a part of the path is not a name a command may have.
    """
    *folders, file = relative.split("/")
    stem = file[:-len(SUFFIX)] if file.lower().endswith(SUFFIX) else file
    parts = [part.lower() for part in (*folders, stem)]
    for part in parts:
        if not SEGMENT_RE.match(part):
            shown = part if len(part) <= 40 else part[:40] + "…"
            raise CommandFileError(f"name {shown!r} is not letters, digits, '-' and '_' (at most 64, starting with "
                                   f"a letter or digit)")
    return SEPARATOR.join(parts)


def parse_command(text: str) -> ParsedCommand:
    """A command file's content: its front matter's fields (optional) and the prompt.

    Raises:
        CommandFileError: the front matter is malformed, a field is not what it should be, or the prompt is
            empty, too long or holds control characters.
    """
    text = text.removeprefix("\ufeff")
    header, body = "", text
    if text.split("\n", 1)[0].rstrip() == "---":
        try:
            header, body = split_front_matter(text)
        except SkillFileError as exc:
            raise CommandFileError(str(exc)) from None
    fields = _front_matter(header)
    body = body.strip()
    if not body:
        raise CommandFileError("has no prompt")
    if len(body) > MAX_BODY_CHARS:
        raise CommandFileError(f"prompt is longer than {MAX_BODY_CHARS} characters")
    if _CONTROL_RE.search(body):
        raise CommandFileError("prompt contains control characters")
    description = _text_field(fields.get("description"), "description", MAX_DESCRIPTION_CHARS)
    if not description:
        first = next(line.strip().lstrip("#").strip() for line in body.splitlines() if line.strip())
        description = first if len(first) <= MAX_DESCRIPTION_CHARS else first[:MAX_DESCRIPTION_CHARS - 1] + "…"
    hint = fields.get("argument-hint")
    if isinstance(hint, list) and all(isinstance(item, (str, int)) for item in hint):
        hint = " ".join(f"[{item}]" for item in hint)  # YAML reads ``[message]`` as a list
    return ParsedCommand(description, _text_field(hint, "argument-hint", MAX_HINT_CHARS), body)


def _front_matter(header: str) -> dict[str, Any]:
    """The front matter's mapping (empty when there is none); lines YAML cannot read are read as ``key: value``."""
    if not header.strip():
        return {}
    try:
        data = load_plain_yaml(header)
    except SkillFileError as exc:
        data = _key_lines(header) if str(exc).startswith("is not valid YAML") else None
        if data is None:
            raise CommandFileError(f"front matter {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CommandFileError("front matter is not a mapping (description, argument-hint)")
    return {str(key): value for key, value in data.items()}


def _key_lines(header: str) -> dict[str, str] | None:
    """Front matter as plain ``key: value`` lines, or None when a line is not one."""
    fields: dict[str, str] = {}
    for line in header.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE_RE.match(line)
        if match is None:
            return None
        fields[match.group(1)] = match.group(2)
    return fields


def _text_field(value: Any, key: str, limit: int) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise CommandFileError(f"{key} must be text, not {type(value).__name__}")
    text = " ".join(value.split())
    if len(text) > limit:
        raise CommandFileError(f"{key} is longer than {limit} characters")
    if _CONTROL_RE.search(text):
        raise CommandFileError(f"{key} contains control characters")
    return text


def argument_words(args: str) -> list[str]:
    """The words of ``args``: quotes group words as a shell does; unbalanced quotes split at spaces only."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def expand(body: str, args: str) -> str:
    """The message a command's prompt ``body`` becomes when ``args`` is typed after its name.

    ``$ARGUMENTS`` is ``args``; ``$N`` the N-th word (empty when there are fewer). The result is never scanned
    again, so a ``$1`` inside ``args`` stays as typed. When the prompt uses no placeholder and ``args`` is not
    empty, ``ARGUMENTS: args`` is added at its end.
    """
    args = args.strip()
    words = argument_words(args)
    used = False

    def put(match: re.Match[str]) -> str:
        nonlocal used
        used = True
        key = match.group(1)
        if key == "ARGUMENTS":
            return args
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    text = PLACEHOLDER_RE.sub(put, body)
    if args and not used:
        text += UNUSED_ARGUMENTS.format(args=args)
    return text
