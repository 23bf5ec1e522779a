"""The write tools inside the layer's tool host: the same checks and words as in ljtui's process, written in the layer.

The host runs where the repository's path is the layer's merged view, so
a write there is a write in the layer: the kernel copies a file up into
the upper folder, and the user's tree cannot be written at all. The write
itself is a plain atomic replace in the view (a temp file in the target's
folder, fsync, rename; an existing file keeps its mode, a new one gets the
usual new-file mode), not the journaled transaction: the journal lives in
``.agent``, read-only in the layer, and nothing in the layer needs undo,
since the user reviews the layer before anything reaches their files.

Every path and folder is reached from the root one name at a time without
following a link (:class:`~ljtui.core.edits.folders.RepoFolders`), as the
transaction reaches them.

A write worked out for a dialog (:func:`prepare`) travels to the client
and back (:func:`commit`) with the hash of the bytes it was worked out on:
when the file holds other bytes by then, it is refused (``StalePlan``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Any, Callable

from ljtui.core.agent.tools.base import failed
from ljtui.core.agent.tools.write_steps import (
    LAYER, PreparedWrite, before_asking, finished, folder_question, make_folder, prepare_edit_file, prepare_folder,
    prepare_write_file, unchanged_secret,
)
from ljtui.core.agent.writer import STALE_WRITE, AgentWriter, PlannedWrite, Redo, WriteRefused
from ljtui.core.edits import errors as E
from ljtui.core.edits.durable import new_file_mode, write_durable
from ljtui.core.edits.folders import RepoFolders, split
from ljtui.core.edits.paths import recheck
from ljtui.core.edits.transaction import TransactionOutcome, random_id
from ljtui.core.layer.host_protocol import decode_bytes, encode_bytes
from ljtui.core.tool_result import ToolResult

WRITE_TOOLS = ("write_file", "edit_file", "apply_patch", "create_directory")
FOLDER_TOOL = "create_directory"
PATCH_TOOL = "apply_patch"
"""Written by :mod:`.host_patch` (every file of one patch, or none)."""
ABSENT = "absent"
"""The hash of a file that does not exist."""
NOT_A_WRITE_TOOL = "{name!r} is not a write tool (one of: {tools})"

Prepare = Callable[[AgentWriter, dict[str, Any]], "PreparedWrite | ToolResult"]
PREPARE: dict[str, Prepare] = {"write_file": prepare_write_file, "edit_file": prepare_edit_file}


def digest(data: bytes | None) -> str:
    """The hash of a file's bytes (:data:`ABSENT` when there is no file)."""
    return ABSENT if data is None else hashlib.sha256(data).hexdigest()


class LayerWriter(AgentWriter):
    """The agent's writer in the layer's view: the writer's checks, and a plain atomic replace."""

    def write(self, planned: PlannedWrite, *, entry: str, turn_held: bool = False) -> TransactionOutcome:
        """Write ``planned`` in the view at once (its path checked again just before)."""
        key, outcome_id = planned.target.key, random_id()
        target = recheck(self.root, key)
        if isinstance(target, E.EditError):
            return TransactionOutcome(outcome_id, error=target)
        try:
            with RepoFolders(self.root) as folders:
                folder, name = split(key)
                folders.make(folder)
                fd = folders.fd(folder)
                if planned.after is None:
                    _remove(name, fd)
                else:
                    _replace(name, fd, planned.after, folders.lstat(key))
                os.fsync(fd)
        except OSError as exc:
            return TransactionOutcome(outcome_id, error=E.WriteFailed(None, f"{key}: {exc.strerror or exc}",
                                                                      file=key))
        return TransactionOutcome(outcome_id, [key])

    def write_now(self, planned: PlannedWrite, entry: str,
                  redo: Redo | None) -> tuple[TransactionOutcome, PlannedWrite, str | None]:
        """Write ``planned`` on the file as it is now (``redo``: the edit again when it changed; without it, a
        changed file is refused). Returns the outcome, the write as done, and a note for the model (or ``None``).

        Raises:
            WriteRefused: the file changed and the write no longer applies.
        """
        return self._write_current(planned, entry, redo)


def _remove(name: str, folder: int) -> None:
    try:
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        pass


def _replace(name: str, folder: int, data: bytes, existing: os.stat_result | None) -> None:
    """Replace (or create) ``name`` in ``folder`` with ``data``: temp file, fsync, rename."""
    if existing is not None and stat.S_ISREG(existing.st_mode):
        mode = stat.S_IMODE(existing.st_mode)
    else:
        mode = new_file_mode()
    temp = f".ljtui-{random_id()}.tmp"
    try:
        write_durable(temp, data, mode, dir_fd=folder)
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        _remove(temp, folder)
        raise


