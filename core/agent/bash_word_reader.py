"""Words out of tree-sitter-bash nodes, for :mod:`~ljtui.core.agent.bash_syntax`.

A :class:`WordReader` turns the nodes of one word into a
:class:`~ljtui.core.agent.bash_words.Word`: quotes removed by bash's rules
(single quotes, double quotes with their four escapes, ``$'…'`` escapes,
backslashes, line continuations), ``$"…"`` read as one string, and each
expansion kept with the scripts it runs. Backquoted commands are read again
after bash removes their escaping backslashes, so nested backquotes and
backquotes in a here-document body are seen.
"""

from __future__ import annotations

import re
from typing import Callable

import tree_sitter

from ljtui.core.agent.bash_model import Expansion, Script, Word
from ljtui.core.agent.bash_words import (ARITHMETIC, COMMAND, OTHER, PARAMETER, PROCESS, placeholder, quote_pattern,
                                         unquoted_pattern)

EXPANSIONS = {"simple_expansion": PARAMETER, "expansion": PARAMETER, "command_substitution": COMMAND,
              "process_substitution": PROCESS, "arithmetic_expansion": ARITHMETIC}
LITERALS = frozenset({"word", "number", "extglob_pattern", "regex", "test_operator", "variable_name",
                      "special_variable_name", "brace_expression", "file_descriptor", "subscript"})
"""Nodes whose text is unquoted literal word text."""
COMPOSITES = frozenset({"concatenation", "command_name", "variable_assignment"})
"""Nodes whose children, read in order, make one word."""
CONTINUATIONS = re.compile(rb"(?:\\\r?\n)*")
"""Source text between two nodes of one word."""
DOUBLE_QUOTE_ESCAPE = re.compile(r"\\([$`\"\\\n])")
BACKQUOTE_ESCAPE = re.compile(r"\\([$`\\])")
BACKQUOTE_ESCAPE_IN_STRING = re.compile(r"\\([$`\\\"])")
ANSI_C_ESCAPE = re.compile(r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})"
                           r"|U([0-9A-Fa-f]{1,8})|c(.))", re.S)
ANSI_C_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                 "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
CONTROL_MASK = 0x1F
BYTE_MASK = 0xFF
MAX_CODE_POINT = 0x10FFFF


class _Parts:
    """A word's pattern and expansions, built piece by piece."""

    def __init__(self) -> None:
        self.pattern: list[str] = []
        self.expansions: list[Expansion] = []

    def unquoted(self, text: str) -> None:
        self.pattern.append(unquoted_pattern(text))

    def quoted(self, text: str) -> None:
        self.pattern.append(quote_pattern(text))

    def expansion(self, expansion: Expansion) -> None:
        self.pattern.append(placeholder(len(self.expansions)))
        self.expansions.append(expansion)

    def word(self, text: str) -> Word:
        return Word(text, "".join(self.pattern), tuple(self.expansions))


