"""What ``apply_patch`` works out before anything is asked or written, and what it answers the model after.

A patch is one Codex ``*** Begin Patch`` envelope, read by
:mod:`ljtui.core.edits.read_codex` into the blocks an applied plan has and
validated as one is (:func:`~ljtui.core.edits.validate.validate_plan`, with
the session's secret-file policy): each hunk placed by its text, exactly
once; paths checked as plan paths are (inside the repository, never ``.git``
or ``.agent``); every file of the patch changed, or none. Shared, like
:mod:`.write_steps`, by the tool in ljtui's own process (:mod:`.edits`: one
transaction for every file, in the repository's write turn, so ``/undo``
reverts it) and by the layer's tool host (:mod:`ljtui.core.layer.host_patch`).

What the model is told of a patch that does not apply names the file and
the hunk (with its line in the patch), and the nearest candidates of a hunk
not found; a secret file tells nothing but that it is one, as with
``edit_file``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.agent.tools.write_steps import MAX_CANDIDATES_TOLD, Landing
from ljtui.core.agent.writer import DIFF_LINES_SHOWN, AgentWriter, WriteRefused, _to_thread_to_the_end
from ljtui.core.edits import errors as E
from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.plan import CREATE, DELETE, MOVE, EditBlock, EditPlan, PlanParseError
from ljtui.core.edits.read_change import CODEX, read_change
from ljtui.core.edits.transaction import TransactionOutcome, apply_changes
from ljtui.core.edits.validate import FileChange, read_bytes, validate_plan
from ljtui.core.edits.write_queue import WriteQueueTimeout, async_turn
from ljtui.core.tool_result import ToolResult

PATCH_TOOL = "apply_patch"
MAX_ERRORS_TOLD = 5
"""Problems of one patch the model is told; the rest are counted."""
NOTHING_WRITTEN = "nothing was written"
UNREADABLE = "The patch cannot be read, so " + NOTHING_WRITTEN + ": send it again whole, corrected."
NOT_APPLIED = "The patch applies to all its files or none, so " + NOTHING_WRITTEN + "."
ADVICE = {
    "AnchorNotFound": ("  Context and '-' lines must match {file} exactly, byte for byte: read it again and copy them, "
                       "indentation included."),
    "AnchorAmbiguous": ("  Each hunk must apply at exactly one place: add context lines around the change, or an "
                        "'@@ <line>' naming the class or function it is in."),
}
"""What the model is told to do about a hunk that is not found, or found more than once (``{file}``: its file)."""
ADDED_EXISTS = "{file} already exists: '*** Add File' creates a new file; change this one with '*** Update File'"
UPDATED_MISSING = "{file} does not exist: '*** Update File' changes an existing file; create it with '*** Add File'"
DELETED_MISSING = "{file} does not exist, so it cannot be deleted"
NO_CHANGE = "the patch changes nothing: the files it names already hold what it would write; " + NOTHING_WRITTEN
NO_LONGER_APPLIES = ("StalePlan: {paths} changed on disk after this patch was worked out, and the patch no longer "
                     "applies ({problem}); {nothing}: read them again")
REBASED = ("{paths} changed on disk after this patch was worked out (another task's write, or an edit outside "
           "ljtui); the patch was applied to the current content")
WROTE = "wrote {files}{where}; {then}"


@dataclass(frozen=True)
class PatchedFile:
    """One file as a patch changes it, as the user and the model are told (a rename is one: its new path).

    Attributes:
        change: the path and its bytes before and after (for a rename, the bytes the old path held).
        moved_from: the old path of a renamed file.
    """

    change: FileChange
    moved_from: str | None = None

    @property
    def path(self) -> str:
        return self.change.path

    def diff(self) -> list[str]:
        """The file's unified diff, every line."""
        return unified_diff(self.change).splitlines()

    def counts(self) -> tuple[int, int]:
        """Lines added and removed."""
        lines = self.diff()
        if lines[:1] and lines[0].startswith("--- ") and lines[1:2] and lines[1].startswith("+++ "):
            lines = lines[2:]
        return sum(line.startswith("+") for line in lines), sum(line.startswith("-") for line in lines)

    def described(self) -> str:
        """``app.py (+2 -1)``, ``new.py (new, +3)``, ``old.py (deleted, -4)``, ``b.py (moved from a.py, +0 -0)``."""
        added, removed = self.counts()
        if self.moved_from is not None:
            what = f"moved from {self.moved_from}, +{added} -{removed}"
        elif self.change.before is None:
            what = f"new, +{added}"
        elif self.change.after is None:
            what = f"deleted, -{removed}"
        else:
            what = f"+{added} -{removed}"
        return f"{self.path} ({what})"


