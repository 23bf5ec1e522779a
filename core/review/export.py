"""Where an exported plan may be written, and writing it atomically.

An export is a file ljtui writes on the user's word, so it follows the same
rules as every other write: inside the repository (after resolving
symlinks), never into ``.git``, and inside ``.agent/`` only under
``.agent/plans/`` when no part of that folder is a symlink.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path, PurePosixPath

from ljtui.core.approval import YES, confirm
from ljtui.core.asking import Ask
from ljtui.core.events import Notice
from ljtui.core.ports import EventSink
from ljtui.core.review import events as R
from ljtui.core.statedir import StateDirUnsafe, state_dir

EXPORT_DIR = ".agent/plans"
"""Default folder of exported plans, relative to the repository root."""
EXPORT_FILE_MODE = 0o644
EXPORT_CANCELLED = "Export cancelled: nothing was written."


class ExportRefused(ValueError):
    """The export path breaks a rule; ``str(exc)`` says which."""


def export_target(root: Path, typed: str) -> Path:
    """The absolute path ``typed`` (relative to ``root``, or absolute inside it) names.

    Raises:
        ExportRefused: empty, outside the repository, into ``.git``, into
            ``.agent`` outside ``.agent/plans``, through a symlinked state
            folder, or a directory.
    """
    if not typed or "\0" in typed:
        raise ExportRefused("the path is empty or holds a NUL character")
    if "\\" in typed:
        raise ExportRefused(f"{typed} holds a backslash; use / between folders")
    root_real = Path(os.path.realpath(root))
    given = Path(typed)
    candidate = given if given.is_absolute() else root_real / given
    written = PurePosixPath(os.path.normpath(candidate)).parts
    if root_real.parts == written[:len(root_real.parts)] and written[len(root_real.parts):][:1] == (".agent",):
        try:
            state_dir(root_real, *written[len(root_real.parts) + 1:-1], create=False)
        except StateDirUnsafe as exc:
            raise ExportRefused(exc.message) from None
    real = Path(os.path.realpath(candidate))
    if real == root_real or root_real not in real.parents:
        raise ExportRefused(f"{typed} is outside the repository; exports stay inside it")
    rel = PurePosixPath(real.relative_to(root_real).as_posix())
    folded = [part.casefold() for part in rel.parts]
    if ".git" in folded:
        raise ExportRefused(f"{typed} is inside .git, which ljtui never writes")
    if folded[0] == ".agent":
        if len(folded) < 3 or folded[1] != "plans":
            raise ExportRefused(f"{typed} is inside .agent/ but not in .agent/plans/")
        try:
            state_dir(root_real, *rel.parts[1:-1], create=False)
        except StateDirUnsafe as exc:
            raise ExportRefused(exc.message) from None
    if real.is_dir():
        raise ExportRefused(f"{typed} is a directory")
    return real


def write_export(root: Path, target: Path, text: str) -> None:
    """Write ``text`` to ``target`` via a temp file and a rename (folders made as needed).

    Raises:
        OSError: when the file cannot be written (nothing half-written is left).
        ExportRefused: when a folder on the way turned into a symlink out of the repository.
    """
    rel = target.relative_to(Path(os.path.realpath(root))).parts
    if rel[0].casefold() == ".agent":
        from ljtui.core.edits.journal import ensure_agent_gitignore

        try:
            state_dir(root, *rel[1:-1], create=True)
            ensure_agent_gitignore(root)
        except StateDirUnsafe as exc:
            raise ExportRefused(exc.message) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    if export_target(root, str(target)) != target:
        raise ExportRefused(f"{target} moved while it was being written")
    temp = target.with_name(f".{target.name[:64]}.{os.getpid()}.export-tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, EXPORT_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


async def ask_where(ask: Ask, sink: EventSink, root: Path, now: float, count: int, path: str | None) -> Path | None:
    """Ask which file the ``count`` exported blocks go to (``path``: the answer offered), and again before
    replacing a file; ``None``, told as events, when the user cancels or the path breaks a rule."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    default = path or f"{EXPORT_DIR}/plan-{stamp}.md"
    request = confirm("export", "Export the accepted blocks",
                      [f"{count} accepted block(s) that apply will be written as an EDIT plan.",
                       "Plan file (relative to the repository root):"], "write the file", "cancel", text=default)
    decision = await ask(request)
    chosen = (decision.text or "").strip()
    if decision.choice != YES or not chosen:
        sink.emit(Notice(EXPORT_CANCELLED))
        return None
    try:
        target = export_target(root, chosen)
    except ExportRefused as exc:
        sink.emit(R.ExportFailed(chosen, str(exc)))
        return None
    if await asyncio.to_thread(target.exists):
        shown = target.relative_to(root).as_posix()
        again = await ask(confirm("overwrite", f"Overwrite {shown}?",
                                  [f"{shown} exists; its content will be replaced."], "overwrite"))
        if again.choice != YES:
            sink.emit(Notice(EXPORT_CANCELLED))
            return None
    return target