class WordReader:
    """Reads the words of one parsed source.

    Args:
        source: the bytes that were parsed.
        script: reads a substitution's statement nodes into a script.
        reparse: parses text into a script (for backquoted commands).
    """

    def __init__(self, source: bytes, script: Callable[[list[tree_sitter.Node]], Script],
                 reparse: Callable[[str], Script]) -> None:
        self.source = source
        self.script = script
        self.reparse = reparse

    def text(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", "surrogatepass")

    def node_text(self, node: tree_sitter.Node) -> str:
        return self.text(node.start_byte, node.end_byte)

    def words(self, nodes: list[tree_sitter.Node]) -> list[Word]:
        """``nodes`` grouped into words: nodes with nothing (or only line continuations) between them are one."""
        groups: list[list[tree_sitter.Node]] = []
        end = -1
        for node in nodes:
            start = node.start_byte
            if groups and (start == end or (b"\\" in self.source[end:start]
                                             and CONTINUATIONS.fullmatch(self.source[end:start]))):
                groups[-1].append(node)
            else:
                groups.append([node])
            end = node.end_byte
        return [self.word(group) for group in groups]

    def word(self, nodes: list[tree_sitter.Node]) -> Word:
        first = nodes[0]
        if len(nodes) == 1 and first.type == "command_name" and first.child_count == 1:
            first = first.children[0]
        if len(nodes) == 1 and first.type == "word":
            text = self.node_text(first)
            return Word(text, unquoted_pattern(text))
        parts = _Parts()
        self.sequence(nodes, parts)
        return parts.word(self.text(nodes[0].start_byte, nodes[-1].end_byte))

    def sequence(self, nodes: list[tree_sitter.Node], parts: _Parts) -> None:
        """Adjacent pieces of one word; a ``$`` just before a double-quoted string is its locale prefix."""
        for i, node in enumerate(nodes):
            following = nodes[i + 1].type if i + 1 < len(nodes) else ""
            if node.type == "$" and following == "string":
                continue
            self.piece(node, parts)

    def piece(self, node: tree_sitter.Node, parts: _Parts) -> None:
        kind = node.type
        text = self.node_text(node)
        if kind in LITERALS or not node.is_named:
            parts.unquoted(text)
        elif kind == "raw_string":
            parts.quoted(text[1:-1])
        elif kind == "ansi_c_string":
            parts.quoted(ansi_c(text[2:-1]))
        elif kind == "string":
            self.string(node, parts)
        elif kind == "translated_string":
            for child in node.named_children:
                self.piece(child, parts)
        elif kind in COMPOSITES:
            self.sequence(node.children, parts)
        elif kind in EXPANSIONS:
            parts.expansion(self.expansion(node))
        else:
            parts.expansion(Expansion(OTHER, text, self.nested(node)))

    def string(self, node: tree_sitter.Node, parts: _Parts) -> None:
        """A double-quoted string: its text is quoted, its expansions stay expansions."""
        position = node.start_byte
        for child in node.children:
            parts.quoted(_double_quoted(self.text(position, child.start_byte)))
            if child.type == "string_content":
                parts.quoted(_double_quoted(self.node_text(child)))
            elif child.type in EXPANSIONS:
                parts.expansion(self.expansion(child))
            elif child.is_named:
                parts.expansion(Expansion(OTHER, self.node_text(child), self.nested(child)))
            elif child.type != '"':
                parts.quoted(self.node_text(child))
            position = child.end_byte
        parts.quoted(_double_quoted(self.text(position, node.end_byte)))

    def opaque(self, node: tree_sitter.Node) -> Word:
        """A word standing for a whole expression, holding the substitutions inside it."""
        text = self.node_text(node)
        if node.type in EXPANSIONS:
            return Word(text, placeholder(0), (self.expansion(node),))
        return Word(text, placeholder(0), (Expansion(OTHER, text, self.nested(node)),))

    def expansion(self, node: tree_sitter.Node) -> Expansion:
        kind = EXPANSIONS[node.type]
        text = self.node_text(node)
        if kind == COMMAND and node.children and node.children[0].type == "`":
            inner = self.text(node.children[0].end_byte, node.children[-1].start_byte)
            in_string = node.parent is not None and node.parent.type == "string"
            return Expansion(kind, text, (self.backquote_script(inner, in_string),))
        if kind in (COMMAND, PROCESS):
            return Expansion(kind, text, (self.script(node.children),))
        return Expansion(kind, text, self.nested(node))

    def backquote_script(self, inner: str, in_string: bool) -> Script:
        """The script of a backquoted command, read after bash removes its escaping backslashes."""
        pattern = BACKQUOTE_ESCAPE_IN_STRING if in_string else BACKQUOTE_ESCAPE
        return self.reparse(pattern.sub(r"\1", inner))

    def nested(self, node: tree_sitter.Node) -> tuple[Script, ...]:
        """The scripts of the substitutions anywhere inside ``node``."""
        scripts: list[Script] = []
        for child in node.children:
            if child.type in ("command_substitution", "process_substitution"):
                scripts.extend(self.expansion(child).scripts)
            else:
                scripts.extend(self.nested(child))
        return tuple(scripts)

    def body_word(self, body: tree_sitter.Node) -> Word:
        """An unquoted here-document body as one word: its expansions, backquotes included."""
        parts = _Parts()
        position = body.start_byte
        for child in [*body.children, None]:
            end = child.start_byte if child is not None else body.end_byte
            literal = self.text(position, end)
            if child is not None and child.type == "heredoc_content":
                literal += self.node_text(child)
            self.backquoted(literal, parts, in_string=False)
            if child is not None and child.type in EXPANSIONS:
                parts.expansion(self.expansion(child))
            position = child.end_byte if child is not None else end
        return parts.word(self.node_text(body))

    def backquoted(self, text: str, parts: _Parts, in_string: bool) -> None:
        """Literal text in which unescaped backquotes are command substitutions."""
        start = i = 0
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "`":
                end = i + 1
                while end < len(text) and text[end] != "`":
                    end += 2 if text[end] == "\\" else 1
                parts.quoted(text[start:i])
                inner = text[i + 1:end]
                parts.expansion(Expansion(COMMAND, text[i:end + 1], (self.backquote_script(inner, in_string),)))
                start = i = end + 1
                continue
            i += 1
        parts.quoted(text[start:])


def ansi_c(text: str) -> str:
    """The value of a ``$'…'`` string's content (bash stops at a NUL)."""
    def decoded(match: re.Match[str]) -> str:
        simple, octal, hexa, short, long, control = match.groups()
        if simple:
            return ANSI_C_SIMPLE[simple]
        if octal:
            return chr(int(octal, 8) & BYTE_MASK)
        if hexa:
            return chr(int(hexa, 16))
        if short or long:
            code = int(short or long, 16)
            return chr(code) if code <= MAX_CODE_POINT else ""
        return chr(ord(control) & CONTROL_MASK)

    return ANSI_C_ESCAPE.sub(decoded, text).split("\0", 1)[0]


def _double_quoted(text: str) -> str:
    """Text inside double quotes after bash's backslash rules (``\\$``, ``\\```, ``\\"``, ``\\\\``, newline)."""
    return DOUBLE_QUOTE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)
