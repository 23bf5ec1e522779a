"""Regex safety for patterns that come from a model (PLN-5).

Two layers. :func:`has_nested_unbounded_quantifier` refuses the shapes that
make backtracking engines hang — an unbounded quantifier applied to a group
that itself contains one, like ``(a+)+``, ``(.*)*`` or ``(\\d+){2,}`` —
before anything runs. :func:`compile_pattern` then compiles the pattern
with RE2, a linear-time engine, so even a shape the first check misses
cannot hang a run; patterns RE2 cannot run (backreferences, lookaround)
and patterns whose compiled program is absurdly large (which RE2 runs in
linear time, but with a huge constant) become a :class:`PatternRefused`
with a message the model can act on. Linear time is still not bounded time
on a 5 MB line: the grep tool adds a time bound by running the search in a
process it can kill (:mod:`ljtui.core.planner.grep_proc`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import re2

RE2_MAX_MEM = 64 * 1024 * 1024
"""Bytes of memory RE2 may use for one compiled pattern."""
RE2_MAX_PROGRAM_SIZE = 10_000
"""Instructions a compiled pattern may have. When RE2's fast engine runs out of
memory on hostile input, a search costs about a nanosecond per instruction per
byte, so a 10,000-instruction program over a 5 MB line already takes about a
minute (the grep time bound stops it). Ordinary patterns compile to a few
dozen instructions; bigger ones come from huge repeat counts such as
``(.*){1,1000}`` or Unicode classes repeated many times."""

_QUANTIFIER_BRACES = re.compile(r"\{(\d*)(,?)(\d*)\}")

_RE2_HINTS: tuple[tuple[str, str], ...] = (
    ("(?=", "lookahead is not supported"),
    ("(?!", "negative lookahead is not supported"),
    ("(?<=", "lookbehind is not supported"),
    ("(?<!", "negative lookbehind is not supported"),
    ("(?>", "atomic groups are not supported"),
    ("invalid escape sequence: \\Z", "\\Z is not supported, use \\z"),
    ("invalid escape sequence: \\", "backreferences and unknown escapes are not supported"),
    ("bad repetition operator: ++", "possessive quantifiers are not supported"),
    ("bad repetition operator: *+", "possessive quantifiers are not supported"),
    ("bad repetition operator: ?+", "possessive quantifiers are not supported"),
    ("invalid repetition size", "repeat counts are limited to 1000"),
)


class PatternRefused(ValueError):
    """A pattern that will not be run; ``str(exc)`` is for the model."""


@dataclass
class _Group:
    has_unbounded: bool = False


@dataclass
class _Scan:
    stack: list[_Group] = field(default_factory=lambda: [_Group()])
    last_atom_group: _Group | None = None
    """The group just closed, if the previous atom was a group."""


def has_nested_unbounded_quantifier(src: str) -> bool:
    """Whether ``src`` applies an unbounded quantifier to a group holding one.

    Unbounded quantifiers are ``*``, ``+`` and ``{n,}``. Character classes
    (``[+*]``) and escaped metacharacters (``\\+``) are skipped, so they are
    never mistaken for quantifiers. Nesting is transitive: ``((a+)b)*`` is
    flagged because the outer group contains an unbounded quantifier.

    Args:
        src: the regular expression source.

    Returns:
        True for catastrophic shapes such as ``(a+)+``, ``(.*)*`` and
        ``(\\d+){2,}``; False otherwise.
    """
    scan = _Scan()
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch == "\\":
            i = _skip_escape(src, i)
            scan.last_atom_group = None
        elif ch == "[":
            i = _skip_class(src, i)
            scan.last_atom_group = None
        elif ch == "(":
            scan.stack.append(_Group())
            scan.last_atom_group = None
            i += 1
        elif ch == ")":
            closed = scan.stack.pop() if len(scan.stack) > 1 else _Group()
            scan.stack[-1].has_unbounded |= closed.has_unbounded
            scan.last_atom_group = closed
            i += 1
        else:
            quant = _quantifier_at(src, i)
            if quant is None:
                scan.last_atom_group = None
                i += 1
                continue
            length, unbounded = quant
            if unbounded:
                if scan.last_atom_group is not None and scan.last_atom_group.has_unbounded:
                    return True
                scan.stack[-1].has_unbounded = True
            scan.last_atom_group = None
            i += length
            if i < n and src[i] in "?+":
                i += 1  # lazy or possessive suffix belongs to this quantifier
    return False


def _quantifier_at(src: str, i: int) -> tuple[int, bool] | None:
    """(length, unbounded) of the quantifier starting at ``i``, or None."""
    ch = src[i]
    if ch in "*+":
        return 1, True
    if ch == "?":
        return 1, False
    if ch == "{":
        m = _QUANTIFIER_BRACES.match(src, i)
        if m and (m.group(1) or m.group(3)):
            unbounded = bool(m.group(2)) and not m.group(3)
            return m.end() - i, unbounded
    return None


def _skip_escape(src: str, i: int) -> int:
    """Index just past the escape starting at ``src[i] == '\\\\'``."""
    if src.startswith("\\Q", i):
        end = src.find("\\E", i + 2)
        return len(src) if end < 0 else end + 2
    j = i + 2
    if i + 1 < len(src) and src[i + 1] in "xpP" and src.startswith("{", j):
        close = src.find("}", j)
        return len(src) if close < 0 else close + 1
    return min(j, len(src))


def _skip_class(src: str, i: int) -> int:
    """Index just past the character class starting at ``src[i] == '['``."""
    j = i + 1
    if j < len(src) and src[j] == "^":
        j += 1
    if j < len(src) and src[j] == "]":
        j += 1  # a leading ']' is a literal member
    while j < len(src):
        ch = src[j]
        if ch == "\\":
            j += 2
        elif src.startswith("[:", j):
            close = src.find(":]", j + 2)
            j = j + 1 if close < 0 else close + 2
        elif ch == "]":
            return j + 1
        else:
            j += 1
    return len(src)


def re2_options() -> re2.Options:
    """RE2 options for searching: no logging, bounded memory, no capturing groups.

    RE2 would log compile errors to stderr (scribbling on the TUI). Groups
    never capture: a search only needs where a match is, and asking for
    groups makes RE2 run its slow engine over the whole match (hundreds of
    times slower on one long line).
    """
    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = RE2_MAX_MEM
    opts.never_capture = True
    return opts


def compile_pattern(pattern: str, *, multiline: bool = True) -> re2._Regexp:
    """Check ``pattern`` and compile it with RE2 over bytes.

    Args:
        pattern: the regex, in RE2 syntax.
        multiline: make ``^`` and ``$`` match at line boundaries, as grep does.

    Returns:
        The compiled pattern, for searching ``bytes``.

    Raises:
        PatternRefused: empty, catastrophic, not runnable by RE2 or
            compiling to more than :data:`RE2_MAX_PROGRAM_SIZE` instructions.
    """
    if not pattern:
        raise PatternRefused("the pattern is empty")
    if has_nested_unbounded_quantifier(pattern):
        raise PatternRefused(
            f"pattern {pattern!r} applies an unbounded quantifier to a group that already "
            "contains one (like (a+)+ or (.*)*); it can take hours on one long line. "
            "Rewrite it without the nested repetition, e.g. (a+)+ -> a+"
        )
    source = f"(?m){pattern}" if multiline else pattern
    try:
        regex = re2.compile(source.encode("utf-8", "surrogatepass"), re2_options())
    except re2.error as exc:
        raise PatternRefused(_explain(pattern, exc)) from None
    if regex.programsize > RE2_MAX_PROGRAM_SIZE:
        raise PatternRefused(
            f"pattern {pattern!r} compiles to {regex.programsize} RE2 instructions, over the limit of "
            f"{RE2_MAX_PROGRAM_SIZE}; it could take minutes on one long line. Use smaller repeat counts "
            "(e.g. .{1,1000} -> .*) or search for a literal part of what you want"
        )
    return regex


def _explain(pattern: str, exc: re2.error) -> str:
    raw = exc.args[0] if exc.args else b""
    detail = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    hint = next((h for needle, h in _RE2_HINTS if needle in detail), "")
    hint_text = f"{hint}; " if hint else ""
    return (
        f"pattern {pattern!r} cannot run on RE2 ({hint_text}RE2 says: {detail}). "
        "Use RE2 syntax: no backreferences or lookaround; search for a literal instead"
    )
