"""What the write tools work out before anything is asked or written, and what they answer the model after.

Shared by the tools in ljtui's own process (:mod:`.edits`, which ask the
user and write through the transaction) and by the layer's tool host
(:mod:`ljtui.core.layer.host`, which writes in the layer), so both check
the same things and say the same words:

* a call is worked out first (:func:`prepare_write_file`,
  :func:`prepare_edit_file`, :func:`prepare_folder`): arguments checked,
  target resolved, the bytes after it computed, and every refusal answered
  (secret files, bytes read_file could not show, edit anchors not found or
  found more than once with their nearest candidates, unchanged content);
* what is left is a :class:`PreparedWrite` (or a folder's target), which the
  caller may ask about (its title and diff lines) and then writes;
* the answer after the write (:func:`finished`, :func:`folder_made`) names
  where it landed (:data:`TREE` or :data:`LAYER`).

Secret files tell the model nothing: ``edit_file`` refuses one before
reading it, since a match or a candidate would tell its text;
``write_file`` may replace one whole, and is answered the same whether the
content changed or not, without the diff's size.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.agent.writer import AgentWriter, PlannedWrite, Redo, WriteRefused
from ljtui.core.edits.errors import AnchorAmbiguous, AnchorNotFound, EditError, SecretTarget
from ljtui.core.edits.folders import RepoFolders
from ljtui.core.edits.paths import Target
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditBlock, EditPlan
from ljtui.core.edits.transaction import TransactionOutcome
from ljtui.core.edits.validate import validate_plan
from ljtui.core.planner.tools import first_bad_line
from ljtui.core.tool_result import ToolError, ToolResult

MAX_CANDIDATES_TOLD = 4
PREPARE_TRIES = 3
"""How often ``edit_file`` matches ``old`` again when another writer changed the file between its match and its
plan, before it asks the model to read the file again."""
NO_CHANGE_LINE = "(no change: the file already holds exactly this content)"
"""What the permission dialog shows for a write that leaves a secret file as it is."""
SECRET_WRITTEN = ("{path} now holds the given content{where} (a secret file: nothing of what it held is shown to "
                  "you); {then}")
"""The model's answer to an allowed write of a secret file, changed or not."""
WRITTEN = "wrote {path}{where} ({lines} diff lines); {then}"
"""The model's answer to a write (notes follow, one a line)."""
NOT_UTF8 = ("{path} is not valid UTF-8 (first bad byte at line {line}): read_file shows its undecodable bytes as "
            "U+FFFD, so {tool} would replace bytes you never saw; nothing was written. Change this file with the "
            "bash tool (working on its bytes), or ask the user to")
"""The refusal of an overwrite of a file whose bytes read_file could not show as they are (an edit is matched on
the bytes, so it never touches those it could not show)."""
REPLACEMENT_IN_OLD = ("\n`old` holds U+FFFD, which read_file shows in place of bytes of {path} that are not UTF-8: those "
                      "bytes can never be matched. Choose an `old` around them (they stay as they are), or change "
                      "them with the bash tool.")
"""Why an ``old`` copied from the replacement characters read_file showed cannot match."""
COPY_OLD = "\nRead the file again and copy `old` exactly."
"""The advice that ends an error about ``old`` itself (not found, or found more than once)."""
KEPT_CHANGING = "{path} kept changing while the edit was prepared; read it again"
NO_LONGER_APPLIES = ("StalePlan: {path} changed on disk after this edit was worked out, and the edit no longer "
                     "applies ({problem}); nothing was written: read it again")


@dataclass(frozen=True)
class Landing:
    """Where a write lands, as the model is told.

    Attributes:
        where: follows the path in the answer (``""``, `` in the layer``).
        then: ends the answer: what happens to the write next.
    """

    where: str
    then: str


TREE = Landing("", "/undo reverts this message's writes")
"""A write in the user's files, through the transaction."""
LAYER = Landing(" in the layer", "the user reviews this turn's change before it reaches their files")
"""A write in the session's layer (:mod:`ljtui.core.layer`)."""


