"""Bounds on the arguments of a tool call, whatever sent them (SAFE-6).

A model's tool-call arguments are untrusted JSON. Parsed carelessly, text
nested a hundred thousand levels deep exhausts Python's stack in the JSON
parser, and every later walk of the value (secret redaction, the session
log, the request that sends the history back) fails the same way; text
megabytes long fills memory and every later request. So arguments nested
deeper than :data:`MAX_ARGUMENT_DEPTH` or longer than
:data:`MAX_ARGUMENT_CHARS` are never built into a value: the call gets
:class:`RefusedArguments`, empty on the wire, and the tool registry answers
it with the problem as a tool error the model reads, without running
anything. The depth is measured before parsing, by a scan that keeps no
stack, so no depth of input can raise ``RecursionError``.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_ARGUMENT_DEPTH = 64
"""Deepest nesting of objects and arrays a call's arguments may have (the object itself is level 1).
No tool takes more than three levels; the bound leaves room and keeps every walk of the value shallow."""

MAX_ARGUMENT_CHARS = 2_000_000
"""Longest a call's arguments may be, as JSON text: twice the longest text argument a tool takes
(a whole file's content, 1,000,000 characters) with its escapes."""

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
"""A complete JSON string (possessive, so an unterminated one cannot make the scan backtrack)."""
_BRACKET = re.compile(r"[\[\]{}]")


class RefusedArguments(dict[str, Any]):
    """The arguments of a call that will not run: an empty object on the wire, and why.

    The call keeps its id and name, so the reply stays valid for the API (every
    tool use is answered); :meth:`ljtui.core.tools.ToolRegistry.call` answers
    it with :attr:`problem` instead of running the tool.
    """

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem


class CutArguments(RefusedArguments):
    """The arguments of a call the reply's ``max_tokens`` cut off before they were complete."""

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"not run: your reply was cut off at its token limit (max_tokens) while the arguments of this "
            f"{tool} call were still being written, so they were incomplete. The calls before it in the reply "
            "ran. Send this call again, shorter: write a long file in parts, or make smaller edits.")
        self.tool = tool


def depth_problem() -> str:
    """What the model is told about arguments nested too deeply."""
    return (f"arguments nested more than {MAX_ARGUMENT_DEPTH} levels; the call was not run. "
            "Send the arguments the tool's schema describes, with flat values.")


def size_problem(chars: int, *, at_least: bool = False) -> str:
    """What the model is told about arguments of ``chars`` characters (``at_least``: or more), over the limit."""
    size = f"{chars:,}{' or more' if at_least else ''}"
    return (f"arguments are {size} characters of JSON, over the limit of {MAX_ARGUMENT_CHARS:,}; "
            "the call was not run. Send less in one call.")


def text_depth_exceeds(text: str, limit: int = MAX_ARGUMENT_DEPTH) -> bool:
    """Whether the JSON ``text`` opens more than ``limit`` objects or arrays inside one another.

    Brackets inside complete strings do not count; the scan stops at the
    first level past ``limit``.
    """
    depth = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class ArgumentText:
    """The JSON text of one call's arguments as it streams in pieces; past the size limit only its length is kept."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self.chars = 0

    def add(self, piece: str) -> None:
        """Take the next piece of the arguments' text."""
        self.chars += len(piece)
        if self.chars <= MAX_ARGUMENT_CHARS:
            self._pieces.append(piece)
        else:
            self._pieces.clear()

    def parse(self, tool: str, *, cut: bool = False) -> dict[str, Any]:
        """The arguments, or :class:`RefusedArguments` when they are too large or too deep.

        ``cut``: the reply ended at its ``max_tokens``, so text that is not a JSON object was cut off and is
        :class:`CutArguments`.

        Raises:
            ValueError: they are not valid JSON, or not an object (names the tool), and the reply was not cut.
        """
        if self.chars > MAX_ARGUMENT_CHARS:
            return RefusedArguments(size_problem(self.chars))
        try:
            return parse_arguments("".join(self._pieces), tool)
        except ValueError:
            if cut:
                return CutArguments(tool)
            raise


def parse_arguments(text: str, tool: str) -> dict[str, Any]:
    """A call's arguments from their JSON text (empty text is ``{}``), within the bounds.

    Returns:
        The object, or :class:`RefusedArguments` when the text is too long or nested too deeply.

    Raises:
        ValueError: the text is not valid JSON, or not an object (names the tool).
    """
    if len(text) > MAX_ARGUMENT_CHARS:
        return RefusedArguments(size_problem(len(text)))
    if text_depth_exceeds(text):
        return RefusedArguments(depth_problem())
    try:
        value = json.loads(text.strip() or "{}")
    except json.JSONDecodeError:
        raise ValueError(f"tool '{tool}' arguments are not valid JSON") from None
    if not isinstance(value, dict):
        raise ValueError(f"tool '{tool}' arguments are not a JSON object")
    return value


def arguments_problem(value: Any) -> str:
    """Why arguments already built as a value break the bounds, or ``""``.

    The walk keeps its own stack and stops at the first level past
    :data:`MAX_ARGUMENT_DEPTH`; the size counts the characters of every key
    and string and one per other value, about the length of the JSON text.
    """
    if isinstance(value, RefusedArguments):
        return value.problem
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth > MAX_ARGUMENT_DEPTH:
                return depth_problem()
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else list(item)
            stack.extend((child, depth + 1) for child in children)
            chars += 2
        else:
            chars += len(item) + 2 if isinstance(item, str) else 1
        if chars > MAX_ARGUMENT_CHARS:
            return size_problem(chars, at_least=True)
    return ""
