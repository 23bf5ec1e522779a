"""Python definitions, read with the standard library's ``ast`` (the interpreter's own parser).

Classes, functions and methods are found at the module level, in class
bodies (nested classes too), and inside module- or class-level ``if``,
``try`` and ``with`` blocks (``if TYPE_CHECKING:``, platform branches).
Functions defined inside functions are local and left out.
"""

from __future__ import annotations

import ast
import warnings

from ljtui.core.outline.model import QUALNAME_SEPARATOR, Row, digest_of, one_line

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
_QUOTES = "'\""


def extract_python(source: str) -> list[Row]:
    """The definitions of a Python module, in source order.

    Args:
        source: the module's text.

    Raises:
        SyntaxError, ValueError, RecursionError, MemoryError: the module does not parse.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = source.split("\n")
    rows: list[Row] = []
    _walk(tree.body, "", False, lines, rows)
    rows.sort(key=lambda r: r[0])
    return rows


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, lines: list[str], rows: list[Row]) -> None:
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
         lines: list[str]) -> Row:
    if isinstance(node, ast.ClassDef):
        kind = "class"
    else:
        kind = "method" if in_class else "function"
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    digest = digest_of("\n".join(lines[first - 1:end]).encode("utf-8", "surrogatepass"))
    return node.lineno, end, kind, qualname, _signature(node, lines), digest


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> str:
    """The header from ``def``/``class`` to (not including) its colon, on one line."""
    body_line, body_col = _start_of(node.body[0])
    first, last = lines[node.lineno - 1], lines[body_line - 1]
    start, stop = _char_col(first, node.col_offset), _char_col(last, body_col)
    if body_line == node.lineno:
        text = first[start:stop]
    else:
        text = "\n".join([first[start:], *lines[node.lineno:body_line - 1], last[:stop]])
    return one_line(_header(text))


def _start_of(node: ast.stmt) -> tuple[int, int]:
    """Where a statement's source starts: the line of its first decorator (which starts its line), if any."""
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return min(d.lineno for d in decorators), 0
    return node.lineno, node.col_offset


def _char_col(line: str, byte_col: int) -> int:
    """The character column of ``ast``'s UTF-8 byte column ``byte_col`` in ``line``."""
    if line.isascii():
        return byte_col
    return len(line.encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "ignore"))


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
