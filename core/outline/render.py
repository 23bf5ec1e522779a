"""The repository outline as text, cut to a token budget, byte-stable.

Definitions are taken in rank order (:mod:`~ljtui.core.outline.rank`) while
they fit in the budget (tokens estimated as characters over
:data:`~ljtui.core.planner.budget.CHARS_PER_TOKEN`, like the planner's
prompt budget); the ones taken are shown grouped by file, files in path
order, definitions in line order, nested ones indented under what encloses
them::

    core/upload.py:
      12: class Uploader(Base)
        88: def send(self, url: str, data: bytes) -> None
    src/geo.rs:
      25: [Point] pub fn new(x: f64, y: f64) -> Self

A member whose enclosing definition is not in the same file (a Rust
``impl`` method, a Go method) names it in brackets. The last line says
how many definitions and files are shown, what was left out and which
files were not read. The same repository state and budget always give the
same bytes; the last rendering is kept in the cache and reused while the
state is unchanged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ljtui.core.outline import cache
from ljtui.core.outline.index import OutlineIndex, Skipped
from ljtui.core.outline.model import QUALNAME_SEPARATOR, Symbol, printable
from ljtui.core.outline.rank import ranked
from ljtui.core.repo import CHARS_PER_TOKEN

DEFAULT_BUDGET_TOKENS = 2000
"""Estimated tokens the rendered outline may take, unless asked otherwise."""
INDENT = "  "
"""One level of nesting in the rendering."""
LEFT_OUT_HINT = "ask for a file's or folder's outline, or find a symbol by name"
"""How the reader gets what the budget left out of the ranked outline."""
NARROWER_HINT = "ask for a narrower path, or find a symbol by name"
"""How the reader gets what was left out of a file's or folder's outline."""
MAX_LISTED = 500
"""Most definitions a file's or folder's outline lists."""


@dataclass(frozen=True)
class RenderedOutline:
    """A rendered outline and what it holds.

    Attributes:
        key: the repository state and budget it was rendered for.
        text: the outline (no trailing newline).
        shown: definitions shown.
        total: definitions in the index.
        files_shown: files with a definition shown.
        files_total: files with a definition.
    """

    key: str
    text: str
    shown: int
    total: int
    files_shown: int
    files_total: int


def render_outline(index: OutlineIndex, budget_tokens: int = DEFAULT_BUDGET_TOKENS, *,
                   remember: bool = True) -> RenderedOutline:
    """The outline of ``index`` in at most ``budget_tokens`` estimated tokens.

    Args:
        index: what to render.
        budget_tokens: the bound (the last line alone may exceed a tiny budget).
        remember: keep this rendering in the cache for the next start.
    """
    key = f"{index.key}:{budget_tokens}"
    if index.render_cache is not None and index.render_cache.get("key") == key:
        return RenderedOutline(**index.render_cache)
    rendered = _render(index, budget_tokens, key)
    if remember:
        cache.save_render(index.root, asdict(rendered))
    return rendered


def symbol_lines(symbols: list[Symbol]) -> list[str]:
    """One file's definitions as outline lines, in line order, nested ones indented.

    Args:
        symbols: definitions of one file.
    """
    shown = {symbol.qualname for symbol in symbols}
    return [_line(symbol, shown) for symbol in ordered(symbols)]


def ordered(symbols: list[Symbol] | tuple[Symbol, ...]) -> list[Symbol]:
    """One file's definitions in the order :func:`symbol_lines` shows them (by line, enclosing first)."""
    return sorted(symbols, key=lambda s: (s.line, s.depth, s.qualname))


def footer(shown: int, total: int, files_shown: int, files_total: int, skipped: Skipped,
           budget_tokens: int, *, ranked: bool = True) -> str:
    """The last line: what is shown, what was left out and why, which files were not read.

    Args:
        shown: definitions shown.
        total: definitions there are.
        files_shown: files with a definition shown.
        files_total: files with a definition.
        skipped: files not read.
        budget_tokens: the budget the text was cut to.
        ranked: the definitions were taken most referenced first (else in path and line order).
    """
    not_read = f"; not read: {skipped.describe()}" if skipped.total else ""
    if total == 0:
        return f"[outline: no definitions found{not_read}]"
    if shown == total:
        return f"[outline: all {_count(total, 'definition')} in {_count(files_total, 'file')}{not_read}]"
    bound = f"{budget_tokens:,} tokens" + ("" if ranked else f" or {MAX_LISTED:,} definitions")
    order, hint = ("most referenced first", LEFT_OUT_HINT) if ranked else ("by path and line", NARROWER_HINT)
    return (f"[outline cut to {bound}: {shown:,} of {_count(total, 'definition')} in {files_shown:,} of "
            f"{_count(files_total, 'file')}, {order}; {total - shown:,} left out ({hint}){not_read}]")


def footer_room(total: int, files_total: int, skipped: Skipped, budget_tokens: int, *, ranked: bool = True) -> int:
    """Characters to keep for the last line: at least as long as any :func:`footer` for these totals."""
    if total == 0:
        return len(footer(0, 0, 0, 0, skipped, budget_tokens, ranked=ranked))
    longest = footer(total - 1, total, files_total, files_total, skipped, budget_tokens, ranked=ranked)
    return len(longest) + len(f"{total:,}")


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _line(symbol: Symbol, shown: set[str]) -> str:
    parts = symbol.qualname.split(QUALNAME_SEPARATOR)
    ancestors = [QUALNAME_SEPARATOR.join(parts[:i]) for i in range(1, len(parts))]
    depth = sum(1 for ancestor in ancestors if ancestor in shown)
    tag = f"[{symbol.parent}] " if symbol.parent and symbol.parent not in shown else ""
    return f"{INDENT * (depth + 1)}{symbol.line}: {tag}{symbol.signature}"


def _render(index: OutlineIndex, budget_tokens: int, key: str) -> RenderedOutline:
    order = ranked(index)
    total, files_total = len(order), len(index.files)
    room = max(budget_tokens, 0) * CHARS_PER_TOKEN - footer_room(total, files_total, index.skipped, budget_tokens)
    chosen: dict[str, list[Symbol]] = {}
    qualnames: dict[str, set[str]] = {}
    used = 0
    for _, symbol in order:
        names = qualnames.setdefault(symbol.path, set())
        cost = len(_line(symbol, names)) + 1 + (0 if symbol.path in chosen else len(printable(symbol.path)) + 2)
        if used + cost > room:
            break
        used += cost
        chosen.setdefault(symbol.path, []).append(symbol)
        names.add(symbol.qualname)
    shown = sum(len(symbols) for symbols in chosen.values())
    lines = []
    for path in sorted(chosen):
        lines.append(f"{printable(path)}:")
        lines.extend(symbol_lines(chosen[path]))
    lines.append(footer(shown, total, len(chosen), files_total, index.skipped, budget_tokens))
    return RenderedOutline(key, "\n".join(lines), shown, total, len(chosen), files_total)