def run_tool(writer: LayerWriter, name: str, args: dict[str, Any]) -> ToolResult:
    """The whole write tool ``name`` on ``args``, written in the layer.

    Raises:
        ToolError: a bad argument (answered as the tool registry answers it).
    """
    if name == FOLDER_TOOL:
        target = prepare_folder(writer, args)
        return target if isinstance(target, ToolResult) else make_folder(writer, target.key, LAYER)
    if name == PATCH_TOOL:
        from ljtui.core.layer.host_patch import run_patch

        return run_patch(writer, args)
    prepare_tool = PREPARE.get(name)
    if prepare_tool is None:
        return failed(NOT_A_WRITE_TOOL.format(name=name, tools=", ".join(WRITE_TOOLS)))
    prepared = prepare_tool(writer, args)
    return prepared if isinstance(prepared, ToolResult) else _write(writer, prepared)


def _write(writer: LayerWriter, prepared: PreparedWrite) -> ToolResult:
    early = before_asking(prepared) or unchanged_secret(prepared, LAYER)
    if early is not None:
        return early
    try:
        outcome, done, rebased = writer.write_now(prepared.planned, prepared.entry, prepared.redo)
    except WriteRefused as exc:
        return failed(str(exc))
    return finished(prepared, outcome, done, rebased, LAYER)


def prepare(writer: LayerWriter, name: str, args: dict[str, Any]) -> ToolResult | dict[str, Any]:
    """The write tool ``name`` on ``args`` worked out, not written: its answer when there is nothing to ask about
    (a refusal, no change), else what the client shows in a dialog and sends back to :func:`commit`.

    Raises:
        ToolError: a bad argument.
    """
    if name == FOLDER_TOOL:
        target = prepare_folder(writer, args)
        if isinstance(target, ToolResult):
            return target
        title, lines = folder_question(target)
        return {"tool": name, "asked": target.key, "path": target.key, "title": title, "lines": lines,
                "diff_path": None, "before_hash": ABSENT, "after": None, "notes": []}
    if name == PATCH_TOOL:
        from ljtui.core.layer.host_patch import prepare_patch_write

        return prepare_patch_write(writer, args)
    prepare_tool = PREPARE.get(name)
    if prepare_tool is None:
        return failed(NOT_A_WRITE_TOOL.format(name=name, tools=", ".join(WRITE_TOOLS)))
    prepared = prepare_tool(writer, args)
    if isinstance(prepared, ToolResult):
        return prepared
    early = before_asking(prepared)
    if early is not None:
        return early
    return {"tool": name, "asked": args["path"], "path": prepared.path, "title": prepared.title,
            "lines": prepared.dialog_lines(), "diff_path": prepared.path,
            "before_hash": digest(prepared.planned.before), "after": encode_bytes(prepared.planned.after),
            "notes": list(prepared.notes)}


def commit(writer: LayerWriter, data: dict[str, Any]) -> ToolResult:
    """Write what :func:`prepare` worked out, unless the file changed since (``StalePlan``).

    Raises:
        ToolError, KeyError, TypeError, ValueError: ``data`` is not what :func:`prepare` gave.
    """
    name, asked, key = data["tool"], data["asked"], data["path"]
    if not isinstance(asked, str) or not isinstance(key, str):
        raise TypeError("a prepared write names its file as text")
    if name == FOLDER_TOOL:
        target = prepare_folder(writer, {"path": key})
        return target if isinstance(target, ToolResult) else make_folder(writer, target.key, LAYER)
    if name == PATCH_TOOL:
        from ljtui.core.layer.host_patch import commit_patch_write

        return commit_patch_write(writer, data)
    if name not in PREPARE:
        return failed(NOT_A_WRITE_TOOL.format(name=name, tools=", ".join(WRITE_TOOLS)))
    notes = tuple(str(note) for note in data["notes"])
    try:
        planned = writer.plan(asked, decode_bytes(data["after"]))
    except WriteRefused as exc:
        return failed(str(exc))
    if planned.target.key != key or digest(planned.before) != data["before_hash"]:
        return failed(STALE_WRITE.format(path=key))
    prepared = PreparedWrite(name, planned, "", None, notes)
    return _write(writer, prepared)
