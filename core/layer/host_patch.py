"""``apply_patch`` in the layer's tool host: worked out as in ljtui's process
(:mod:`ljtui.core.agent.tools.patch_steps`), written in the layer.

The patch's files are written one after another with the layer writer's
atomic replace (:class:`~ljtui.core.layer.host_writes.LayerWriter`, the
``writer`` every function here takes), once
every one of them was found to hold the bytes the patch was worked out on;
when one cannot be written, those written before it get their bytes back,
so the layer holds the whole patch or none of it.

A patch worked out for a dialog (:func:`prepare_patch_write`) travels to
the client and back (:func:`commit_patch_write`) as its text, with the hash
of the bytes of every file it changes: the commit works it out again, and
refuses it (``StalePlan``) when one of them holds other bytes by then.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ljtui.core.agent.tools.base import failed
from ljtui.core.agent.tools.patch_steps import PATCH_TOOL, PreparedPatch, patch_finished, prepare_patch, stale
from ljtui.core.agent.tools.write_steps import LAYER
from ljtui.core.agent.writer import STALE_WRITE, AgentWriter, PlannedWrite, WriteRefused
from ljtui.core.edits.paths import Target
from ljtui.core.edits.transaction import TransactionOutcome, random_id
from ljtui.core.tool_result import ToolResult

NOT_PUT_BACK = "; {path} could not be given its bytes back ({why}): read it before writing again"


def run_patch(writer: AgentWriter, args: dict[str, Any]) -> ToolResult:
    """The whole ``apply_patch`` on ``args``, written in the layer.

    Raises:
        ToolError: a bad argument.
    """
    prepared = prepare_patch(writer, args)
    return prepared if isinstance(prepared, ToolResult) else _write(writer, prepared)


def prepare_patch_write(writer: AgentWriter, args: dict[str, Any]) -> ToolResult | dict[str, Any]:
    """``apply_patch`` on ``args`` worked out, not written: its answer when there is nothing to ask about (a
    refusal, no change), else what the client shows in a dialog and sends back to :func:`commit_patch_write`.

    Raises:
        ToolError: a bad argument.
    """
    prepared = prepare_patch(writer, args)
    if isinstance(prepared, ToolResult):
        return prepared
    return {"tool": PATCH_TOOL, "asked": prepared.patch, "path": prepared.subject, "title": prepared.title,
            "lines": prepared.dialog_lines(), "diff_path": prepared.diff_path, "before_hash": _digest(prepared),
            "after": None, "notes": list(prepared.notes)}


def commit_patch_write(writer: AgentWriter, data: dict[str, Any]) -> ToolResult:
    """Write what :func:`prepare_patch_write` worked out, unless one of its files changed since (``StalePlan``).

    Raises:
        ToolError, KeyError, TypeError: ``data`` is not what :func:`prepare_patch_write` gave.
    """
    patch, subject = data["asked"], data["path"]
    if not isinstance(patch, str) or not isinstance(subject, str):
        raise TypeError("a prepared patch holds its text and its files as text")
    prepared = prepare_patch(writer, {"patch": patch})
    if isinstance(prepared, ToolResult) or _digest(prepared) != data["before_hash"]:
        return failed(STALE_WRITE.format(path=subject))
    return _write(writer, prepared)


def _digest(prepared: PreparedPatch) -> str:
    """One hash of every file the patch changes: its path, its bytes now and after."""
    whole = hashlib.sha256()
    for change in prepared.changes:
        for part in (change.path.encode("utf-8", "surrogateescape"), change.before, change.after):
            whole.update(b"-" if part is None else b"+" + hashlib.sha256(part).digest())
    return whole.hexdigest()


def _write(writer: AgentWriter, prepared: PreparedPatch) -> ToolResult:
    """Write every file of ``prepared`` in the layer, or none (those written first get their bytes back)."""
    try:
        if stale(prepared):
            return failed(STALE_WRITE.format(path=prepared.subject))
    except WriteRefused as exc:
        return failed(str(exc))
    written: list[PlannedWrite] = []
    for change in prepared.changes:
        planned = PlannedWrite(Target(change.path, change.real), change.before, change.after)
        outcome = writer.write(planned, entry=f"{PATCH_TOOL} {change.path}")
        if outcome.error is not None:
            return patch_finished(prepared, _put_back(writer, written, outcome), None, LAYER)
        written.append(planned)
    return patch_finished(prepared, TransactionOutcome(random_id(), [c.path for c in prepared.changes]), None,
                          LAYER)


def _put_back(writer: AgentWriter, written: list[PlannedWrite], failure: TransactionOutcome) -> TransactionOutcome:
    """Give each file in ``written`` its bytes back, last first; ``failure``, saying which could not be."""
    error = failure.error
    assert error is not None
    for planned in reversed(written):
        back = PlannedWrite(planned.target, planned.after, planned.before)
        undone = writer.write(back, entry=f"{PATCH_TOOL} {planned.target.key}")
        if undone.error is not None:
            more = NOT_PUT_BACK.format(path=planned.target.key, why=undone.error.message)
            error = type(error)(error.block, error.message + more, error.file)
    return TransactionOutcome(failure.id, error=error)
