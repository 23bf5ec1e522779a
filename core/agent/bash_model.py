"""The model of a bash command line that :mod:`~ljtui.core.agent.bash_syntax` reads.

* a :class:`Script` is and-or chains (:class:`AndOr`, joined by ``;``, ``&``
  or newlines; ``background`` when it ends with ``&``) of pipelines
  (:class:`Pipeline`, joined by ``&&``/``||``; ``negated`` by ``!``) of
  commands joined by ``|``/``|&``;
* a command is a :class:`SimpleCommand` (assignments, words, redirections),
  a :class:`Subshell` ``( … )``, or a :class:`Compound` (``if``, ``while``,
  ``until``, ``for``, ``select``, ``case``, ``{ }``, ``(( ))``, ``[[ ]]``, a
  function definition) with its bodies;
* a :class:`Word` has its literal value when
  quote removal leaves it fully literal, its brace expansion, and an
  :class:`Expansion` for each part only the
  running shell knows, which holds the script of a command or process
  substitution;
* a :class:`Redirect` has its operator, descriptor and target word, or its
  here-document (body, whether the delimiter was quoted).

The walkers (:func:`commands_of`, :func:`simple_commands_of`,
:func:`unreadable_in`) visit every level: bodies and substitutions too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, Union

from ljtui.core.agent.bash_words import (
    BRACE_CHARACTERS, GLOB_CHARACTERS, PLACEHOLDER_FIRST, is_placeholder, expand_braces, quote_pattern, unescape,
    unquoted,
)

WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
"""Redirection operators that open their target for writing (``>&`` only when the target is not a number)."""
HERE_OPERATORS = frozenset({"<<", "<<-", "<<<"})
DUPLICATING = frozenset({">&", "<&"})
CLOSING = frozenset({">&-", "<&-"})
INPUT_OPERATORS = frozenset({"<", "<&", "<<", "<<-", "<<<", "<&-"})
"""Operators whose default descriptor is 0 (the others default to 1)."""


@dataclass(frozen=True)
class Expansion:
    """A part of a word that only the running shell can know.

    Attributes:
        kind: :data:`PARAMETER`, :data:`COMMAND`, :data:`PROCESS`, :data:`ARITHMETIC` or :data:`OTHER`.
        text: its source text (``$HOME``, ``$(date)``, ``<(curl …)``).
        scripts: the commands it runs: the substituted script of a command or process substitution,
            and any substitution nested inside a parameter or arithmetic expansion (``${x:-$(id)}``).
    """

    kind: str
    text: str
    scripts: tuple[Script, ...] = ()


@dataclass(frozen=True)
class Word:
    """One shell word, before expansion.

    Attributes:
        text: the word as written (``"a b"$x``).
        pattern: the word with quoted characters backslash-escaped and each expansion replaced by a
            placeholder (the private-use character ``U+E000 + i`` for ``expansions[i]``).
        expansions: what the placeholders stand for, in order.
    """

    text: str
    pattern: str
    expansions: tuple[Expansion, ...] = ()

    @cached_property
    def value(self) -> str | None:
        """The word after quote removal when it is fully literal, else ``None``."""
        return None if self.expansions else unescape(self.pattern)

    @cached_property
    def approx(self) -> str:
        """The word after quote removal, each expansion kept as written (``rm -rf $D`` for ``"rm -rf $D"``)."""
        return unescape(self.pattern, tuple(e.text for e in self.expansions))

    @cached_property
    def shown(self) -> str:
        """The literal value, or the approximate text when the word has an expansion."""
        value = self.value
        return self.approx if value is None else value

    @property
    def globbed(self) -> bool:
        """Whether an unquoted ``*``, ``?`` or ``[`` makes it a file-name pattern."""
        return bool(unquoted(self.pattern) & GLOB_CHARACTERS)

    @property
    def braced(self) -> bool:
        """Whether it has an unquoted ``{`` or ``}`` (a brace expansion or a literal brace)."""
        return bool(unquoted(self.pattern) & BRACE_CHARACTERS)

    @cached_property
    def scripts(self) -> tuple[Script, ...]:
        """The commands its expansions run, in order."""
        return tuple(script for expansion in self.expansions for script in expansion.scripts)

    def expand(self) -> tuple[Word, ...]:
        """The words brace expansion makes of this one (itself when it has no brace expression).

        Raises:
            BraceLimitExceeded: it would yield more than :data:`MAX_WORDS` words.
        """
        if "{" not in self.pattern:
            return (self,)
        patterns = expand_braces(self.pattern)
        if patterns == [self.pattern]:
            return (self,)
        return tuple(self._renumbered(p) for p in patterns)

    def _renumbered(self, pattern: str) -> Word:
        """A word of one brace alternative, keeping only the expansions it still holds."""
        used: list[Expansion] = []
        out: list[str] = []
        escaped = False
        for char in pattern:
            if not escaped and is_placeholder(char):
                out.append(chr(PLACEHOLDER_FIRST + len(used)))
                used.append(self.expansions[ord(char) - PLACEHOLDER_FIRST])
            else:
                out.append(char)
            escaped = not escaped and char == "\\"
        return Word(unescape("".join(out), tuple(e.text for e in used)), "".join(out), tuple(used))


def literal_word(text: str) -> Word:
    """A word whose value is exactly ``text`` (as if fully quoted)."""
    return Word(text, quote_pattern(text))



@dataclass(frozen=True)
class HereDoc:
    """A here-document.

    Attributes:
        delimiter: the delimiter word as written (``'EOF'``).
        quoted: the delimiter was quoted, so the body is literal (no expansion).
        body: the body text (leading tabs removed for ``<<-``).
        words: the body as one word: its expansions hold the substitutions an unquoted body runs.
    """

    delimiter: str
    quoted: bool
    body: str
    words: tuple[Word, ...] = ()


@dataclass(frozen=True)
class Redirect:
    """One redirection.

    Attributes:
        operator: as written: ``>``, ``>>``, ``<``, ``>&``, ``<&``, ``&>``, ``&>>``, ``>|``, ``>&-``,
            ``<<``, ``<<-``, ``<<<``.
        target: the file, descriptor or here-string word; ``None`` for a here-document or a close.
        fd: the descriptor written before the operator (``2`` in ``2>&1``), else ``None``.
        heredoc: the here-document of ``<<``/``<<-``.
    """

    operator: str
    target: Word | None = None
    fd: int | None = None
    heredoc: HereDoc | None = None

    @property
    def descriptor(self) -> int:
        """The descriptor it changes (0 for input operators, 1 for output ones, unless given)."""
        if self.fd is not None:
            return self.fd
        return 0 if self.operator in INPUT_OPERATORS else 1

    @property
    def duplicates(self) -> bool:
        """Whether it only copies or closes a descriptor (``2>&1``, ``>&2``, ``<&0``, ``>&-``)."""
        if self.operator in CLOSING:
            return True
        value = self.target.value if self.target else None
        return self.operator in DUPLICATING and value is not None and (value.isdigit() or value == "-")

    @property
    def writes(self) -> bool:
        """Whether it opens its target file for writing."""
        return self.operator in WRITE_OPERATORS and not self.duplicates

    @property
    def words(self) -> tuple[Word, ...]:
        """Its target word, or its here-document body as a word."""
        if self.heredoc is not None:
            return self.heredoc.words
        return (self.target,) if self.target is not None else ()


@dataclass(frozen=True)
class Assignment:
    """``NAME=value`` (or ``NAME+=value``) before a command or on its own."""

    name: str
    value: Word
    text: str


@dataclass(frozen=True)
class SimpleCommand:
    """A command name with its arguments, the assignments before it and its redirections.

    Attributes:
        words: the name and arguments as written (before brace expansion).
        assignments: ``NAME=value`` words before the name (the command's environment).
        redirects: in source order.
        text: the command's source text.
    """

    words: tuple[Word, ...]
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    text: str = ""

    def argv(self) -> tuple[Word, ...]:
        """The words after brace expansion (``rm -{r,f} x`` is ``rm -r -f x``).

        Raises:
            BraceLimitExceeded: a brace expansion yields too many words.
        """
        return tuple(expanded for word in self.words for expanded in word.expand())

    @property
    def all_words(self) -> tuple[Word, ...]:
        """Every word it expands: assignments, name and arguments, redirection targets and bodies."""
        return (*(a.value for a in self.assignments), *self.words,
                *(w for r in self.redirects for w in r.words))


@dataclass(frozen=True)
class Subshell:
    """``( … )``: its body runs in a child shell, so a ``cd`` or an assignment inside does not leak out."""

    body: Script
    redirects: tuple[Redirect, ...] = ()
    text: str = ""

    @property
    def all_words(self) -> tuple[Word, ...]:
        """The words of its redirections (its body's words belong to the body)."""
        return tuple(w for r in self.redirects for w in r.words)


@dataclass(frozen=True)
class Compound:
    """A compound command, run in the current shell.

    Attributes:
        kind: ``if``, ``while``, ``until``, ``for``, ``select``, ``case``, ``group`` (``{ }``),
            ``arithmetic`` (``(( ))`` and ``for (( ))``), ``test`` (``[[ ]]`` and ``[ ]``) or ``function``.
        bodies: the scripts it may run (conditions and bodies), in source order; a function's body is
            kept although it only runs when called.
        words: what it expands itself: ``for`` values, the ``case`` subject and patterns, test operands.
        redirects: redirections of the whole command.
        text: its source text.
    """

    kind: str
    bodies: tuple[Script, ...] = ()
    words: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    text: str = ""

    @property
    def all_words(self) -> tuple[Word, ...]:
        """Its own words and those of its redirections (its bodies' words belong to the bodies)."""
        return (*self.words, *(w for r in self.redirects for w in r.words))


Command = Union[SimpleCommand, Subshell, Compound]


@dataclass(frozen=True)
class Pipeline:
    """Commands joined by ``|`` or ``|&``; every one but the last runs in a child shell."""

    commands: tuple[Command, ...]
    negated: bool = False


@dataclass(frozen=True)
class AndOr:
    """Pipelines joined by ``&&`` and ``||`` (``operators`` has one fewer entry than ``pipelines``)."""

    pipelines: tuple[Pipeline, ...]
    operators: tuple[str, ...] = ()
    background: bool = False


@dataclass(frozen=True)
class Script:
    """A command list: the whole line, a substitution's or a body's commands.

    Attributes:
        chains: run in order.
        text: the source text.
        problem: why it could not be read (then ``chains`` is empty), else ``None``.
    """

    chains: tuple[AndOr, ...]
    text: str = ""
    problem: str | None = None


def commands_of(script: Script) -> Iterator[Command]:
    """Every command of ``script`` in source order, at any level: bodies and substitutions included."""
    for chain in script.chains:
        for pipeline in chain.pipelines:
            for command in pipeline.commands:
                yield command
                yield from inner_commands(command)


def inner_commands(command: Command) -> Iterator[Command]:
    """The commands inside ``command``: its bodies and the substitutions in its words."""
    for word in command.all_words:
        for script in word.scripts:
            yield from commands_of(script)
    if isinstance(command, Subshell):
        yield from commands_of(command.body)
    elif isinstance(command, Compound):
        for body in command.bodies:
            yield from commands_of(body)


def simple_commands_of(script: Script) -> Iterator[SimpleCommand]:
    """Every simple command of ``script``, at any level."""
    return (c for c in commands_of(script) if isinstance(c, SimpleCommand))


def unreadable_in(script: Script) -> str | None:
    """The first ``problem`` of ``script`` or of any script inside it, else ``None``."""
    if script.problem:
        return script.problem
    for command in commands_of(script):
        scripts = [s for w in command.all_words for s in w.scripts]
        if isinstance(command, Subshell):
            scripts.append(command.body)
        elif isinstance(command, Compound):
            scripts.extend(command.bodies)
        for inner in scripts:
            if inner.problem:
                return inner.problem
    return None
