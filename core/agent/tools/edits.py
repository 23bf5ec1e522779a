"""Writing tools: ``write_file``, ``edit_file``, ``apply_patch``, ``create_directory``.

What a call checks and what the model is told are shared with the layer's
tool host (:mod:`.write_steps`). Where the call goes depends on the session:

* directly on the user's files: each call asks first (the dialog shows the
  diff) and writes through the session's
  :class:`~ljtui.core.agent.writer.AgentWriter`, so every byte goes through
  the patcher's transaction and undo reverts it;
* in the layer (the context's ``layer_tools``): the whole tool runs in the
  layer's tool host, so it reads and writes exactly what commands see; no
  dialog, since the user reviews the layer before anything reaches their
  files, unless ``agent.ask_writes`` asks before each write (the call is
  then worked out, asked about with its diff, and written only if the file
  did not change meanwhile).

``edit_file`` follows the EDIT-2 rules and messages exactly: ``old`` must
occur once (counted by the start-of-line rule), with the nearest candidates
when it does not. ``apply_patch`` takes a Codex patch (:mod:`.patch_steps`):
asked about once with the diff of every file it touches, and written in one
transaction, all its files or none.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.tools.base import failed
from ljtui.core.agent.tools.patch_steps import PATCH_TOOL, patch_finished, prepare_patch, write_in_turn
from ljtui.core.agent.tools.write_steps import (
    TREE, PreparedWrite, before_asking, finished, folder_question, make_folder, prepare_edit_file,
    prepare_folder, prepare_write_file, unchanged_secret,
)
from ljtui.core.agent.writer import AgentWriter, WriteRefused
from ljtui.core.tools import Tool, ToolContext, ToolResult, require
from ljtui.core.agent.tools.specs.edits import APPLY_PATCH, CREATE_DIRECTORY, EDIT_FILE, WRITE_FILE

if TYPE_CHECKING:
    from ljtui.core.layer.tools import LayerTools


async def _ask_and_write(ctx: ToolContext, prepared: PreparedWrite) -> ToolResult:
    """Ask the user, then write in the repository's write turn (``prepared.redo``: the edit again, on bytes
    another writer wrote meanwhile); a secret target is asked about even when unchanged, so the answer tells
    nothing."""
    early = before_asking(prepared)
    if early is not None:
        return early
    path = prepared.path
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool=prepared.tool, subject=path, title=prepared.title,
                                       lines=prepared.dialog_lines(), turn=ctx.turn, call_id=ctx.call_id,
                                       agent=ctx.agent, diff_path=path)
    if not answer.allowed:
        return failed(answer.reason)
    secret = unchanged_secret(prepared, TREE)
    if secret is not None:
        return secret
    try:
        outcome, done, rebased = await _writer(ctx).write_in_turn(prepared.planned, entry=prepared.entry,
                                                                   redo=prepared.redo)
    except WriteRefused as exc:
        return failed(str(exc))
    return finished(prepared, outcome, done, rebased, TREE)


def _writer(ctx: ToolContext) -> AgentWriter:
    return require(ctx.services.writer, "writer")


async def _in_layer(ctx: ToolContext, layer: LayerTools, tool: str, args: dict[str, Any]) -> ToolResult:
    """Run the write tool ``tool`` in the layer's tool host; with ``agent.ask_writes``, ask with its diff first."""
    if not getattr(ctx.config.agent, "ask_writes", False):
        return await asyncio.to_thread(layer.write_tool, tool, args)
    prepared = await asyncio.to_thread(layer.prepare_write, tool, args)
    if isinstance(prepared, ToolResult):
        return prepared
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool=tool, subject=prepared.path, title=prepared.title,
                                       lines=list(prepared.lines), turn=ctx.turn, call_id=ctx.call_id,
                                       agent=ctx.agent, diff_path=prepared.diff_path)
    if not answer.allowed:
        return failed(answer.reason)
    return await asyncio.to_thread(layer.commit_write, prepared)


async def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    if ctx.services.layer_tools is not None:
        return await _in_layer(ctx, ctx.services.layer_tools, "write_file", args)
    prepared = await asyncio.to_thread(prepare_write_file, _writer(ctx), args)
    if isinstance(prepared, ToolResult):
        return prepared
    return await _ask_and_write(ctx, prepared)


async def edit_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    if ctx.services.layer_tools is not None:
        return await _in_layer(ctx, ctx.services.layer_tools, "edit_file", args)
    prepared = await asyncio.to_thread(prepare_edit_file, _writer(ctx), args)
    if isinstance(prepared, ToolResult):
        return prepared
    return await _ask_and_write(ctx, prepared)


async def apply_patch(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    if ctx.services.layer_tools is not None:
        return await _in_layer(ctx, ctx.services.layer_tools, PATCH_TOOL, args)
    writer = _writer(ctx)
    prepared = await asyncio.to_thread(prepare_patch, writer, args)
    if isinstance(prepared, ToolResult):
        return prepared
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool=PATCH_TOOL, subject=prepared.subject, title=prepared.title,
                                       lines=prepared.dialog_lines(), turn=ctx.turn, call_id=ctx.call_id,
                                       agent=ctx.agent, diff_path=prepared.diff_path)
    if not answer.allowed:
        return failed(answer.reason)
    try:
        outcome, done, rebased = await write_in_turn(writer, prepared)
    except WriteRefused as exc:
        return failed(str(exc))
    return patch_finished(done, outcome, rebased, TREE)


async def create_directory(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    if ctx.services.layer_tools is not None:
        return await _in_layer(ctx, ctx.services.layer_tools, "create_directory", args)
    writer = _writer(ctx)
    target = prepare_folder(writer, args)
    if isinstance(target, ToolResult):
        return target
    title, lines = folder_question(target)
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    answer = await permissions.request(tool="create_directory", subject=target.key, title=title, lines=lines,
                                       turn=ctx.turn, call_id=ctx.call_id, agent=ctx.agent)
    if not answer.allowed:
        return failed(answer.reason)
    return await asyncio.to_thread(make_folder, writer, target.key, TREE)


TOOLS = (Tool(WRITE_FILE, write_file), Tool(EDIT_FILE, edit_file), Tool(APPLY_PATCH, apply_patch),
         Tool(CREATE_DIRECTORY, create_directory))
