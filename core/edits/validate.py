"""Validating a parsed plan against the repository, in memory.

Pure given file contents: files are read through an injectable reader, and
nothing is written. Blocks apply in order, each against the result of the
previous ones, so several blocks on one file chain. The outcome is a
:class:`ValidationReport`: per-entry errors and the final bytes of every
file the accepted entries change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ljtui.core.edits import errors as E
from ljtui.core.edits.anchors import BOM, Replacement, create_bytes, explain_miss, replace_once
from ljtui.core.edits.evidence import EXCERPT_CHARS, STRONG_LIMIT, find_candidates, merge_candidates
from ljtui.core.edits.paths import Target, resolve_target
from ljtui.core.edits.hunk_anchor import hunk_error, place_hunk
from ljtui.core.edits.plan import CREATE, DELETE, EDIT, EXECUTABLE, MODE, MOVE, REGULAR
from ljtui.core.edits.plan_format import EditBlock, EditPlan, Entry
from ljtui.core.edits.secret_targets import secret_rule, secret_target
from ljtui.core.secret_files import SecretFiles

LINES_LISTED = 10
"""Lines of an ambiguous ``old``'s occurrences a message lists; the rest are counted."""

Reader = Callable[[Path], "bytes | None"]
"""Reads a file's bytes; ``None`` when it does not exist; may raise ``OSError``."""


