"""Ranking definitions: the most referenced across the repository first.

References are counted per name, cheaply: a name's mentions are the source
files that contain it as an identifier (each file's identifiers are
collected when it is parsed, so counting is a set intersection per file,
with no second pass over the sources and no import resolution, which a
token scan cannot do reliably). Counting files rather than occurrences
keeps one file that repeats a name from outweighing many files that each
use it once. The files that define the name are taken off (a definition
mentions itself), and what is left is shared among the definitions with
that name: fifty ``main`` functions do not each get the references of all
fifty.

A member can be no more referenced than what encloses it: a qualified
name's score is the lowest score of its parts, so ``Uploader.send`` scores
at most what ``Uploader`` does. Methods with common names (``get``,
``run``) of rarely used classes do not crowd out the outline, and every
definition comes after the one that encloses it. Constructors and
``__call__`` (:data:`IMPLICIT_CALLS`) are called through their class's
name, so they take its score; other special methods (``__eq__``,
``__repr__``) are scored like any name, which puts them low.

Ties go to the less nested definition, then by path and line, so the order
is total and the same for the same repository state.
"""

from __future__ import annotations

from operator import itemgetter

from ljtui.core.outline.index import OutlineIndex
from ljtui.core.outline.model import QUALNAME_SEPARATOR, Symbol


IMPLICIT_CALLS = frozenset({"__init__", "__new__", "__call__", "constructor"})
"""Members called through their class's name (Python, and JavaScript/TypeScript ``constructor``)."""


_ORDER = itemgetter(0, 1, 2, 3, 4)
"""Sort key of a ranked row: score (negated), nesting, path, line, qualified name."""


def reference_counts(index: OutlineIndex, names: set[str]) -> dict[str, int]:
    """For each of ``names``, how many outlined files mention it."""
    if index.mentions is not None:
        return {name: index.mentions.get(name, 0) for name in names}
    counts = dict.fromkeys(names, 0)
    for outline in index.files.values():
        for name in names.intersection(outline.names.split()):
            counts[name] += 1
    return counts


def ranked(index: OutlineIndex) -> list[tuple[float, Symbol]]:
    """Every definition with its score, most referenced first (see the module docstring)."""
    symbols = list(index.symbols())
    split = [symbol.qualname.split(QUALNAME_SEPARATOR) for symbol in symbols]
    definitions: dict[str, int] = {}
    defining_files: dict[str, set[str]] = {}
    for symbol, parts in zip(symbols, split):
        name = parts[-1]
        definitions[name] = definitions.get(name, 0) + 1
        defining_files.setdefault(name, set()).add(symbol.path)
    scoring = [_scored_parts(parts) for parts in split]
    mentions = reference_counts(index, {part for parts in scoring for part in parts})
    share = {name: max(count - len(defining_files.get(name, ())), 0) / definitions.get(name, 1)
             for name, count in mentions.items()}
    score = share.__getitem__
    keyed = [(-(score(parts[0]) if len(parts) == 1 else min(map(score, parts))), len(whole), symbol.path,
              symbol.line, symbol.qualname, symbol)
             for symbol, whole, parts in zip(symbols, split, scoring)]
    keyed.sort(key=_ORDER)
    return [(-item[0], item[5]) for item in keyed]


def _scored_parts(parts: list[str]) -> list[str]:
    """The parts of a qualified name that score it: all but :data:`IMPLICIT_CALLS` (unless that is all there is)."""
    if len(parts) == 1:
        return parts
    plain = [part for part in parts if part not in IMPLICIT_CALLS]
    return plain or parts
