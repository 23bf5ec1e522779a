"""Writing tools: ``write_file``, ``edit_file``, ``create_directory``.

Each asks first (the dialog shows the diff) and writes through the session's
:class:`~ljtui.core.agent.writer.AgentWriter`, so every byte goes through the
patcher's transaction and undo reverts it. ``edit_file`` follows the EDIT-2
rules and messages exactly: ``old`` must occur once (counted by the
start-of-line rule), with the nearest candidates when it does not.

Secret files (the session's :class:`~ljtui.core.secret_files.SecretFiles`
policy, held by the writer) tell the model nothing: ``edit_file`` refuses
one before reading it, since a match or a candidate would tell its text;
``write_file`` may replace one whole once the user allows it (the dialog
shows them the diff), and answers the model the same whether the content
changed or not, without the diff's size.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.agent.writer import AgentWriter, PlannedWrite, Redo, WriteRefused
from ljtui.core.edits.errors import AnchorAmbiguous, AnchorNotFound, EditError, SecretTarget
from ljtui.core.edits.folders import RepoFolders
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditBlock, EditPlan
from ljtui.core.edits.validate import validate_plan
from ljtui.core.planner.tools import first_bad_line
from ljtui.core.tools import Tool, ToolContext, ToolError, ToolResult, require
from ljtui.core.agent.tools.specs.edits import CREATE_DIRECTORY, EDIT_FILE, WRITE_FILE

MAX_CANDIDATES_TOLD = 4
PREPARE_TRIES = 3
"""How often ``edit_file`` matches ``old`` again when another writer changed the file between its match and its
plan, before it asks the model to read the file again."""
NO_CHANGE_LINE = "(no change: the file already holds exactly this content)"
"""What the permission dialog shows for a write that leaves a secret file as it is."""
SECRET_WRITTEN = ("{path} now holds the given content (a secret file: nothing of what it held is shown to you); "
                  "/undo reverts this message's writes")
"""The model's answer to an allowed write of a secret file, changed or not."""
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



async def _ask_and_write(ctx: ToolContext, tool: str, planned: PlannedWrite, verb: str,
                         redo: Redo | None = None) -> ToolResult:
    """Ask the user, then write in the repository's write turn (``redo``: the edit again, on bytes another writer
    wrote meanwhile); a secret target is asked about even when unchanged, so the answer tells nothing."""
    path = planned.target.key
    unchanged = planned.before == planned.after
    if unchanged and planned.secret is None:
        return ToolResult(True, f"{path} already holds exactly this content; nothing was written",
                          f"{path} unchanged")
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool=tool, subject=path, title=f"{verb} {path}?",
                                       lines=planned.diff_lines() or [NO_CHANGE_LINE], turn=ctx.turn,
                                       call_id=ctx.call_id, agent=ctx.agent, diff_path=path)
    if not answer.allowed:
        return failed(answer.reason)
    if unchanged:  # only a secret file gets here, and is answered as if it were written
        return ToolResult(True, SECRET_WRITTEN.format(path=path), f"wrote {path}")
    writer: AgentWriter = require(ctx.services.writer, "writer")
    try:
        outcome, planned, rebased = await writer.write_in_turn(planned, entry=f"{tool} {path}", redo=redo)
    except WriteRefused as exc:
        return failed(str(exc))
    if outcome.error is not None:
        return failed(f"{outcome.error.kind}: {outcome.error.message}")
    if planned.secret is not None:
        return ToolResult(True, SECRET_WRITTEN.format(path=path), f"wrote {path}")
    lines = len(planned.diff_lines(limit=10**9))
    notes = "".join(f"\nnote: {n}" for n in [*outcome.notes, *filter(None, [rebased])])
    return ToolResult(True, f"wrote {path} ({lines} diff lines); /undo reverts this message's writes{notes}",
                      f"wrote {path}")


def _writer(ctx: ToolContext) -> AgentWriter:
    return require(ctx.services.writer, "writer")


