"""Python definitions, read with the standard library's ``ast`` (the interpreter's own parser).

Classes, functions and methods are found at the module level, in class
bodies (nested classes too), and inside module- or class-level ``if``,
``try`` and ``with`` blocks (``if TYPE_CHECKING:``, platform branches).
Functions defined inside functions are local and left out.
"""

from __future__ import annotations

import ast
import warnings
from itertools import accumulate

from ljtui.core.outline.model import QUALNAME_SEPARATOR, Row, digest_of, one_line

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
_QUOTES = "'\""


def extract_python(source: bytes | str, utf8: bytes) -> list[Row]:
    """The definitions of a Python module, in source order.

    Args:
        source: what ``ast`` parses: the file's bytes (byte order mark removed),
            or its decoded text when the file is not UTF-8.
        utf8: the module as UTF-8 bytes without a byte order mark (what ``ast``'s
            byte columns index into).

    Raises:
        SyntaxError, ValueError, RecursionError, MemoryError: the module does not parse.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    rows: list[Row] = []
    _walk(tree.body, "", False, _Lines(utf8), rows)
    rows.sort(key=lambda r: r[0])
    return rows


class _Lines:
    """A module's lines as ``ast`` numbers them, addressed in UTF-8 bytes without copying."""

    def __init__(self, utf8: bytes) -> None:
        if b"\r" in utf8:
            utf8 = utf8.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self.data = utf8
        self.view = memoryview(utf8)
        self.lengths = list(map(len, utf8.split(b"\n")))
        self.starts = list(accumulate(self.lengths, initial=0))

    def offset(self, line: int, column: int = 0) -> int:
        """The byte offset of 1-based ``line`` (as ``ast`` numbers it: within the file) at byte ``column``."""
        return self.starts[line - 1] + line - 1 + column

    def end(self, line: int) -> int:
        """The byte offset just past 1-based ``line`` (its line break excluded)."""
        return self.starts[line - 1] + line - 1 + self.lengths[line - 1]


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, lines: _Lines, rows: list[Row]) -> None:
    for node in body:
        if isinstance(node, _DEFS):
            qualname = prefix + node.name
            rows.append(_row(node, qualname, in_class, lines))
            if isinstance(node, ast.ClassDef):
                _walk(node.body, qualname + QUALNAME_SEPARATOR, True, lines, rows)
        elif isinstance(node, _BLOCKS):
            for block in _blocks_of(node):
                _walk(block, prefix, in_class, lines, rows)


def _blocks_of(node: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(node, "body", []), getattr(node, "orelse", []), getattr(node, "finalbody", [])]
    blocks += [handler.body for handler in getattr(node, "handlers", [])]
    return blocks


def _row(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, qualname: str, in_class: bool,
         lines: _Lines) -> Row:
    if isinstance(node, ast.ClassDef):
        kind = "class"
    else:
        kind = "method" if in_class else "function"
    first = min(node.lineno, *(d.lineno for d in node.decorator_list)) if node.decorator_list else node.lineno
    end = node.end_lineno or node.lineno
    digest = digest_of(lines.view[lines.offset(first):lines.end(end)])
    return node.lineno, end, kind, qualname, _signature(node, lines), digest


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: _Lines) -> str:
    """The header from ``def``/``class`` to (not including) its colon, on one line."""
    body_line, body_col = _start_of(node.body[0])
    header = lines.data[lines.offset(node.lineno, node.col_offset):lines.offset(body_line, body_col)]
    return one_line(_header(header.decode("utf-8", "replace")))


def _start_of(node: ast.stmt) -> tuple[int, int]:
    """Where a statement's source starts: the line of its first decorator (which starts its line), if any."""
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return min(d.lineno for d in decorators), 0
    return node.lineno, node.col_offset


def _header(text: str) -> str:
    """The header in ``text`` (from ``def``/``class`` to the body): its colon and comments left out."""
    if "#" in text:
        text = _without_comments(text)
    text = text.rstrip()
    return text[:-1] if text.endswith(":") else text


def _without_comments(text: str) -> str:
    """``text`` without its ``#`` comments; a ``#`` inside a string literal stays."""
    if "'" not in text and '"' not in text:
        return "\n".join(line.partition("#")[0] for line in text.split("\n"))
    out: list[str] = []
    quote, i = "", 0
    while i < len(text):
        ch = text[i]
        if quote and ch == "\\":
            out.append(text[i:i + 2])
            i += 2
        elif quote and text.startswith(quote, i):
            out.append(quote)
            i += len(quote)
            quote = ""
        elif not quote and ch in _QUOTES:
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            out.append(quote)
            i += len(quote)
        elif not quote and ch == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
        else:
            out.append(ch)
            i += 1
    return "".join(out)
