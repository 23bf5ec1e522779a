"""The agent's outline queries: a file's or folder's outline, and finding a definition by name.

Both take their arguments as a model writes them (any JSON value), check
them, and return plain data plus the text a tool result shows; a bad
argument is an ``error`` sentence, never an exception. Both are bounded.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ljtui.core.outline.index import OutlineIndex, Skipped, build_index
from ljtui.core.outline.model import MAX_QUALNAME_CHARS, QUALNAME_SEPARATOR, Symbol, printable
from ljtui.core.outline.rank import ranked
from ljtui.core.outline.render import (
    DEFAULT_BUDGET_TOKENS, MAX_LISTED, footer, footer_room, ordered, render_outline, symbol_lines,
)
from ljtui.core.repo import CHARS_PER_TOKEN
from ljtui.core.sandbox import leads_into_state, state_refusal
from ljtui.core.secret_files import SecretFiles

MAX_OUTLINE_SYMBOLS = MAX_LISTED
"""Most definitions one file or folder outline lists."""
MAX_MATCHES = 30
"""Most definitions one :func:`find_symbol` call returns."""
MATCH_ORDER = ("exact", "name", "prefix", "ignoring case")
"""How a match was found, best first: the whole qualified name; the name or trailing parts
(``send`` or ``Uploader.send`` for ``api.Uploader.send``); a prefix of those that stops inside the
last part (``Upl``, ``Uploader.se``; ``Uploader.`` lists the members); any of these ignoring case."""


@dataclass(frozen=True)
class OutlineView:
    """A file's, folder's or the whole repository's outline.

    Attributes:
        path: the normalised path asked for (``""``: the repository).
        symbols: definitions shown, by path then line.
        total: definitions there, shown or not.
        truncated: some were left out (bounded by count or budget).
        skipped: files there that were not read, by reason.
        text: what the tool shows.
        error: why nothing could be shown (``""`` when all is well).
    """

    path: str
    symbols: tuple[Symbol, ...] = ()
    total: int = 0
    truncated: bool = False
    skipped: Skipped = Skipped()
    text: str = ""
    error: str = ""


@dataclass(frozen=True)
class SymbolMatch:
    """One definition found, and how its name matched (one of :data:`MATCH_ORDER`)."""

    symbol: Symbol
    how: str


@dataclass(frozen=True)
class SymbolMatches:
    """What :func:`find_symbol` found.

    Attributes:
        name: the name asked for.
        matches: best first: by :data:`MATCH_ORDER`, then most referenced.
        total: matches found, returned or not.
        truncated: more matched than :data:`MAX_MATCHES`.
        text: what the tool shows.
        error: why the search could not run (``""`` when it did).
    """

    name: str
    matches: tuple[SymbolMatch, ...] = ()
    total: int = 0
    truncated: bool = False
    text: str = ""
    error: str = ""


def outline(root: Path, path: Any = None, *, secrets: SecretFiles | None = None,
            budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> OutlineView:
    """The outline of a file or folder of ``root``, or of the whole repository.

    Args:
        root: the repository root.
        path: a repository-relative file or folder; ``None``, ``""`` or
            ``"."`` for the repository's ranked outline. ljtui's state
            folder (``.agent``, as named or where a link leads) is refused.
        secrets: which files are never read.
        budget_tokens: bound on the text (and at most
            :data:`MAX_OUTLINE_SYMBOLS` definitions for a file or folder).
    """
    policy = secrets or SecretFiles()
    shown, error = _normalise(path)
    if error:
        return OutlineView(shown, error=error, text=error)
    if not shown:
        index = build_index(root, secrets=policy)
        rendered = render_outline(index, budget_tokens)
        return OutlineView("", _shown_symbols(index, rendered.shown), rendered.total,
                           rendered.shown < rendered.total, index.skipped, rendered.text)
    if leads_into_state(root, shown):
        refusal = state_refusal(shown)
        return OutlineView(shown, error=refusal, text=refusal)
    rule = policy.rule_for(shown)
    if rule is not None:
        refusal = policy.refusal(shown, rule)
        return OutlineView(shown, error=refusal, text=refusal)
    index = build_index(root, secrets=policy, under=shown)
    if not index.files and not index.skipped.total:
        missing = (f"no source files at {shown!r} (the outline reads Python, JavaScript, TypeScript, Go, Rust "
                   f"and Java files that git does not ignore)")
        return OutlineView(shown, error=missing, text=missing)
    return _view(shown, index, budget_tokens)


def find_symbol(root: Path, name: Any, *, secrets: SecretFiles | None = None,
                index: OutlineIndex | None = None) -> SymbolMatches:
    """Definitions named ``name``: exact qualified names first, then names, trailing parts and prefixes.

    Args:
        root: the repository root.
        name: ``send``, ``Uploader.send``, ``Upl`` (a prefix), ``Uploader.`` (its members).
        secrets: which files are never read.
        index: an index already built for ``root`` (default: built now, from the cache).
    """
    if not isinstance(name, str) or not name.strip():
        error = "find_symbol needs a name: a non-empty string such as 'send' or 'Uploader.send'"
        return SymbolMatches(str(name)[:MAX_QUALNAME_CHARS], error=error, text=error)
    wanted = name.strip()
    if len(wanted) > MAX_QUALNAME_CHARS or any(ch.isspace() for ch in wanted):
        error = (f"not a definition name: {wanted[:MAX_QUALNAME_CHARS]!r} "
                 f"(no spaces, at most {MAX_QUALNAME_CHARS} characters)")
        return SymbolMatches(wanted[:MAX_QUALNAME_CHARS], error=error, text=error)
    index = index or build_index(root, secrets=secrets or SecretFiles())
    found = [(how, score, symbol) for score, symbol in ranked(index)
             if (how := match_kind(symbol.qualname, wanted)) is not None]
    found.sort(key=lambda item: MATCH_ORDER.index(item[0]))
    kept = tuple(SymbolMatch(symbol, how) for how, _, symbol in found[:MAX_MATCHES])
    return SymbolMatches(wanted, kept, len(found), len(found) > MAX_MATCHES,
                         _matches_text(wanted, kept, len(found)))


def match_kind(qualname: str, wanted: str) -> str | None:
    """How ``qualname`` matches the name ``wanted`` (one of :data:`MATCH_ORDER`), or None."""
    how = _match(qualname, wanted)
    if how is None and _match(qualname.lower(), wanted.lower()) is not None:
        return MATCH_ORDER[-1]
    return how


def _match(qualname: str, wanted: str) -> str | None:
    if qualname == wanted:
        return "exact"
    if qualname.endswith(QUALNAME_SEPARATOR + wanted):
        return "name"
    parts = qualname.split(QUALNAME_SEPARATOR)
    tails = (QUALNAME_SEPARATOR.join(parts[i:]) for i in range(len(parts)))
    if any(tail.startswith(wanted) and QUALNAME_SEPARATOR not in tail[len(wanted):] for tail in tails):
        return "prefix"
    return None


def _normalise(path: Any) -> tuple[str, str]:
    """``(normalised path, "")`` or ``(shown, error)`` for a path argument."""
    if path is None:
        return "", ""
    if not isinstance(path, str):
        return "", (f"path must be a string (a file or folder relative to the repository root), "
                    f"not {type(path).__name__}")
    if "\0" in path:
        return "", "path must not contain a NUL character"
    cleaned = posixpath.normpath(path.strip() or ".")
    if cleaned.startswith("/") or cleaned == ".." or cleaned.startswith("../"):
        return path, f"{path!r} is outside the repository: give a path relative to its root"
    return ("" if cleaned == "." else cleaned), ""


def _view(shown: str, index: OutlineIndex, budget_tokens: int) -> OutlineView:
    """The definitions below ``shown`` in path and line order, while they fit the budget and the count bound."""
    total = index.symbol_count
    files_total = len(index.files)
    room = (max(budget_tokens, 0) * CHARS_PER_TOKEN
            - footer_room(total, files_total, index.skipped, budget_tokens, ranked=False))
    lines: list[str] = []
    kept: list[Symbol] = []
    used = 0
    full = False
    for outline in index.files.values():
        header = f"{printable(outline.path)}:"
        pairs = list(zip(ordered(outline.symbols), symbol_lines(list(outline.symbols))))
        for count, (symbol, line) in enumerate(pairs):
            cost = len(line) + 1 + (len(header) + 1 if count == 0 else 0)
            if used + cost > room or len(kept) >= MAX_OUTLINE_SYMBOLS:
                full = True
                break
            lines += [header, line] if count == 0 else [line]
            kept.append(symbol)
            used += cost
        if full:
            break
    files_shown = len({symbol.path for symbol in kept})
    last = footer(len(kept), total, files_shown, files_total, index.skipped, budget_tokens, ranked=False)
    return OutlineView(shown, tuple(kept), total, len(kept) < total, index.skipped, "\n".join([*lines, last]))


def _shown_symbols(index: OutlineIndex, shown: int) -> tuple[Symbol, ...]:
    chosen = [symbol for _, symbol in ranked(index)[:shown]]
    return tuple(sorted(chosen, key=lambda s: (s.path, s.line, s.qualname)))


def _matches_text(name: str, matches: tuple[SymbolMatch, ...], total: int) -> str:
    if not matches:
        return f"no definition named {name!r} (nor one whose name starts with it)"
    lines = [f"{printable(m.symbol.path)}:{m.symbol.line} {m.symbol.kind} {m.symbol.qualname}: {m.symbol.signature}"
             for m in matches]
    if total > len(matches):
        lines.append(f"[{total - len(matches)} more matches not shown; give a longer or qualified name]")
    return "\n".join(lines)
