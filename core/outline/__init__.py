"""The repository outline: every definition with its file, line, kind, qualified name and signature.

What it reads: the repository's source files (Python with the standard
``ast``; JavaScript, TypeScript, Go, Rust and Java with tree-sitter grammar
wheels, nothing downloaded), as git lists them (tracked, and untracked but
not ignored) or, outside git, as a walk finds them; never the planner's
skipped folders (``.git``, ``.agent``, ``node_modules``, ``.venv``…), never
a secret file (:class:`~ljtui.core.secret_files.SecretFiles`: not even
opened), never through a symlink. Files over 1 MiB, binary files and files
that do not parse are skipped and counted. The index is cached in
``.agent/cache/`` (checked as untrusted input when read back), so a warm
start parses only changed files. Nothing here imports Textual or prints.

The API (all from ``ljtui.core.outline``)::

    index = build_index(root, secrets=policy)          # OutlineIndex (warm: from the cache)
    index.files["core/upload.py"].symbols               # tuple[Symbol, ...], by line
    list(index.symbols())                                # every Symbol, by path then line

    rendered = render_outline(index, budget_tokens=2000) # RenderedOutline
    rendered.text      # byte-stable for the same repository state: for the cached prompt prefix

    view = outline(root, "core/")                        # OutlineView: a file/folder (or None: the repo)
    view.symbols, view.text, view.error                  # bounded; a bad path is an error sentence

    found = find_symbol(root, "Uploader.send")           # SymbolMatches, best first
    found.matches[0].symbol.where, found.text            # "core/upload.py:88"

    report = resync(root, plan.declarations, result.files)  # after an apply (PLN-13)
    report.issues, report.text                           # declared symbols the apply did not touch

A :class:`Symbol` is ``path``, ``line``, ``end_line``, ``kind`` (one of
:data:`KINDS`), ``qualname`` (``Class.method``; Go and Rust methods are
``Type.method``, nested classes ``Outer.Inner.method``), ``signature``
(the header on one line, at most 160 characters) and ``digest`` (changes
when its source does).

Agent tools: ``get_outline(path?)`` is :func:`outline` and
``find_symbol(name)`` is :func:`find_symbol`; both take the model's raw
JSON value and return ``.text`` for the tool result and ``.error`` for a
graceful failure (``find_symbol(root, name, index=index)`` reuses an index
already built). The system prompt's outline is
``render_outline(build_index(root, secrets=policy)).text``; build it in a
worker thread, never on the event loop (a cold start of a large repository
takes seconds; its parsing runs in worker processes). ``policy`` is
``SecretFiles.allowing(<the user's security.allow_secret_files>)``.

After an apply (PLN-13): ``resync(root, plan.declarations, result.files)``
with the plan's :class:`~ljtui.core.edits.plan.Declarations` and the
``ApplyResult``'s written files, right after the apply (it compares with the
cache as it was, so call it before anything else rebuilds the outline, or
pass ``before=`` the index built before the apply). Only the declared
symbols' files and the written files are re-indexed
(:func:`refresh_files`); ``report.text`` is one sentence per declaration
the apply did not live up to.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {
    "ljtui.core.outline.index": ("OutlineIndex", "Skipped", "build_index", "refresh_files"),
    "ljtui.core.outline.model": ("KINDS", "FileOutline", "Symbol"),
    "ljtui.core.outline.query": ("MAX_MATCHES", "MAX_OUTLINE_SYMBOLS", "OutlineView", "SymbolMatch",
                                 "SymbolMatches", "find_symbol", "outline"),
    "ljtui.core.outline.render": ("DEFAULT_BUDGET_TOKENS", "RenderedOutline", "render_outline"),
    "ljtui.core.outline.resync": ("DeclarationIssue", "ResyncReport", "after_apply", "resync"),
}
"""Where each public name lives. Names load on first use, so a worker process that needs only the
parser does not import the rest."""
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