def read_bytes(path: Path) -> bytes | None:
    """The default reader: the file's bytes, or ``None`` if it is missing."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


@dataclass(frozen=True)
class FileChange:
    """One file's bytes before and after the accepted entries.

    Attributes:
        path: Repo-relative key (POSIX).
        real: Absolute path written.
        before: Bytes read at validation (``None``: the file is created).
        after: Bytes to write (``None``: the file is removed).
        mode: :data:`~ljtui.core.edits.plan.EXECUTABLE` or :data:`~ljtui.core.edits.plan.REGULAR` when the
            change sets the file's executable bits (``None``: an existing file keeps its mode, a new one
            gets the default).
    """

    path: str
    real: Path
    before: bytes | None
    after: bytes | None
    mode: int | None = None


@dataclass(frozen=True)
class EntryOutcome:
    """How one entry validated."""

    id: str
    blocks: tuple[int, ...]
    errors: tuple[E.EditError, ...] = ()
    files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    """What a user should know about how an applied block matched (empty when the entry failed)."""

    @property
    def ok(self) -> bool:
        """True when every block of the entry applies."""
        return not self.errors


@dataclass(frozen=True)
class ValidationReport:
    """Per-entry outcomes and the resulting file changes."""

    entries: tuple[EntryOutcome, ...]
    changes: dict[str, FileChange] = field(default_factory=dict)
    partial: bool = False

    @property
    def errors(self) -> list[E.EditError]:
        """Every error, in block order."""
        return [err for outcome in self.entries for err in outcome.errors]

    @property
    def ok(self) -> bool:
        """True when every entry validated."""
        return not self.errors

    @property
    def notes(self) -> list[str]:
        """Notes of the accepted entries, in block order."""
        accepted = set(self.accepted)
        return [note for outcome in self.entries if outcome.id in accepted for note in outcome.notes]

    @property
    def accepted(self) -> tuple[str, ...]:
        """Ids of entries that would be applied (all or none unless partial)."""
        if self.partial:
            return tuple(o.id for o in self.entries if o.ok)
        return tuple(o.id for o in self.entries) if self.ok else ()


class Validator:
    """Validates entries one after another against a running in-memory state.

    Accepted entries update the state, so later entries (and later chunks)
    see their results. ``changes()`` reports original versus final bytes.

    With a ``secrets`` policy (the answer goes to a model), a block whose
    target the policy calls secret fails with ``SecretTarget`` before the
    file is read, so no answer, candidate or later block's evidence shows
    anything of it. Without one (the user's own apply), every file is read.
    """

    def __init__(self, root: Path, *, reader: Reader = read_bytes, evidence: bool = True,
                 secrets: SecretFiles | None = None) -> None:
        self.root = root.resolve()
        self.reader = reader
        self.evidence = evidence
        self.secrets = secrets
        self._original: dict[str, bytes | None] = {}
        self._state: dict[str, bytes | None] = {}
        self._real: dict[str, Path] = {}
        self._mark: dict[str, bytes | None] = {}
        self._targets: dict[str, Target | E.EditError] = {}
        self._modes: dict[str, int] = {}
        """Modes the committed entries set, by file."""
        self._entry_modes: dict[str, int] = {}

    def check(self, entries: Iterable[Entry]) -> list[EntryOutcome]:
        """Validate ``entries`` in order; commit each one that fully applies."""
        outcomes = []
        for entry in entries:
            overlay: dict[str, bytes | None] = {}
            errs: list[E.EditError] = []
            notes: list[str] = []
            self._entry_modes = {}
            for block in entry.blocks:
                error = self._block(block, overlay, notes)
                if error is not None:
                    errs.append(error)
            if not errs:
                self._state.update(overlay)
                self._modes.update(self._entry_modes)
            outcomes.append(EntryOutcome(entry.id, tuple(b.number for b in entry.blocks), tuple(errs),
                                         tuple(dict.fromkeys(overlay)), () if errs else tuple(notes)))
        return outcomes

    def chunk_changes(self) -> dict[str, FileChange]:
        """Changes committed since the previous call (or since the start)."""
        out = {}
        for key, after in self._state.items():
            base = self._mark[key] if key in self._mark else self._original[key]
            mode = self._mode_change(key, after)
            if after != base or (mode is not None and key not in self._mark):
                out[key] = FileChange(key, self._real[key], base, after, mode)
        self._mark = dict(self._state)
        return out

    def changes(self) -> dict[str, FileChange]:
        """Files whose committed state (bytes or mode) differs from what was read."""
        out = {}
        for key, after in self._state.items():
            mode = self._mode_change(key, after)
            if after != self._original[key] or mode is not None:
                out[key] = FileChange(key, self._real[key], self._original[key], after, mode)
        return out

    def _mode_change(self, key: str, after: bytes | None) -> int | None:
        """The mode a committed block sets on ``key``, when the file will exist and not have it already."""
        wanted = self._modes.get(key)
        if wanted is None or after is None:
            return None
        if self._original[key] is None:
            return wanted if wanted == EXECUTABLE else None
        return wanted if _executable(self._real[key]) != (wanted == EXECUTABLE) else None

    def _load(self, target: Target, block: EditBlock) -> bytes | None | E.EditError:
        if target.key not in self._original:
            try:
                self._original[target.key] = self.reader(target.real)
            except IsADirectoryError:
                return E.NotAFile(block.number, f"{block.file} is a directory", file=block.file)
            except OSError as exc:
                return E.ReadFailed(block.number, f"cannot read {block.file}: {exc.strerror or exc}", file=block.file)
            self._real[target.key] = target.real
        return self._original[target.key]

    def _read_target(self, block: EditBlock) -> tuple[Target, bytes | None] | E.EditError:
        """``block.file`` resolved, refused when secret, and read (each file once): its target and bytes."""
        target = self._targets.get(block.file)
        if target is None:
            target = self._targets[block.file] = resolve_target(self.root, block.file, root_resolved=True)
        if isinstance(target, E.EditError):
            return dataclasses.replace(target, block=block.number)
        refused = self._secret(block, target)
        if refused is not None:
            return refused
        original = self._load(target, block)
        if isinstance(original, E.EditError):
            return original
        return target, original

    def _block(self, block: EditBlock, overlay: dict[str, bytes | None], notes: list[str]) -> E.EditError | None:
        """Apply ``block`` to ``overlay``; its error, or ``None`` (a note may be added)."""
        read = self._read_target(block)
        if isinstance(read, E.EditError):
            return read
        target, original = read
        key = target.key
        current = overlay[key] if key in overlay else self._state.get(key, original)
        if block.action not in (EDIT, CREATE):
            return self._file_action(block, key, current, overlay)
        if block.creates:
            if current is not None:
                return E.FileExists(block.number, f"{block.file} already exists; an empty `old` creates a new file",
                                    file=block.file)
            overlay[key] = create_bytes(block.new)
            if block.mode is not None:
                self._entry_modes[key] = block.mode
            return None
        if current is None:
            hint = "" if block.anchor is not None else " (use an empty `old` to create it)"
            return E.FileMissing(block.number, f"{block.file} does not exist{hint}", file=block.file)
        if block.anchor is not None:
            outcome = place_hunk(current, block.old, block.new, block.anchor)
        else:
            outcome = replace_once(current, block.old, block.new)
        if outcome.result is None:
            return self._anchor_error(block, current, outcome)
        overlay[key] = outcome.result
        if outcome.converted_to is not None:
            notes.append(f"EDIT {block.number}: `old` matched {block.file} only after converting its line endings "
                         f"to {outcome.converted_to}; `new` was converted the same way")
        if outcome.at_end:
            notes.append(f"EDIT {block.number}: `old` matched the last line of {block.file}, which has no final "
                         "line break; the file still ends without one")
        return None

    def _file_action(self, block: EditBlock, key: str, current: bytes | None,
                     overlay: dict[str, bytes | None]) -> E.EditError | None:
        """Delete, rename or set the mode of ``block.file`` in ``overlay``; the error, or ``None``."""
        if block.action == MOVE:
            return self._move(block, key, current, overlay)
        if current is None:
            return E.FileMissing(block.number, f"{block.file} does not exist", file=block.file)
        if block.action == DELETE:
            if block.anchor is not None and current != block.old.encode("utf-8", "surrogateescape"):
                return E.AnchorNotFound(block.number, f"{block.file} holds other text than the deletion removes; "
                                                      "it changed since the change was made", file=block.file)
            overlay[key] = None
            self._entry_modes.pop(key, None)
            return None
        if block.action == MODE and block.mode in (EXECUTABLE, REGULAR):
            overlay[key] = current
            self._entry_modes[key] = block.mode
            return None
        return E.MalformedPatch(block.number, f"block action {block.action!r} with mode {block.mode!r} is not "
                                              "one ljtui applies", file=block.file)

    def _move(self, block: EditBlock, key: str, current: bytes | None,
              overlay: dict[str, bytes | None]) -> E.EditError | None:
        """Rename ``block.moved_from`` to ``block.file``: the target must not exist, the source must."""
        if current is not None:
            return E.FileExists(block.number, f"cannot rename {block.moved_from} to {block.file}: {block.file} "
                                              "already exists", file=block.file)
        source = dataclasses.replace(block, file=block.moved_from or "", action=EDIT)
        read = self._read_target(source)
        if isinstance(read, E.EditError):
            return read
        target, original = read
        moved = overlay[target.key] if target.key in overlay else self._state.get(target.key, original)
        if moved is None:
            return E.FileMissing(block.number, f"cannot rename {source.file}: it does not exist", file=source.file)
        if target.key == key:
            return E.MalformedPatch(block.number, f"{source.file} is renamed to itself", file=block.file)
        overlay[key], overlay[target.key] = moved, None
        mode = self._modes.get(target.key, EXECUTABLE if _executable(target.real) else None)
        if mode == EXECUTABLE:
            self._entry_modes[key] = mode
        return None

    def _secret(self, block: EditBlock, target: Target) -> E.SecretTarget | None:
        """The refusal of a block whose target is secret, as written or where it resolves (nothing is read)."""
        if self.secrets is None:
            return None
        rule = secret_rule(self.secrets, block.file, target.key)
        return secret_target(self.secrets, block.number, block.file, rule) if rule is not None else None

    def _evidence(self, block: EditBlock, current: bytes) -> tuple[E.Candidate, ...]:
        """Candidates in the target; when none is strong, also in the plan's other files."""
        if not self.evidence:
            return ()
        found = find_candidates(current, block.old, block.file, block.hint_line)
        if any(c.strength == "strong" for c in found):
            return found
        target = self._targets.get(block.file)
        others = []
        for key, original in self._original.items():
            data = self._state.get(key, original)
            if data is not None and not (isinstance(target, Target) and key == target.key):
                others.append(find_candidates(data, block.old, key))
        return merge_candidates([found, *others])

    def _anchor_error(self, block: EditBlock, current: bytes, outcome: Replacement) -> E.EditError:
        lines, count = outcome.lines, outcome.count
        if block.anchor is not None:
            found = self._evidence(block, current) if count == 0 else ()
            return hunk_error(block, current, outcome, found, where_lines(lines, count))
        if count == 0:
            candidates = self._evidence(block, current)
            explained = explain_miss(current, block.old, block.file)
            if explained is not None:
                return E.AnchorNotFound(block.number, explained, file=block.file, candidates=candidates)
            best = candidates[0] if candidates else None
            nearest = f"; nearest: {best.file}:{best.line} ({best.score:.2f})" if best else ""
            return E.AnchorNotFound(block.number, f"`old` does not occur in {block.file}{nearest}",
                                    file=block.file, candidates=candidates)
        converted = (f" once its line endings are converted to {outcome.converted_to}"
                     if outcome.converted_to else "")
        distinct = list(dict.fromkeys(lines))
        text = current.removeprefix(BOM).decode("utf-8", "replace")
        text_lines = text.split("\n")
        candidates = tuple(E.Candidate(block.file, n, 1.0, text_lines[n - 1].strip()[:EXCERPT_CHARS], "strong")
                           for n in distinct[:STRONG_LIMIT])
        message = f"`old` occurs {count} times in {block.file}{converted}, {where_lines(lines, count)}"
        return E.AnchorAmbiguous(block.number, message, file=block.file, candidates=candidates, lines=lines)


def _executable(real: Path) -> bool:
    """True when the file at ``real`` has an executable bit (``False`` when it cannot be read)."""
    try:
        return bool(real.stat().st_mode & 0o111)
    except OSError:
        return False


def where_lines(lines: tuple[int, ...], count: int, listed: int = LINES_LISTED) -> str:
    """Where the ``count`` occurrences starting on ``lines`` (ascending, maybe fewer than ``count``) are:
    ``twice on line 1``, or ``at lines 1 (twice), 4, 9`` with at most ``listed`` lines and the rest counted."""
    per_line: dict[int, int] = {}
    for line in lines:
        per_line[line] = per_line.get(line, 0) + 1
    if len(per_line) == 1 and count == len(lines):
        return f"{_times(count)} on line {lines[0]}"
    shown = list(per_line.items())[:listed]
    parts = [str(line) if times == 1 else f"{line} ({_times(times)})" for line, times in shown]
    rest = count - sum(times for _, times in shown)
    more = f" and {rest} more" if rest else ""
    return f"at lines {', '.join(parts)}{more}"


def _times(n: int) -> str:
    return "twice" if n == 2 else "once" if n == 1 else f"{n} times"


def validate_plan(plan: EditPlan, root: Path, *, partial: bool = False, reader: Reader = read_bytes,
                  evidence: bool = True, secrets: SecretFiles | None = None) -> ValidationReport:
    """Validate every entry of ``plan`` against the files under ``root``.

    Args:
        plan: A parsed plan.
        root: The repository root.
        partial: When True, failed entries are dropped and the others kept;
            otherwise the plan is all or nothing.
        reader: How file bytes are read (inject for pure tests).
        evidence: Compute candidates for failed anchors.
        secrets: The policy of the model the report goes to: blocks on files
            it calls secret fail with ``SecretTarget`` unread. ``None`` (the
            user's own apply) reads every file.

    Returns:
        A :class:`ValidationReport`; ``changes`` is empty when a non-partial
        plan has any error.
    """
    validator = Validator(root, reader=reader, evidence=evidence, secrets=secrets)
    outcomes = tuple(validator.check(plan.entries))
    report = ValidationReport(outcomes, {}, partial)
    if partial or report.ok:
        report = ValidationReport(outcomes, validator.changes(), partial)
    return report