async def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", empty_ok=False)
    content = text_arg(args, "content")
    try:
        planned = await asyncio.to_thread(_writer(ctx).plan, path, content.encode("utf-8"))
    except WriteRefused as exc:
        return failed(str(exc))
    refused = _undecodable(planned, "write_file")
    if refused is not None:
        return failed(refused)
    verb = "Create" if planned.before is None else "Overwrite"
    return await _ask_and_write(ctx, "write_file", planned, verb)


async def edit_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", empty_ok=False)
    old = text_arg(args, "old")
    new = text_arg(args, "new")
    writer = _writer(ctx)
    block = EditBlock(number=1, file=path, where=None, entry=DEFAULT_ENTRY_ID, old=old, new=new)
    for _ in range(PREPARE_TRIES):  # another writer may change the file between the match and the plan
        report = await asyncio.to_thread(validate_plan, EditPlan((block,)), writer.root, secrets=writer.secrets)
        if report.errors:
            return failed(_edit_error(report.errors[0], old, path))
        [change] = report.changes.values() or [None]
        if change is None:
            return ToolResult(True, f"`new` equals `old`; {path} is unchanged", f"{path} unchanged")
        try:
            planned = await asyncio.to_thread(writer.plan, path, change.after)
        except WriteRefused as exc:
            return failed(str(exc))
        if planned.before == change.before:
            break
    else:
        return failed(f"{path} kept changing while the edit was prepared; read it again")
    note = "".join(f"\nnote: {n}" for n in report.notes)

    def redo(current: bytes | None) -> bytes | None:
        again = validate_plan(EditPlan((block,)), writer.root, secrets=writer.secrets)
        [done] = again.changes.values() or [None]
        if again.errors or done is None or done.before != current:
            problem = f"{again.errors[0].kind}: {again.errors[0].message}" if again.errors else "it is unchanged"
            raise WriteRefused(f"StalePlan: {path} changed on disk after this edit was worked out, and the edit no "
                               f"longer applies ({problem}); nothing was written: read it again")
        return done.after

    result = await _ask_and_write(ctx, "edit_file", planned, "Edit" if change.before is not None else "Create",
                                  redo)
    return ToolResult(result.ok, result.content + note, result.summary) if result.ok else result


def _edit_error(error: EditError, old: str, path: str) -> str:
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


def _undecodable(planned: PlannedWrite, tool: str) -> str | None:
    """The refusal of replacing a file that is not valid UTF-8 (a secret one, never read to the model, is not
    checked: its answer tells nothing of its bytes)."""
    if planned.before is None or planned.secret is not None:
        return None
    line = first_bad_line(planned.before)
    return None if line is None else NOT_UTF8.format(path=planned.target.key, line=line, tool=tool)


async def create_directory(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", empty_ok=False)
    writer = _writer(ctx)
    try:
        target = writer.folder(path.rstrip("/") or path)
    except WriteRefused as exc:
        return failed(str(exc))
    if target.real.is_dir():
        return ToolResult(True, f"{target.key}/ already exists", f"{target.key}/ exists")
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool="create_directory", subject=target.key,
                                       title=f"Create the folder {target.key}/?", lines=[f"mkdir -p {target.key}"],
                                       turn=ctx.turn, call_id=ctx.call_id, agent=ctx.agent)
    if not answer.allowed:
        return failed(answer.reason)
    try:
        await asyncio.to_thread(_make_dirs, writer, target.key)
    except (OSError, WriteRefused) as exc:
        raise ToolError(f"cannot create {target.key}/: {getattr(exc, 'strerror', None) or exc}") from None
    return ToolResult(True, f"created {target.key}/", f"created {target.key}/")


def _make_dirs(writer: AgentWriter, key: str) -> None:
    """Create each missing folder inside the one before it, reached from the root without following a link (a
    folder swapped for a symlink meanwhile is refused, never created through)."""
    with RepoFolders(writer.root) as folders:
        folders.make(key)


TOOLS = (Tool(WRITE_FILE, write_file), Tool(EDIT_FILE, edit_file), Tool(CREATE_DIRECTORY, create_directory))