@dataclass(frozen=True)
class PreparedWrite:
    """A ``write_file`` or ``edit_file`` call worked out: nothing asked, nothing written yet.

    Attributes:
        tool: the tool's name.
        planned: the write, with the file's bytes it was worked out on.
        verb: how the question starts (``Create``, ``Overwrite``, ``Edit``).
        redo: works an edit out again on bytes another writer wrote meanwhile (``None``: a whole-file write,
            refused instead).
        notes: told to the model after a write that went well (an edit's notes).
    """

    tool: str
    planned: PlannedWrite
    verb: str
    redo: Redo | None = None
    notes: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The file, repository-relative, as it resolved."""
        return self.planned.target.key

    @property
    def unchanged(self) -> bool:
        return self.planned.before == self.planned.after

    @property
    def entry(self) -> str:
        """The journal's name of the write."""
        return f"{self.tool} {self.path}"

    @property
    def title(self) -> str:
        """The question the permission dialog asks."""
        return f"{self.verb} {self.path}?"

    def dialog_lines(self) -> list[str]:
        """What the permission dialog shows: the diff (a secret file's too: the user sees it, the model never)."""
        return self.planned.diff_lines() or [NO_CHANGE_LINE]


def prepare_write_file(writer: AgentWriter, args: dict[str, Any]) -> PreparedWrite | ToolResult:
    """Work out a ``write_file`` call (disk work: call from a thread); a refusal is the answer.

    Raises:
        ToolError: an argument is missing or not text.
    """
    path = text_arg(args, "path", empty_ok=False)
    content = text_arg(args, "content")
    try:
        planned = writer.plan(path, content.encode("utf-8"))
    except WriteRefused as exc:
        return failed(str(exc))
    refused = undecodable(planned, "write_file")
    if refused is not None:
        return failed(refused)
    return PreparedWrite("write_file", planned, "Create" if planned.before is None else "Overwrite")


def prepare_edit_file(writer: AgentWriter, args: dict[str, Any]) -> PreparedWrite | ToolResult:
    """Work out an ``edit_file`` call (disk work: call from a thread): ``old`` matched once, by the EDIT-2 rules;
    a refusal, or an edit that changes nothing, is the answer.

    Raises:
        ToolError: an argument is missing or not text.
    """
    path = text_arg(args, "path", empty_ok=False)
    old = text_arg(args, "old")
    new = text_arg(args, "new")
    block = EditBlock(number=1, file=path, where=None, entry=DEFAULT_ENTRY_ID, old=old, new=new)
    for _ in range(PREPARE_TRIES):  # another writer may change the file between the match and the plan
        report = validate_plan(EditPlan((block,)), writer.root, secrets=writer.secrets)
        if report.errors:
            return failed(edit_error(report.errors[0], old, path))
        [change] = report.changes.values() or [None]
        if change is None:
            return ToolResult(True, f"`new` equals `old`; {path} is unchanged", f"{path} unchanged")
        try:
            planned = writer.plan(path, change.after)
        except WriteRefused as exc:
            return failed(str(exc))
        if planned.before == change.before:
            break
    else:
        return failed(KEPT_CHANGING.format(path=path))

    def redo(current: bytes | None) -> bytes | None:
        again = validate_plan(EditPlan((block,)), writer.root, secrets=writer.secrets)
        [done] = again.changes.values() or [None]
        if again.errors or done is None or done.before != current:
            problem = f"{again.errors[0].kind}: {again.errors[0].message}" if again.errors else "it is unchanged"
            raise WriteRefused(NO_LONGER_APPLIES.format(path=path, problem=problem))
        return done.after

    verb = "Edit" if change.before is not None else "Create"
    return PreparedWrite("edit_file", planned, verb, redo, tuple(report.notes))


def edit_error(error: EditError, old: str, path: str) -> str:
    """What the model is told of an ``old`` that does not apply: the error, its nearest candidates, and how to
    choose ``old`` again (a secret file tells nothing but that it is one)."""
    if isinstance(error, SecretTarget):
        return f"{error.kind}: {error.message}"
    near = "".join(f"\n  nearest: {c.file}:{c.line} ({c.score:.2f}) {c.excerpt}"
                   for c in error.candidates[:MAX_CANDIDATES_TOLD])
    advice = COPY_OLD if isinstance(error, (AnchorNotFound, AnchorAmbiguous)) else ""
    if isinstance(error, AnchorNotFound) and "\ufffd" in old:
        advice = REPLACEMENT_IN_OLD.format(path=path) + advice
    return f"{error.kind}: {error.message}{near}{advice}"


