"""PLN-13 resync: after a plan is applied, refresh the outline where the plan said it would change.

The plan's declarations (``will_modify``, ``will_add``, ``will_remove``:
qualified names) and the files the apply wrote scope the refresh: only the
files that defined a declared name before the apply, and the written
files, are re-indexed; the rest of the cache is left as it was. Each
declaration is then checked against what the files hold now:

* ``will_modify``: the definition existed and its source changed;
* ``will_add``: the definition exists and did not before (in that file);
* ``will_remove``: the definition no longer exists.

A declaration the apply did not live up to is reported with a sentence
saying why. "Before" is the index passed in, or else what the cache held
when :func:`resync` started: call it right after the apply, before anything
else refreshes the outline (or pass the index built before the apply).

A declared name matches a definition whose qualified name is the name or
ends with it (``send`` and ``Uploader.send`` both match ``Uploader.send``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ljtui.core.outline import cache
from ljtui.core.outline.index import OutlineIndex, refresh_files
from ljtui.core.outline.model import FileOutline, Symbol, printable
from ljtui.core.outline.parse import OK
from ljtui.core.outline.query import match_kind
from ljtui.core.secret_files import SecretFiles

DECLARATION_KEYS = ("will_modify", "will_add", "will_remove")
"""The plan's declaration lists, in the order they are checked."""
MAX_DECLARED = 200
"""Declared names checked per key; more are reported as not checked."""
_MATCHES = ("exact", "name")

Located = dict[tuple[str, str], str]
"""(path, qualified name) -> digest of that definition."""


@dataclass(frozen=True)
class DeclarationIssue:
    """A declared name the apply did not live up to.

    Attributes:
        key: ``will_modify``, ``will_add`` or ``will_remove``.
        name: the declared qualified name.
        problem: what is wrong, as a sentence.
    """

    key: str
    name: str
    problem: str


@dataclass(frozen=True)
class ResyncReport:
    """What :func:`resync` refreshed and found.

    Attributes:
        reindexed: the files re-indexed, repository-relative, sorted.
        issues: declarations the apply did not live up to, in declaration order.
        index: the outline of the re-indexed files (only those).
        text: a summary for the user or the model.
    """

    reindexed: tuple[str, ...]
    issues: tuple[DeclarationIssue, ...]
    index: OutlineIndex
    text: str

    @property
    def ok(self) -> bool:
        """Every declaration was lived up to."""
        return not self.issues


def resync(root: Path, declarations: Any, written: Iterable[str] = (), *, secrets: SecretFiles | None = None,
           before: OutlineIndex | None = None) -> ResyncReport:
    """Re-index the files a plan's declarations and its apply touched; report declarations not lived up to.

    Args:
        root: the repository root.
        declarations: the plan's declarations: an object with ``will_modify``,
            ``will_add`` and ``will_remove`` attributes (``Declarations`` of
            ``ljtui.core.edits.plan``) or a mapping with those keys.
        written: the files the apply wrote, repository-relative (an
            ``ApplyResult``'s ``files``).
        secrets: which files are never read.
        before: the outline from before the apply (default: the cache as it is now).
    """
    root = Path(root).absolute()
    declared = {key: _names(declarations, key) for key in DECLARATION_KEYS}
    wanted = [name for names in declared.values() for name in names]
    known, candidates = _before_files(root, before, wanted)
    previous = _located(candidates, wanted)
    scope = {path for located in previous.values() for path, _ in located}
    scope |= {_clean(path) for path in written if isinstance(path, str)}
    scope.discard("")
    index = refresh_files(root, scope, secrets=secrets)
    current = _located(list(index.files.values()), wanted)
    files = {_clean(path) for path in written if isinstance(path, str)}
    issues = [issue for key in DECLARATION_KEYS for name in declared[key]
              if not _is_path(name, files) and (issue := _check(key, name, previous, current, known)) is not None]
    reindexed = tuple(sorted(scope))
    return ResyncReport(reindexed, tuple(issues), index, _text(reindexed, issues))


def _is_path(name: str, written: set[str]) -> bool:
    """A declared file rather than a symbol (plans sometimes declare the files they add): not checked."""
    return "/" in name or name in written


def _names(declarations: Any, key: str) -> list[str]:
    values = declarations.get(key) if isinstance(declarations, Mapping) else getattr(declarations, key, ())
    if isinstance(values, str) or not isinstance(values, Iterable):
        return []
    names = [value.strip() for value in values if isinstance(value, str) and value.strip()]
    return list(dict.fromkeys(names))[:MAX_DECLARED]