@dataclass(frozen=True)
class PreparedPatch:
    """An ``apply_patch`` call worked out: nothing asked, nothing written yet.

    Attributes:
        patch: the patch as the model sent it.
        plan: its blocks.
        changes: what the write does, one per path (``after`` ``None``: the file is removed).
        files: what the user and the model are told, one per file (a rename once).
        notes: told to the model after a write that went well.
    """

    patch: str
    plan: EditPlan
    changes: tuple[FileChange, ...]
    files: tuple[PatchedFile, ...]
    notes: tuple[str, ...] = ()

    @property
    def subject(self) -> str:
        """The files the patch changes, as the permission dialog names them."""
        return ", ".join(f.path if f.moved_from is None else f"{f.moved_from} → {f.path}" for f in self.files)

    @property
    def entries(self) -> list[str]:
        """The journal's names of the write, one per path."""
        return [f"{PATCH_TOOL} {change.path}" for change in self.changes]

    @property
    def title(self) -> str:
        """The question the permission dialog asks."""
        if len(self.files) == 1:
            return f"Apply the patch to {self.subject}?"
        return f"Apply the patch to {len(self.files)} files ({self.subject})?"

    @property
    def diff_path(self) -> str | None:
        """The file when the dialog's lines are the diff of one file (else they are several, shown as written)."""
        [only] = self.files if len(self.files) == 1 else [None]
        return only.path if only is not None and only.moved_from is None else None

    def dialog_lines(self) -> list[str]:
        """What the permission dialog shows: each file's diff (a rename said first), cut at
        :data:`~ljtui.core.agent.writer.DIFF_LINES_SHOWN` lines a file."""
        lines: list[str] = []
        for file in self.files:
            if file.moved_from is not None:
                lines.append(f"rename {file.moved_from} → {file.path}")
            diff = file.diff()
            lines.extend(diff[:DIFF_LINES_SHOWN])
            if len(diff) > DIFF_LINES_SHOWN:
                lines.append(f"… {len(diff) - DIFF_LINES_SHOWN} more diff lines of {file.path} not shown")
        return lines


def prepare_patch(writer: AgentWriter, args: dict[str, Any]) -> PreparedPatch | ToolResult:
    """Work out an ``apply_patch`` call (disk work: call from a thread): the patch read and validated; a refusal,
    or a patch that changes nothing, is the answer.

    Raises:
        ToolError: ``patch`` is missing or not text.
    """
    text = text_arg(args, "patch", empty_ok=False)
    try:
        plan = read_change(text, CODEX)[0]
    except PlanParseError as exc:
        return failed(told([f"{e.kind}: {e.message}" for e in exc.errors], UNREADABLE))
    prepared = _validated(writer, text, plan)
    if isinstance(prepared, list):
        return failed(told(prepared, NOT_APPLIED))
    if prepared is None:
        return ToolResult(True, NO_CHANGE, "patch: no change")
    return prepared


def _validated(writer: AgentWriter, text: str, plan: EditPlan) -> PreparedPatch | list[str] | None:
    """``plan`` validated on the files as they are now: worked out, what the model is told of its problems, or
    ``None`` when it changes nothing."""
    report = validate_plan(plan, writer.root, secrets=writer.secrets)
    if report.errors:
        blocks = {block.number: block for block in plan.blocks}
        return [patch_error(error, blocks.get(error.block or 0)) for error in report.errors]
    if not report.changes:
        return None
    changes = tuple(report.changes.values())
    return PreparedPatch(text, plan, changes, _files(writer, plan, changes), tuple(report.notes))


def _files(writer: AgentWriter, plan: EditPlan, changes: tuple[FileChange, ...]) -> tuple[PatchedFile, ...]:
    """The files of ``changes`` as they are told: a renamed file once, at its new path, diffed with its old bytes."""
    by_path = {change.path: change for change in changes}
    moved: dict[str, str] = {}
    for block in plan.blocks:
        if block.action != MOVE or block.moved_from is None:
            continue
        try:
            old, new = writer.target(block.moved_from).key, writer.target(block.file).key
        except WriteRefused:
            continue
        source, target = by_path.get(old), by_path.get(new)
        if source is not None and target is not None and source.after is None and target.before is None \
                and old not in moved.values() and new not in moved:
            moved[new] = old
    files = []
    for change in changes:
        if change.path in moved.values():
            continue
        old = moved.get(change.path)
        if old is None:
            files.append(PatchedFile(change))
        else:
            files.append(PatchedFile(dataclasses.replace(change, before=by_path[old].before), old))
    return tuple(files)


def told(problems: list[str], tail: str) -> str:
    """Each problem on its own lines (the first one first: the UI shows it), at most :data:`MAX_ERRORS_TOLD`,
    the rest counted, then ``tail``."""
    shown = problems[:MAX_ERRORS_TOLD]
    more = len(problems) - len(shown)
    return "\n".join([*shown, *([f"… and {more} more problems"] if more else []), tail])


