"""The one path every byte an agent writes takes (AGENT-1a).

A write is checked like a plan path (inside the repository after resolving
symlinks, never ``.git`` or ``.agent``, never a read-only file), then
written through the patcher's transaction: snapshot, journal, temp file,
fsync, rename, verify, rollback. The transactions of one user message share
a group, so undo reverts everything the agent wrote for that message —
files it created are removed — exactly as it reverts an applied plan. This
is also the one place where a delivery gate will redirect writes.

The writer holds the session's secret-file policy: a planned write says
whether its target is secret (as the model named it, or where a symlink
leads), so the tools tell the model nothing of what such a file held.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from ljtui.core.clock import Clock
from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.errors import EditError
from ljtui.core.edits.paths import Target, check_spelling, protected_reason, resolve_target
from ljtui.core.edits.secret_targets import secret_rule
from ljtui.core.edits.transaction import TransactionOutcome, apply_changes, random_id
from ljtui.core.edits.validate import FileChange, read_bytes
from ljtui.core.edits.write_queue import WriteQueueTimeout, async_turn
from ljtui.core.secret_files import SecretFiles

DIFF_LINES_SHOWN = 200
"""Lines of a diff a permission dialog shows; the rest are counted."""
STALE_WRITE = ("StalePlan: {path} changed on disk after this write was worked out (another task's write, or an "
               "edit outside ljtui); nothing was written: read it again and write again")
"""Why a whole-file write is refused when the file changed before its turn came (nobody's bytes are lost)."""
REBASED_NOTE = ("{path} changed on disk after this edit was worked out (another task's write, or an edit outside "
                "ljtui); the edit was made on its current content")
"""What the model is told when its edit was made on bytes another writer had just written."""

Redo = Callable[[bytes | None], bytes | None]
"""Works a change out again on the file's current bytes (raises :class:`WriteRefused` when it no longer applies)."""
T = TypeVar("T")


class WriteRefused(Exception):
    """A path an agent may not write; ``str(exc)`` is for the model."""


@dataclass(frozen=True)
class PlannedWrite:
    """A write worked out but not done: the file, its bytes now and after.

    Attributes:
        target: where the bytes go.
        before: the file's bytes now (``None``: it does not exist); shown to
            the user in the permission dialog, never to the model when
            ``secret`` is set.
        after: the bytes written (``None`` removes the file).
        secret: the rule that makes the target a secret file, or ``None``.
    """

    target: Target
    before: bytes | None
    after: bytes | None
    secret: str | None = None

    @property
    def change(self) -> FileChange:
        return FileChange(self.target.key, self.target.real, self.before, self.after)

    def diff_lines(self, limit: int = DIFF_LINES_SHOWN) -> list[str]:
        """The unified diff, cut to ``limit`` lines with a count of the rest."""
        lines = unified_diff(self.change).splitlines()
        if len(lines) <= limit:
            return lines
        return [*lines[:limit], f"… {len(lines) - limit} more diff lines not shown"]


class AgentWriter:
    """Writes of one session, grouped per user message."""

    def __init__(self, root: Path, clock: Clock, secrets: SecretFiles = SecretFiles()) -> None:
        self.root = Path(os.path.realpath(root))
        self.clock = clock
        self.secrets = secrets
        """The session's secret-file policy (the default allows none)."""
        self.group = random_id()
        """The transaction group of the current user message (set by the engine per message)."""

    def new_message(self) -> None:
        """Start a new group: undo reverts the writes of the latest message only."""
        self.group = random_id()

    def target(self, path: str) -> Target:
        """Where ``path`` (repo-relative, from the model) may be written.

        Raises:
            WriteRefused: outside the repository, protected, not a file, read-only, malformed.
        """
        found = resolve_target(self.root, path, root_resolved=True)
        if isinstance(found, EditError):
            raise WriteRefused(found.message)
        return found

    def folder(self, path: str) -> Target:
        """Where the folder ``path`` may be created (the plan-path rules, for a folder).

        Raises:
            WriteRefused: outside the repository, protected, malformed, or an existing file.
        """
        refused = check_spelling(path)
        if refused is not None:
            raise WriteRefused(refused.message)
        try:
            real = os.path.realpath(os.path.join(self.root, path))
        except OSError as exc:  # a link on the way was swapped while it was read
            raise WriteRefused(f"{path}: a folder on its way changed while it was resolved ({exc.strerror})") from None
        if real == str(self.root) or not real.startswith(str(self.root) + os.sep):
            raise WriteRefused(f"{path} resolves to {real}, outside the repository (or is its root)")
        key = real[len(str(self.root)) + 1:]
        reason = protected_reason(key)
        if reason is not None:
            raise WriteRefused(f"{path} resolves to {key}: {reason}")
        if os.path.lexists(real) and not os.path.isdir(real):
            raise WriteRefused(f"{key} exists and is not a folder")
        return Target(key, Path(real))

    def plan(self, path: str, after: bytes | None) -> PlannedWrite:
        """The write of ``after`` to ``path`` (``None`` removes the file), with the current bytes."""
        target = self.target(path)
        try:
            before = read_bytes(target.real)
        except IsADirectoryError:
            raise WriteRefused(f"{path} is a directory") from None
        except OSError as exc:
            raise WriteRefused(f"cannot read {path}: {exc.strerror or exc}") from None
        return PlannedWrite(target, before, after, secret_rule(self.secrets, path, target.key))

    def write(self, planned: PlannedWrite, *, entry: str, turn_held: bool = False) -> TransactionOutcome:
        """Write ``planned`` atomically in the current message's group (checked again just before)."""
        return apply_changes(self.root, [planned.change], clock=self.clock, kind="apply", entries=[entry],
                             group=self.group, turn_held=turn_held)

    async def write_in_turn(self, planned: PlannedWrite, *, entry: str,
                            redo: Redo | None = None) -> tuple[TransactionOutcome, PlannedWrite, str | None]:
        """Wait for this repository's write turn (other writers of this process go first, in order), then
        write ``planned`` on the file as it is now.

        When another writer changed the file meanwhile, ``redo`` works the change out again on the new bytes
        (an edit); without ``redo`` (a whole-file write) the write is refused, so nobody's bytes are lost.
        Returns the outcome, the write as done, and a note for the model (or ``None``). Cancelling waits for a
        write already under way to end, so the turn is never released while bytes are being written.

        Raises:
            WriteRefused: The file changed and the write no longer applies, or the turn never came.
        """
        try:
            async with async_turn(self.root):
                return await _to_thread_to_the_end(self._write_current, planned, entry, redo)
        except WriteQueueTimeout as slow:
            raise WriteRefused(f"{slow}; nothing was written") from None

    def _write_current(self, planned: PlannedWrite, entry: str,
                       redo: Redo | None) -> tuple[TransactionOutcome, PlannedWrite, str | None]:
        path = planned.target.key
        try:
            current = read_bytes(planned.target.real)
        except OSError as exc:
            raise WriteRefused(f"cannot read {path}: {exc.strerror or exc}") from None
        note = None
        if current != planned.before:
            if redo is None:
                raise WriteRefused(STALE_WRITE.format(path=path))
            planned = dataclasses.replace(planned, before=current, after=redo(current))
            note = REBASED_NOTE.format(path=path)
        return self.write(planned, entry=entry, turn_held=True), planned, note


async def _to_thread_to_the_end(fn: Callable[..., T], *args: object) -> T:
    """Run ``fn`` in a thread; when cancelled, wait for it to end before re-raising the cancellation."""
    running = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        while not running.done():
            try:
                await asyncio.shield(running)
            except asyncio.CancelledError:
                continue
            except Exception:
                break
        raise