def _before_files(root: Path, before: OutlineIndex | None, wanted: list[str]) -> tuple[set[str], list[FileOutline]]:
    """The files "before" knew, and those of them that may define a wanted name (from ``before`` or the cache)."""
    if before is not None:
        return set(before.files), list(before.files.values())
    tails = {name.rpartition(".")[2] for name in wanted}
    entries = [e for e in cache.load_entries(root).entries.values() if e.status == OK]
    candidates = [FileOutline(e.path, e.language, e.digest, e.rows, e.names)
                  for e in entries if any(tail in e.rows for tail in tails)]
    return {e.path for e in entries}, candidates


def _located(files: list[FileOutline], wanted: list[str]) -> dict[str, Located]:
    """For each wanted name, the definitions it matches: (path, qualname) -> digest."""
    found: dict[str, Located] = {name: {} for name in wanted}
    tails = {name.rpartition(".")[2] for name in wanted}
    for outline in files:
        symbols: tuple[Symbol, ...] = outline.symbols if any(t in outline.names for t in tails) else ()
        for symbol in symbols:
            for name in wanted:
                if match_kind(symbol.qualname, name) in _MATCHES:
                    found[name][(symbol.path, symbol.qualname)] = symbol.digest
    return found


def _check(key: str, name: str, previous: dict[str, Located], current: dict[str, Located],
           known: set[str]) -> DeclarationIssue | None:
    """The issue with one declaration, or None when the apply lived up to it.

    Args:
        key: which declaration list ``name`` is in.
        name: the declared name.
        previous: definitions matching each name before the apply.
        current: the same after the apply.
        known: the files "before" knew (a definition in another file cannot be told new from changed).
    """
    before, after = previous[name], current[name]
    added = [place for place in after if place not in before]
    modified = [place for place, digest in after.items() if place in before and before[place] != digest]
    if key == "will_remove":
        if after:
            how = "changed" if added or modified else "unchanged"
            return DeclarationIssue(key, name, f"declared removed, but it is still defined ({how}) at "
                                               f"{_places(after)}")
        if not before and known:
            return DeclarationIssue(key, name, "declared removed, but no definition with that name was found "
                                               "before the apply")
        return None
    verb = "added" if key == "will_add" else "modified"
    if not after:
        gone = "no longer exists after the apply" if before else "was not found before or after the apply"
        return DeclarationIssue(key, name, f"declared {verb}, but it {gone}")
    if key == "will_add":
        if added:
            return None
        if modified:
            return DeclarationIssue(key, name, "declared added, but it existed before the apply (it was modified)")
    else:
        if modified or any(path not in known for path, _ in added):
            return None
        if added:
            return DeclarationIssue(key, name, "declared modified, but it did not exist before the apply "
                                               "(it was added)")
    return DeclarationIssue(key, name, f"declared {verb}, but the apply did not touch it ({_places(after)} is "
                                       f"unchanged)")


def _places(located: Located) -> str:
    return ", ".join(f"{printable(path)} {qualname}" for path, qualname in sorted(located))


def _clean(path: str) -> str:
    """A written file's path, normalised; ``""`` for one outside the repository."""
    cleaned = posixpath.normpath(path.strip() or ".")
    return "" if cleaned.startswith(("/", "../")) or cleaned in (".", "..") else cleaned


def _text(reindexed: tuple[str, ...], issues: list[DeclarationIssue]) -> str:
    files = ", ".join(printable(path) for path in reindexed) if reindexed else "none"
    lines = [f"Outline refreshed: {len(reindexed)} file(s) re-indexed ({files})."]
    if not issues:
        lines.append("Every declared symbol was touched as declared.")
        return "\n".join(lines)
    lines.append(f"{len(issues)} declaration(s) not lived up to:")
    lines += [f"- {issue.key} {issue.name}: {issue.problem}" for issue in issues]
    return "\n".join(lines)


def after_apply(root: Path, declarations: Any, written: Iterable[str], *,
                secrets: SecretFiles | None = None) -> str | None:
    """:func:`resync` once an apply is done: the warning the user should read (declarations not lived up to,
    or why the outline could not be refreshed), or ``None``. A plan that declares no symbol re-indexes nothing
    (PLN-13: only the declared symbols' files are). Never raises: the apply stands either way, and an outline
    left behind is rebuilt on its next use."""
    try:
        if not any(_names(declarations, key) for key in DECLARATION_KEYS):
            return None
        report = resync(root, declarations, written, secrets=secrets)
    except Exception as exc:
        return f"The outline was not refreshed after the apply ({type(exc).__name__}: {exc})."
    return report.text if report.issues else None
