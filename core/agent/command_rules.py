"""Allow-lists that match commands, not text (AGENT-3).

An ``agent.allow_commands`` entry is a glob (``fnmatch``: ``*`` matches any
text, ``?`` one character, ``[…]`` a set) matched against **one simple
command**: its words after quote removal and brace expansion, joined back
as the shell would quote them (``shlex.join``). A line runs without asking
only when it is *plain*, nothing in it looks dangerous
(:func:`~ljtui.core.agent.danger.danger_of`), and **every** simple command
in it matches an entry. A plain line is a list (``;``, ``&&``, ``||``,
newlines) or pipeline (``|``) of simple commands whose words are all
literal — quoted or not; unquoted ``*``, ``?`` and ``[`` in arguments are
fine (they expand to file names), but a command name is a plain word
without glob or brace characters. A line is not plain when it has a
variable, a command or process substitution (``$x``, ``$(…)``, backquotes,
``<(…)``), an arithmetic expansion, an assignment before a command
(``LD_PRELOAD=x pytest``), a redirection other than to ``/dev/null`` or a
descriptor copy (``2>&1``, ``>&2``), a here-document or here-string, a
background job (``&``), a subshell ``( … )``, a ``{ }`` group, an ``if``,
``for``, ``while``, ``until``, ``case``, ``[[ ]]`` or function, or ``!``.
"Allow bash for this session" covers the same plain, harmless lines, whatever
their commands.

With ``allow_commands: ["pytest*", "git status"]``:

* ``pytest -q tests/``, ``pytest 'tests/a b.py'``, ``pytest 'a;b'`` (the
  ``;`` is quoted: an argument), ``pytest 2>&1``, ``pytest 2>/dev/null``,
  ``pytest -q && git status`` run without asking;
* ``pytest --version; rm x`` asks: ``rm x`` matches no entry;
* ``pytest | tail -n 5`` asks unless ``tail*`` is listed too;
* ``pytest > out.txt``, ``pytest &``, ``LD_PRELOAD=./x.so pytest``,
  ``pytest $(echo x)``, ``$(pytest)``, ``(pytest)``, ``pytest <<< x``,
  ``for f in a; do pytest; done`` ask: they are not plain;
* ``{pytest,rm} x`` asks: a command name may not hold braces or globs (bash
  would run ``pytest rm x``);
* ``git status -s`` asks: ``git status`` matches exactly that command; write
  ``git status*`` for any arguments. Note that ``pytest*`` also matches
  ``pytest-watch``: write ``pytest`` and ``pytest *`` to mean only pytest;
* ``rm -rf build`` asks even with ``rm*`` listed: it is dangerous.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Sequence

from ljtui.core.agent.bash_syntax import (ARITHMETIC, COMMAND, PARAMETER, PROCESS, BraceLimitExceeded, Command,
                                          Compound, Redirect, SimpleCommand, Subshell, Word, parse)
from ljtui.core.agent.danger import danger_of

NULL_DEVICE = "/dev/null"
SHOWN_CHARS = 40
"""Longest piece of a command quoted in a reason."""
COMPOUND_NAMES = {"if": "an if statement", "while": "a while loop", "until": "an until loop", "for": "a for loop",
                  "select": "a select loop", "case": "a case statement", "group": "a { } group",
                  "arithmetic": "an arithmetic command (( ))", "test": "a test [[ ]]",
                  "function": "a function definition"}
EXPANSION_NAMES = {PARAMETER: "a variable expansion", COMMAND: "a command substitution",
                   PROCESS: "a process substitution", ARITHMETIC: "an arithmetic expansion"}


@dataclass(frozen=True)
class PlainCommand:
    """One plain simple command: its words after quote removal and brace expansion."""

    argv: tuple[str, ...]

    @property
    def canonical(self) -> str:
        """The text an allow-list entry is matched against (``shlex.join`` of the words)."""
        return shlex.join(self.argv)


@dataclass(frozen=True)
class NotPlain:
    """Why a line is not plain, for the user (``"a redirection to out.txt"``)."""

    why: str


@dataclass(frozen=True)
class Match:
    """A simple command and the allow-list entry that covers it (``None`` for a session grant)."""

    command: PlainCommand
    entry: str | None = None


@dataclass(frozen=True)
class Allowed:
    """The line runs without asking; ``matches`` has one entry per simple command, in order."""

    matches: tuple[Match, ...]

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class NotAllowed:
    """The line must be asked about.

    Attributes:
        why: for the user: what is not plain (``"a background job (&)"``), the danger, or the unmatched
            command (``"`rm x` matches no allowed command"``).
        plain: the line is plain and harmless: only an allow-list entry was missing.
    """

    why: str
    plain: bool = False

    def __bool__(self) -> bool:
        return False


@dataclass(frozen=True)
class LineCheck:
    """What a permission decision needs to know about one command line.

    Attributes:
        plain: the line is plain and nothing in it looks dangerous (a session grant may cover it).
        listed: the allow-list entry covering each simple command, in order, when all are covered.
        why: why no grant covers it (empty when one may).
    """

    plain: bool
    listed: tuple[str, ...] | None
    why: str


def simple_commands(command: str) -> tuple[PlainCommand, ...] | NotPlain:
    """The line as its plain simple commands, or why it is not plain."""
    script = parse(command)
    if script.problem:
        return NotPlain(f"text whose {script.problem.removeprefix('its ')}")
    plain: list[PlainCommand] = []
    for chain in script.chains:
        if chain.background:
            return NotPlain("a background job (&)")
        for pipeline in chain.pipelines:
            if pipeline.negated:
                return NotPlain("a negation (!)")
            for part in pipeline.commands:
                found = _plain(part)
                if isinstance(found, NotPlain):
                    return found
                plain.append(found)
    return tuple(plain) if plain else NotPlain("no command")


def plain_line(command: str, root: Path) -> Allowed | NotAllowed:
    """Whether a session grant covers the line: plain, and nothing in it dangerous (truthy when it does)."""
    judged = _judged(command, root)
    return judged if isinstance(judged, NotAllowed) else Allowed(tuple(Match(c) for c in judged))


def allowed_by(command: str, globs: Sequence[str], root: Path) -> Allowed | NotAllowed:
    """Whether the allow-list ``globs`` lets the line run without asking (truthy when it does).

    Args:
        command: the shell text.
        globs: ``agent.allow_commands`` entries, each matched against one simple command.
        root: the repository root (for the danger check).
    """
    judged = _judged(command, root)
    return judged if isinstance(judged, NotAllowed) else _matched(judged, globs)


def check_line(command: str, globs: Sequence[str], root: Path) -> LineCheck:
    """Both answers at once: whether a session grant may cover the line, and which entries list it."""
    judged = _judged(command, root)
    if isinstance(judged, NotAllowed):
        return LineCheck(False, None, judged.why)
    listed = _matched(judged, globs)
    if isinstance(listed, NotAllowed):
        return LineCheck(True, None, listed.why)
    return LineCheck(True, tuple(m.entry or "" for m in listed.matches), "")


def _judged(command: str, root: Path) -> tuple[PlainCommand, ...] | NotAllowed:
    commands = simple_commands(command)
    if isinstance(commands, NotPlain):
        return NotAllowed(commands.why)
    danger = danger_of(command, root)
    return NotAllowed(danger) if danger else commands


def _matched(commands: tuple[PlainCommand, ...], globs: Sequence[str]) -> Allowed | NotAllowed:
    matches: list[Match] = []
    for plain in commands:
        entry = next((g for g in globs if fnmatchcase(plain.canonical, g.strip())), None)
        if entry is None:
            return NotAllowed(f"`{_short(plain.canonical)}` matches no allowed command", plain=True)
        matches.append(Match(plain, entry))
    return Allowed(tuple(matches))


def _plain(command: Command) -> PlainCommand | NotPlain:
    if isinstance(command, Subshell):
        return NotPlain("a subshell ( … )")
    if isinstance(command, Compound):
        return NotPlain(COMPOUND_NAMES.get(command.kind, "a compound command"))
    assert isinstance(command, SimpleCommand)
    if command.assignments:
        return NotPlain(f"an assignment ({_short(command.assignments[0].text)})")
    for redirect in command.redirects:
        why = _redirect(redirect)
        if why:
            return NotPlain(why)
    if not command.words:
        return NotPlain("no command")
    for word in command.words:
        if word.value is None:
            return NotPlain(_expansion(word))
    name = command.words[0]
    if name.globbed or name.braced:
        return NotPlain(f"a command name with glob or brace characters ({_short(name.text)})")
    try:
        argv = command.argv()
    except BraceLimitExceeded:
        return NotPlain("a brace expansion too large to read")
    return PlainCommand(tuple(w.value or "" for w in argv))


def _redirect(redirect: Redirect) -> str | None:
    """Why a redirection keeps a line from being plain, or ``None`` when it is harmless."""
    if redirect.heredoc is not None:
        return "a here-document"
    if redirect.operator == "<<<":
        return "a here-string"
    target = redirect.target.value if redirect.target is not None else None
    if redirect.duplicates and target is not None and target.isdigit():
        return None
    if target == NULL_DEVICE:
        return None
    if target is None:
        shown = redirect.target.text if redirect.target is not None else redirect.operator
        return f"a redirection ({_short(shown)})"
    direction = "from" if redirect.descriptor == 0 and not redirect.writes else "to"
    return f"a redirection {direction} {_short(target)}"


def _expansion(word: Word) -> str:
    first = word.expansions[0]
    return f"{EXPANSION_NAMES.get(first.kind, 'an expansion')} ({_short(first.text)})"


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…"