def undecodable(planned: PlannedWrite, tool: str) -> str | None:
    """The refusal of replacing a file that is not valid UTF-8 (a secret one, never read to the model, is not
    checked: its answer tells nothing of its bytes)."""
    if planned.before is None or planned.secret is not None:
        return None
    line = first_bad_line(planned.before)
    return None if line is None else NOT_UTF8.format(path=planned.target.key, line=line, tool=tool)


def before_asking(prepared: PreparedWrite) -> ToolResult | None:
    """The answer when there is nothing to ask about: the file already holds the content (a secret file is asked
    about even then, so the answer tells nothing)."""
    if prepared.unchanged and prepared.planned.secret is None:
        path = prepared.path
        return noted(ToolResult(True, f"{path} already holds exactly this content; nothing was written",
                                f"{path} unchanged"), prepared)
    return None


def unchanged_secret(prepared: PreparedWrite, landing: Landing) -> ToolResult | None:
    """After the user allowed it: the answer to a write that leaves a secret file as it is, as if it were
    written (nothing is written)."""
    if not prepared.unchanged:
        return None
    return noted(_secret_written(prepared.path, landing), prepared)


def finished(prepared: PreparedWrite, outcome: TransactionOutcome, done: PlannedWrite, rebased: str | None,
             landing: Landing) -> ToolResult:
    """The answer after the write: its error, or where it landed, its size and its notes (``done``: the write as
    it was made, on the bytes the file held then; ``rebased``: why those were not the bytes it was worked out
    on)."""
    path = prepared.path
    if outcome.error is not None:
        return failed(f"{outcome.error.kind}: {outcome.error.message}")
    if done.secret is not None:
        return noted(_secret_written(path, landing), prepared)
    lines = len(done.diff_lines(limit=10**9))
    notes = "".join(f"\nnote: {n}" for n in [*outcome.notes, *filter(None, [rebased])])
    text = WRITTEN.format(path=path, where=landing.where, lines=lines, then=landing.then) + notes
    return noted(ToolResult(True, text, f"wrote {path}{landing.where}"), prepared)


def noted(result: ToolResult, prepared: PreparedWrite) -> ToolResult:
    """``result`` with the call's notes after it, when it went well."""
    if not result.ok or not prepared.notes:
        return result
    return dataclasses.replace(result, content=result.content + "".join(f"\nnote: {n}" for n in prepared.notes))


def _secret_written(path: str, landing: Landing) -> ToolResult:
    return ToolResult(True, SECRET_WRITTEN.format(path=path, where=landing.where, then=landing.then),
                      f"wrote {path}{landing.where}")


def prepare_folder(writer: AgentWriter, args: dict[str, Any]) -> Target | ToolResult:
    """Work out a ``create_directory`` call: the folder to make, or the answer (refused, or it exists).

    Raises:
        ToolError: the path is missing or not text.
    """
    path = text_arg(args, "path", empty_ok=False)
    try:
        target = writer.folder(path.rstrip("/") or path)
    except WriteRefused as exc:
        return failed(str(exc))
    if target.real.is_dir():
        return ToolResult(True, f"{target.key}/ already exists", f"{target.key}/ exists")
    return target


def folder_question(target: Target) -> tuple[str, list[str]]:
    """The permission dialog's title and lines for making ``target``."""
    return f"Create the folder {target.key}/?", [f"mkdir -p {target.key}"]


def make_folder(writer: AgentWriter, key: str, landing: Landing) -> ToolResult:
    """Create each missing folder of ``key`` inside the one before it, reached from the root without following a
    link (a folder swapped for a symlink meanwhile is refused, never created through).

    Raises:
        ToolError: a folder could not be created.
    """
    try:
        with RepoFolders(writer.root) as folders:
            folders.make(key)
    except (OSError, WriteRefused) as exc:
        raise ToolError(f"cannot create {key}/: {getattr(exc, 'strerror', None) or exc}") from None
    return ToolResult(True, f"created {key}/{landing.where}", f"created {key}/{landing.where}")
