"""Read a bash command line as bash reads it, with the tree-sitter-bash grammar.

:func:`parse` turns the text into the model of
:mod:`~ljtui.core.agent.bash_model` (re-exported here): and-or chains of
pipelines of simple commands, subshells and compound commands, whose words
know their literal value, their brace expansion and the scripts their
substitutions run (:mod:`~ljtui.core.agent.bash_words`).

Where the grammar and bash disagree, bash wins: a redirection after a
pipeline belongs to its last command (``a | b > f``), a word written after a
redirection target is an argument (``cmd > f extra``), ``a\\<newline>b`` is
one word, ``$"…"`` is one word, what follows a here-document's ``<<WORD`` on
its line continues the pipeline or list, and backquotes are read again after
bash's backslash rules (so nested backquotes and backquotes in a
here-document body are seen). Text the grammar cannot read — a syntax
error, an unclosed quote, or a stretch of source it skipped — gives a script
whose ``problem`` says so: a checker must treat it as unreadable.

The module is pure: it parses text and never runs or opens anything. The
parser is built once, on first use.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, field, replace

import tree_sitter
import tree_sitter_bash

from ljtui.core.agent.bash_model import (AndOr, Assignment, Command, Compound, Expansion, HereDoc, Pipeline, Redirect,
                                         Script, SimpleCommand, Subshell, Word, commands_of, inner_commands,
                                         literal_word, simple_commands_of, unreadable_in)
from ljtui.core.agent.bash_word_reader import WordReader
from ljtui.core.agent.bash_words import (ARITHMETIC, COMMAND, OTHER, PARAMETER, PROCESS, BraceLimitExceeded,
                                         expand_braces)

__all__ = ["ARITHMETIC", "COMMAND", "OTHER", "PARAMETER", "PROCESS", "AndOr", "Assignment", "BraceLimitExceeded",
           "Command", "Compound", "Expansion", "HereDoc", "Pipeline", "Redirect", "Script", "SimpleCommand",
           "Subshell", "Word", "commands_of", "expand_braces", "inner_commands", "literal_word", "parse", "parser",
           "simple_commands_of", "unreadable_in"]

UNREADABLE = "its quoting or syntax could not be read"
SKIPPED = "part of it could not be read"
TOO_DEEP = "it is nested too deeply to read"
STATEMENTS = frozenset({
    "command", "redirected_statement", "pipeline", "list", "negated_command", "subshell", "compound_statement",
    "if_statement", "while_statement", "for_statement", "c_style_for_statement", "case_statement",
    "function_definition", "test_command", "declaration_command", "unset_command", "variable_assignment",
    "variable_assignments"})
CLAUSES = frozenset({"elif_clause", "else_clause", "do_group", "case_item"})
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
ATOMIC = frozenset({"word", "string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body", "comment"})
"""Nodes that account for all of their source text (their children may not)."""
KINDS = {"while": "while", "until": "until", "for": "for", "select": "select", "((": "arithmetic", "{": "group",
         "if_statement": "if", "case_statement": "case", "function_definition": "function", "test_command": "test",
         "c_style_for_statement": "for"}
IGNORABLE = re.compile(rb"(?:[ \t\r\n]|\\\r?\n)*")
"""Source text between nodes that means nothing: blanks and line continuations."""


class _Unreadable(Exception):
    """The tree has a shape this reader does not know."""


PARSED_LINES_KEPT = 64
"""Lines whose parse is kept: the danger check and the allow-list rules read the same line in turn."""
_PER_THREAD = threading.local()


@functools.cache
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_bash.language())


def parser() -> tree_sitter.Parser:
    """This thread's bash parser (a tree-sitter parser must not be shared between threads: commands of
    tasks running side by side are checked in worker threads at the same time)."""
    found = getattr(_PER_THREAD, "parser", None)
    if found is None:
        found = _PER_THREAD.parser = tree_sitter.Parser(_language())
    return found


@functools.lru_cache(maxsize=PARSED_LINES_KEPT)
def parse(command: str) -> Script:
    """The script ``command`` is, as bash would read it (``problem`` set, and no chains, when it cannot be read)."""
    try:
        source = command.encode("utf-8", "surrogatepass")
        root = parser().parse(source).root_node
        if root.has_error:
            return Script((), command, UNREADABLE)
        reader = _Reader(source)
        chains = reader.chains(root.children)
        if not reader.covers(root):
            return Script((), command, SKIPPED)
    except (_Unreadable, UnicodeError, BraceLimitExceeded):
        return Script((), command, UNREADABLE)
    except RecursionError:
        return Script((), command, TOO_DEEP)
    return Script(tuple(chains), command)


@dataclass
class _Chain:
    """An and-or chain being built: pipelines of commands and the operators between them."""

    pipelines: list[list[Command]] = field(default_factory=list)
    negated: list[bool] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)

    def start(self, negated: bool = False) -> None:
        self.pipelines.append([])
        self.negated.append(negated)

    def add(self, command: Command) -> None:
        if not self.pipelines:
            self.start()
        self.pipelines[-1].append(command)

    def frozen(self) -> AndOr:
        pipelines = tuple(Pipeline(tuple(p), n) for p, n in zip(self.pipelines, self.negated) if p)
        if len(pipelines) != len(self.operators) + 1:
            raise _Unreadable("operators and pipelines do not pair up")
        return AndOr(pipelines, tuple(self.operators))


class _Reader:
    """Turns the nodes of one parsed source into the model."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.accounted: list[tuple[int, int]] = []
        """Source ranges the reader read itself where the grammar dropped them."""
        self.reading = WordReader(source, self.script, parse)

    # structure

    def chains(self, children: list[tree_sitter.Node]) -> list[AndOr]:
        """The and-or chains of a statement list (``;``, ``&``, newlines and comments separate them)."""
        chains: list[AndOr] = []
        for child in children:
            if child.type == "&" and chains:
                chains[-1] = replace(chains[-1], background=True)
            elif child.type in STATEMENTS:
                chain = _Chain()
                self.into(child, chain, new=True)
                chains.append(chain.frozen())
            elif child.is_named and child.type != "comment":
                raise _Unreadable(child.type)
        return chains

    def script(self, nodes: list[tree_sitter.Node]) -> Script:
        """The script of some statements (the text from the first to the last)."""
        statements = [n for n in nodes if n.type in STATEMENTS or n.type == "&"]
        text = self.reading.text(statements[0].start_byte, statements[-1].end_byte) if statements else ""
        return Script(tuple(self.chains(nodes)), text)

    def into(self, node: tree_sitter.Node, chain: _Chain, new: bool) -> None:
        """Add ``node`` to ``chain``: as a new pipeline (``new``) or to the current one."""
        kind = node.type
        if kind == "list":
            first = True
            for child in node.children:
                if child.type in ("&&", "||"):
                    chain.operators.append(child.type)
                elif child.is_named:
                    self.into(child, chain, new if first else True)
                    first = False
        elif kind == "pipeline":
            if new:
                chain.start()
            for child in node.named_children:
                self.into(child, chain, new=False)
        elif kind == "negated_command":
            if new:
                chain.start(negated=True)
            else:
                chain.negated[-1] = True
            for child in node.named_children:
                self.into(child, chain, new=False)
        elif kind == "redirected_statement":
            self.redirected(node, chain, new)
        else:
            if new:
                chain.start()
            chain.add(self.command(node))

    def redirected(self, node: tree_sitter.Node, chain: _Chain, new: bool) -> None:
        """A statement with redirections: they belong to its last command; a here-document may continue the line."""
        body = node.child_by_field_name("body")
        if body is not None:
            self.into(body, chain, new)
        else:
            if new:
                chain.start()
            chain.add(SimpleCommand((), text=self.reading.node_text(node)))
        redirects: list[Redirect] = []
        extra: list[Word] = []
        continuations: list[tree_sitter.Node] = []
        previous = body.end_byte if body is not None else node.start_byte
        for child in node.children:
            if child.type not in REDIRECTS:
                continue
            gap = self.reading.text(previous, child.start_byte)
            if child.type == "heredoc_redirect" and gap.strip() == "-":  # the grammar drops a "-" before "<<"
                extra.append(literal_word("-"))
                self.accounted.append((previous, child.start_byte))
            previous = child.end_byte
            self.redirect(child, redirects, extra, continuations)
        last = chain.pipelines[-1][-1]
        if isinstance(last, SimpleCommand):
            last = SimpleCommand(last.words + tuple(extra), last.assignments, last.redirects + tuple(redirects),
                                 last.text)
        elif extra:
            raise _Unreadable("words after the redirection of a compound command")
        else:
            last = replace(last, redirects=last.redirects + tuple(redirects))
        chain.pipelines[-1][-1] = last
        for child in continuations:
            if child.type == "pipeline":
                for part in child.named_children:
                    self.into(part, chain, new=False)
            elif child.type in ("&&", "||"):
                chain.operators.append(child.type)
            else:
                self.into(child, chain, new=True)

    # commands

    def command(self, node: tree_sitter.Node) -> Command:
        kind = node.type
        text = self.reading.node_text(node)
        if kind == "command":
            return self.simple(node)
        if kind in ("declaration_command", "unset_command"):
            keyword = literal_word(node.children[0].type)
            return SimpleCommand((keyword, *self.reading.words(node.children[1:])), text=text)
        if kind == "variable_assignment":
            return SimpleCommand((), (self.assignment(node),), text=text)
        if kind == "variable_assignments":
            return SimpleCommand((), tuple(self.assignment(c) for c in node.named_children), text=text)
        redirects: list[Redirect] = []
        for child in node.children:
            if child.type in REDIRECTS:
                self.redirect(child, redirects, [], [])
        if kind == "subshell":
            return Subshell(self.script(node.children), tuple(redirects), text)
        first = node.children[0].type if node.children else ""
        compound = KINDS.get(kind) or KINDS.get(first)
        if compound is None:
            raise _Unreadable(kind)
        return Compound(compound, tuple(self.bodies(node)), tuple(self.compound_words(node)), tuple(redirects), text)

    def simple(self, node: tree_sitter.Node) -> SimpleCommand:
        assignments: list[Assignment] = []
        pieces: list[tree_sitter.Node] = []
        redirects: list[Redirect] = []
        extra: list[Word] = []
        for i, child in enumerate(node.children):
            if child.type == "variable_assignment" and not pieces:
                assignments.append(self.assignment(child))
            elif child.type in REDIRECTS:
                self.redirect(child, redirects, extra, [])
            elif child.is_named or node.field_name_for_child(i) == "argument":
                pieces.append(child)
        return SimpleCommand((*self.reading.words(pieces), *extra), tuple(assignments), tuple(redirects),
                             self.reading.node_text(node))

    def assignment(self, node: tree_sitter.Node) -> Assignment:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        word = self.reading.word([value]) if value is not None else literal_word("")
        return Assignment(self.reading.node_text(name) if name is not None else "", word, self.reading.node_text(node))

    def bodies(self, node: tree_sitter.Node) -> list[Script]:
        """The statement lists of a compound command, split at its keywords, clauses included."""
        scripts: list[Script] = []
        group: list[tree_sitter.Node] = []
        expression = node.type == "c_style_for_statement"
        for child in node.children:
            if child.type in STATEMENTS and not (expression and child.type == "variable_assignment"):
                group.append(child)
                continue
            if group:
                scripts.append(self.script(group))
                group = []
            if child.type in CLAUSES:
                scripts.extend(self.bodies(child))
        if group:
            scripts.append(self.script(group))
        return scripts

    def compound_words(self, node: tree_sitter.Node) -> list[Word]:
        """What a compound command expands itself: ``for`` values, ``case`` subject and patterns, expressions."""
        words: list[Word] = []
        values: list[tree_sitter.Node] = []
        expression = node.type == "c_style_for_statement"
        for i, child in enumerate(node.children):
            name = node.field_name_for_child(i)
            if child.type == "case_item":
                words.extend(self.compound_words(child))
            elif name == "value":
                values.append(child)
            elif self.expression(child, name, expression):
                words.append(self.reading.opaque(child))
        return self.reading.words(values) + words

    @staticmethod
    def expression(node: tree_sitter.Node, name: str | None, in_for: bool) -> bool:
        """Whether a child of a compound command is an expression it evaluates (not a body, keyword or name)."""
        if not node.is_named or node.type in CLAUSES or node.type in REDIRECTS or node.type == "comment":
            return False
        if name in ("variable", "name"):
            return False
        return node.type not in STATEMENTS or (in_for and node.type == "variable_assignment")

    # redirections

    def redirect(self, node: tree_sitter.Node, redirects: list[Redirect], extra: list[Word],
                 continuations: list[tree_sitter.Node]) -> None:
        """Read one redirection node into ``redirects``; words after its target go to ``extra``."""
        descriptor = node.child_by_field_name("descriptor")
        text = self.reading.node_text(descriptor) if descriptor is not None else ""
        fd = int(text) if text.isdigit() else None
        operator = next((c.type for c in node.children if not c.is_named), "")
        if node.type == "heredoc_redirect":
            self.heredoc(node, operator, fd, redirects, extra, continuations)
            return
        if descriptor is not None and fd is None:
            raise _Unreadable("a named descriptor")
        targets = [c for c in node.named_children if c != descriptor]
        words = self.reading.words(targets)
        redirects.append(Redirect(operator, words[0] if words else None, fd))
        extra.extend(words[1:])

    def heredoc(self, node: tree_sitter.Node, operator: str, fd: int | None, redirects: list[Redirect],
                extra: list[Word], continuations: list[tree_sitter.Node]) -> None:
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        delimiter = self.reading.node_text(start) if start is not None else ""
        quoted = any(q in delimiter for q in "'\"\\")
        text = self.reading.node_text(body) if body is not None else ""
        if operator == "<<-":
            text = "".join(line.lstrip("\t") for line in text.splitlines(keepends=True))
        words = () if quoted or body is None else (self.reading.body_word(body),)
        own = Redirect(operator, None, fd, HereDoc(delimiter, quoted, text, words))
        later: list[Redirect] = []
        for i, child in enumerate(node.children):
            if child.type == "file_redirect" or child.type == "herestring_redirect":
                self.redirect(child, later, extra, continuations)
            elif child.type == "pipeline" or node.field_name_for_child(i) in ("operator", "right"):
                continuations.append(child)
        redirects.extend([own, *later])

    # words

    # coverage

    def covers(self, root: tree_sitter.Node) -> bool:
        """Whether every meaningful byte of the source belongs to a node the reader read."""
        gaps: list[tuple[int, int]] = []
        position = 0
        stack = [root]
        while stack:
            node = stack.pop()
            if node.child_count and node.type not in ATOMIC:
                stack.extend(reversed(node.children))
                continue
            if node.start_byte > position:
                gaps.append((position, node.start_byte))
            position = max(position, node.end_byte)
        gaps.append((position, len(self.source)))
        return all(self.meaningless(start, end) for start, end in gaps)

    def meaningless(self, start: int, end: int) -> bool:
        """Whether the source between two nodes is blank, line continuations, or text the reader read itself."""
        gap = self.source[start:end]
        if not gap or gap.isspace() or IGNORABLE.fullmatch(gap):
            return True
        return any(a >= start and b <= end and IGNORABLE.fullmatch(self.source[start:a] + self.source[b:end])
                   for a, b in self.accounted)


