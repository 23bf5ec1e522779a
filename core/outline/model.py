"""The outline's data: one definition (:class:`Symbol`) and one file's definitions (:class:`FileOutline`)."""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

KINDS: tuple[str, ...] = (
    "class", "function", "method", "interface", "struct", "enum", "trait", "type", "namespace", "module",
)
"""Every kind a definition may have, in every language (``namespace``: TypeScript; ``module``: Rust ``mod``)."""
MAX_SIGNATURE_CHARS = 160
"""A signature longer than this is cut and ends with :data:`CUT_MARK`."""
CUT_MARK = "…"
"""Ends a cut signature."""
REPLACEMENT = "\ufffd"
"""Stands for a character that is not printable (a control character in a file name or signature)."""
MAX_QUALNAME_CHARS = 200
"""A qualified name longer than this is not an outline entry (generated or hostile code)."""
QUALNAME_SEPARATOR = "."
"""Joins the parts of a qualified name in every language: ``Class.method``, ``Type.method``, ``mod.fn``."""
_OPEN_BREAK = re.compile(r"([(\[{])[ \t]*\r?\n\s*")
"""A bracket that ends a line: the break after it goes."""
_CLOSE_BREAK = re.compile(r",?[ \t]*\r?\n\s*([)\]}])")
"""A line break (and a trailing comma) before a closing bracket: both go."""
DIGEST_HEX_CHARS = 16
"""Length of a definition's digest (hex of its source text's hash)."""


class Symbol(NamedTuple):
    """One definition (an immutable tuple: cheap to make by the ten thousand).

    Attributes:
        path: the file, repository-relative, ``/``-separated.
        line: 1-based line of the definition's name (after decorators).
        end_line: 1-based last line of its source.
        kind: one of :data:`KINDS`.
        qualname: the qualified name: enclosing classes (or Go/Rust receiver
            types, Rust traits and modules, TypeScript namespaces) and the
            name, joined with ``.``: ``Uploader.send``.
        signature: the definition's header on one line: whitespace runs
            collapsed, the body left out, cut to :data:`MAX_SIGNATURE_CHARS`.
        digest: a hash of the definition's whole source text (decorators and
            body included): equal digests mean the definition did not change.
    """

    path: str
    line: int
    end_line: int
    kind: str
    qualname: str
    signature: str
    digest: str

    @property
    def name(self) -> str:
        """The last part of the qualified name."""
        return self.qualname.rpartition(QUALNAME_SEPARATOR)[2]

    @property
    def parent(self) -> str:
        """The qualified name of the enclosing definition, ``""`` at the top level."""
        return self.qualname.rpartition(QUALNAME_SEPARATOR)[0]

    @property
    def depth(self) -> int:
        """How many definitions enclose this one."""
        return self.qualname.count(QUALNAME_SEPARATOR)

    @property
    def where(self) -> str:
        """``path:line``."""
        return f"{self.path}:{self.line}"


class FileOutline:
    """The definitions of one source file, decoded on first use.

    Attributes:
        path: repository-relative, ``/``-separated.
        language: the language it was read as (``python``, ``typescript``…).
        digest: the hash of the content its definitions come from.
        names: every word (ASCII letters, digits, underscores) the file
            mentions, once each, space-separated (what the ranking counts
            references with).
    """

    __slots__ = ("path", "language", "digest", "names", "_rows", "_symbols")

    def __init__(self, path: str, language: str, digest: str, rows: str, names: str) -> None:
        self.path = path
        self.language = language
        self.digest = digest
        self.names = names
        self._rows = rows
        self._symbols: tuple[Symbol, ...] | None = None

    @property
    def symbols(self) -> tuple[Symbol, ...]:
        """The file's definitions, ordered by line."""
        if self._symbols is None:
            self._symbols = decode_rows(self.path, self._rows)
        return self._symbols

    def __repr__(self) -> str:
        return f"FileOutline({self.path!r}, {self.language!r})"


def printable(text: str) -> str:
    """``text`` with every character a terminal would not print (escape sequences…) replaced by U+FFFD."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else REPLACEMENT for ch in text)


def one_line(text: str, limit: int = MAX_SIGNATURE_CHARS) -> str:
    """``text`` with whitespace runs collapsed to one space, unprintable characters replaced, cut to ``limit``."""
    if "\n" in text:
        text = _OPEN_BREAK.sub(r"\1", _CLOSE_BREAK.sub(r"\1", text))
    flat = printable(" ".join(text.split()))
    if len(flat) > limit:
        return flat[: limit - len(CUT_MARK)].rstrip() + CUT_MARK
    return flat


Row = tuple[int, int, str, str, str, str]
"""A definition as extractors produce it and the cache stores it: line, end line, kind, qualname,
signature, digest (the file's path is known from where the row is kept)."""


def digest_of(data: bytes | memoryview) -> str:
    """The digest of a definition's source text (:data:`DIGEST_HEX_CHARS` hex characters)."""
    return hashlib.blake2b(data, digest_size=DIGEST_HEX_CHARS // 2).hexdigest()


def symbol_of(path: str, row: Row) -> Symbol:
    """The :class:`Symbol` of ``row`` in the file at ``path``."""
    return Symbol(path, *row)


FIELD_SEPARATOR, ROW_SEPARATOR = "\t", "\n"
"""How :func:`encode_rows` joins a row's fields and the rows."""
_UNSAFE = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
ROWS_PATTERN = re.compile(
    r"(?:(?:[1-9][0-9]{0,8}\t[1-9][0-9]{0,8}\t(?:%s)\t[^\t\n]{1,%d}\t[^\t\n]{0,%d}\t[0-9a-f]{%d})"
    r"(?:\n(?=.)|\Z))*" % ("|".join(KINDS), MAX_QUALNAME_CHARS, MAX_SIGNATURE_CHARS, DIGEST_HEX_CHARS)
)
"""What encoded rows look like (checked on rows read back from the cache)."""


def encode_rows(rows: list[Row]) -> str:
    """Rows as one string (how entries travel between processes and sit in the cache).

    A row whose name is empty or whose qualified name is longer than
    :data:`MAX_QUALNAME_CHARS` is left out.
    """
    kept = []
    for line, end, kind, qualname, signature, digest in rows:
        if not qualname.isprintable():
            qualname = printable(qualname.translate(_UNSAFE))
        if not qualname or qualname.endswith(QUALNAME_SEPARATOR) or len(qualname) > MAX_QUALNAME_CHARS:
            continue
        if not signature.isprintable():
            signature = printable(signature.translate(_UNSAFE))
        kept.append(f"{line}\t{max(end, line)}\t{kind}\t{qualname}\t{signature}\t{digest}")
    return ROW_SEPARATOR.join(kept)


def decode_rows(path: str, text: str) -> tuple[Symbol, ...]:
    """The symbols of the encoded ``text`` (made by :func:`encode_rows` or checked with :data:`ROWS_PATTERN`)."""
    if not text:
        return ()
    symbols = []
    for row in text.split(ROW_SEPARATOR):
        line, end, kind, qualname, signature, digest = row.split(FIELD_SEPARATOR)
        symbols.append(Symbol(path, int(line), max(int(end), int(line)), kind, qualname, signature, digest))
    return tuple(symbols)