def patch_error(error: E.EditError, block: EditBlock | None) -> str:
    """One problem of a patch that does not apply: its kind, the file and hunk (its line in the patch), what is
    wrong, the nearest candidates and what to do (a secret file tells nothing but that it is one)."""
    where = f"{_where(block)}: " if block is not None else ""
    message = error.message
    if block is not None and isinstance(error, E.FileExists) and block.action == CREATE:
        message = ADDED_EXISTS.format(file=block.file)
    elif block is not None and isinstance(error, E.FileMissing) and block.action == DELETE:
        message = DELETED_MISSING.format(file=block.file)
    elif block is not None and isinstance(error, E.FileMissing) and block.action != MOVE:
        message = UPDATED_MISSING.format(file=block.file)
    if isinstance(error, E.SecretTarget):
        return f"{error.kind}: {where}{message}"
    near = "".join(f"\n  nearest: {c.file}:{c.line} ({c.score:.2f}) {c.excerpt}"
                   for c in error.candidates[:MAX_CANDIDATES_TOLD])
    advice = ADVICE.get(error.kind)
    advice = "\n" + advice.format(file=error.file or (block.file if block else "the file")) if advice else ""
    return f"{error.kind}: {where}{message}{near}{advice}"


def _where(block: EditBlock) -> str:
    """Which part of the patch ``block`` was read from: ``hunk 2/3 of app.py (line 12 of the patch, under '@@
    def greet')``, or the file's own line."""
    source = block.source
    if source is None:
        return block.file
    if source.hunk:
        under = f", under {source.header!r}" if source.header not in ("", "@@") else ""
        return f"hunk {source.hunk}/{source.hunks} of {source.file} (line {source.line} of the patch{under})"
    return f"{source.header!r} (line {source.line} of the patch)"


def again(writer: AgentWriter, prepared: PreparedPatch) -> PreparedPatch:
    """``prepared``'s patch worked out again on the files as they are now (another writer changed one).

    Raises:
        WriteRefused: it no longer applies, or no longer changes anything.
    """
    redone = _validated(writer, prepared.patch, prepared.plan)
    if isinstance(redone, PreparedPatch):
        return redone
    problem = redone[0].splitlines()[0] if redone else "it changes nothing now"
    raise WriteRefused(NO_LONGER_APPLIES.format(paths=prepared.subject, problem=problem, nothing=NOTHING_WRITTEN))


def stale(prepared: PreparedPatch) -> bool:
    """True when a file of ``prepared`` no longer holds the bytes it was worked out on.

    Raises:
        WriteRefused: a file cannot be read.
    """
    for change in prepared.changes:
        try:
            if read_bytes(change.real) != change.before:
                return True
        except OSError as exc:
            raise WriteRefused(f"cannot read {change.path}: {exc.strerror or exc}; {NOTHING_WRITTEN}") from None
    return False


async def write_in_turn(writer: AgentWriter, prepared: PreparedPatch
                        ) -> tuple[TransactionOutcome, PreparedPatch, str | None]:
    """Wait for the repository's write turn, then write every file of ``prepared`` in one transaction of the
    writer's group (worked out again when another writer changed one of them meanwhile). Returns the outcome, the
    patch as written, and a note for the model (or ``None``).

    Raises:
        WriteRefused: the patch no longer applies, or the turn never came.
    """
    try:
        async with async_turn(writer.root):
            return await _to_thread_to_the_end(_write_current, writer, prepared)
    except WriteQueueTimeout as slow:
        raise WriteRefused(f"{slow}; {NOTHING_WRITTEN}") from None


def _write_current(writer: AgentWriter, prepared: PreparedPatch
                   ) -> tuple[TransactionOutcome, PreparedPatch, str | None]:
    note = None
    if stale(prepared):
        note = REBASED.format(paths=prepared.subject)
        prepared = again(writer, prepared)
    outcome = apply_changes(writer.root, prepared.changes, clock=writer.clock, kind="apply",
                            entries=prepared.entries, group=writer.group, turn_held=True)
    return outcome, prepared, note


def patch_finished(prepared: PreparedPatch, outcome: TransactionOutcome, rebased: str | None,
                   landing: Landing) -> ToolResult:
    """The answer after the write: its error, or each file written with its lines added and removed, where they
    landed and the notes."""
    if outcome.error is not None:
        return failed(f"{outcome.error.kind}: {outcome.error.message}")
    files = ", ".join(file.described() for file in prepared.files)
    notes = "".join(f"\nnote: {n}" for n in [*outcome.notes, *filter(None, [rebased]), *prepared.notes])
    text = WROTE.format(files=files, where=landing.where, then=landing.then) + notes
    [only] = prepared.files if len(prepared.files) == 1 else [None]
    what = only.path if only is not None else f"{len(prepared.files)} files"
    return ToolResult(True, text, f"wrote {what}{landing.where}")
