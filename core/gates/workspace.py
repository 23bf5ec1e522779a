"""The staging tree of a gated run (GATE-4): ``.agent/workspace/<run-id>/tree``.

While a confirmed L2+ gate is started, every write and every command lands
in a copy of the user's working tree, and the accumulated change is
delivered later as one EDIT plan. The copy holds the tree as it is on disk
when the run starts: tracked files with their uncommitted changes (deleted
ones left out), untracked files git does not ignore, never ignored files,
``.git`` or ``.agent``. Outside git, a walk that skips what the outline
skips. Files are copied, never hard-linked (a command writing in place must
not reach the user's file); ``copy_file_range`` makes them reflinks where
the file system can.

Why a copy rather than ``git worktree add``: a worktree shares the user's
refs, objects, config and hooks, so ``git branch -f`` or ``git commit`` in
staging would change the user's repository; it also fails on a repository
without commits and registers itself in the user's ``.git``.

Beside the tree: ``manifest.json`` (what was copied, with the ``lstat``
identity of each copy and of its original, so :meth:`Workspace.changes`
reports only what changed in staging, and holds back what also changed in
the user's tree since, or appeared there where staging made a file), and
in a git repository a private bare ``git`` folder whose only use is to
apply the tree's ignore rules to files made in staging (caches and build
output are never delivered nor hashed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ljtui.core.childenv import child_env
from ljtui.core.edits.journal import ensure_agent_gitignore
from ljtui.core.gates.workspace_files import (
    Entry,
    WorkspaceError,
    copy_entry,
    private_git,
    git,
    git_paths,
    kept,
    link_refusal,
    read_entry,
    safe_relative,
    remove_tree,
    same_bytes,
    scan,
    split_z,
    through_link,
    tree_hash,
    walk_paths,
)
from ljtui.core.statedir import AGENT_DIR, StateDirUnsafe, state_dir

__all__ = ["StagedChange", "Workspace", "WorkspaceError", "command_env", "validate_run_id"]

WORKSPACE_DIR = "workspace"
"""Folder below ``.agent`` holding one folder per gated run."""
TREE_DIR = "tree"
GIT_DIR = "git"
MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
"""Largest manifest read back (a repository may commit anything under ``.agent``)."""
MAX_TREE_FILES = 100_000
"""Most files a staging copy holds; a larger tree is refused."""
MAX_TREE_BYTES = 2 * 1024 ** 3
"""Most bytes a staging copy holds; a larger tree is refused."""
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
"""What a run id looks like: one safe path component."""
GIT_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
                     "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX")
"""Inherited variables that would point git at the user's repository; never passed to staged commands."""
GIT_MODE, WALK_MODE = "git", "walk"
USER_CHANGED = ("it also changed in your tree after the staging copy was made; it is not delivered, so your "
                "change is never overwritten: merge the staged copy by hand")
"""Why a file both sides changed stays out of a delivery."""
USER_CREATED = ("it did not exist when the staging copy was made, and your tree has it now; it is not delivered, so "
                "your file is never overwritten: merge the staged copy by hand")
"""Why a file staging created stays out of a delivery when the user's tree has that path by then."""
NOT_COPIED = ("the staging copy left it out ({why}), and your tree has it now; it is not delivered, so your file is "
              "never overwritten: merge the staged copy by hand")
"""Why a file staging made where the copy had left the user's file out stays out of a delivery."""
Stamp = tuple[int, int, int]
"""``(inode, ctime_ns, size)``: changes whenever a file is written, replaced or chmod-ed."""


@dataclass(frozen=True)
class StagedChange:
    """One path that differs between the staging tree and the user's tree.

    Attributes:
        path: repository-relative path.
        before: the user's current bytes (``None``: staging created it).
        after: the staged bytes (``None``: staging removed it).
        reason: when set, the change cannot be carried as file text (a symbolic link, say) and why.
        note: a caveat for the user when it is delivered (executable bit, a change on both sides).
    """

    path: str
    before: bytes | None
    after: bytes | None
    reason: str = ""
    note: str = ""


def validate_run_id(run_id: object) -> str:
    """``run_id`` when it is a safe run id (one path component of letters, digits, ``-``, ``_``).

    Raises:
        WorkspaceError: it is anything else (``../x``, empty, too long, not a string).
    """
    if not isinstance(run_id, str) or RUN_ID.fullmatch(run_id) is None:
        raise WorkspaceError(f"{run_id!r} is not a run id (letters, digits, '-' and '_', at most 64)")
    return run_id


def command_env(tree: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a command run in ``tree``: no API keys, and git never walks up past the tree.

    ``GIT_CEILING_DIRECTORIES`` is the tree's parent, so ``git`` in a plain
    copy (which has no ``.git``) does not find the user's repository above it.

    Args:
        tree: where the command runs.
        base: an environment already without keys or credentials (default :func:`child_env`).
    """
    env = {k: v for k, v in (child_env() if base is None else base).items() if k not in GIT_LOCATION_VARS}
    env["GIT_CEILING_DIRECTORIES"] = str(Path(tree).parent)
    env["PWD"] = str(tree)
    return env


def _stamp(path: str) -> Stamp | None:
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_ino, st.st_ctime_ns, st.st_size)


class Workspace:
    """A gated run's staging tree. Build with :meth:`create` or :meth:`open`; disk work is synchronous.

    Attributes:
        root: the user's repository root (resolved).
        run_id: the run this tree belongs to.
        folder: ``.agent/workspace/<run-id>``.
        tree: the staging copy, where staged writes and commands happen.
        mode: ``git`` (listed by git) or ``walk``.
        skipped: ``(path, reason)`` of what the copy left out (outside links, submodules, unreadable files).
    """

    def __init__(self, root: Path, run_id: str, manifest: dict[str, object]) -> None:
        self.root = root
        self.run_id = run_id
        self.folder = root / AGENT_DIR / WORKSPACE_DIR / run_id
        self.tree = self.folder / TREE_DIR
        self.mode = str(manifest.get("mode", WALK_MODE))
        files = manifest.get("files")
        self._files: dict[str, list[list[int] | None]] = {
            p: v for p, v in (files.items() if isinstance(files, dict) else ())
            if safe_relative(p) and isinstance(v, list) and len(v) == 2}
        skipped = manifest.get("skipped")
        self.skipped: tuple[tuple[str, str], ...] = tuple(
            (pair[0], pair[1]) for pair in (skipped if isinstance(skipped, list) else ())
            if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, str) for x in pair))

    # --- making, finding, removing -----------------------------------------------------------

    @classmethod
    def create(cls, root: Path, run_id: str) -> Workspace:
        """Copy the current working tree of ``root`` to ``.agent/workspace/<run_id>/tree``.

        Raises:
            WorkspaceError: a bad run id, a workspace that exists, a tree over
                :data:`MAX_TREE_FILES` / :data:`MAX_TREE_BYTES`, or git failing in a git repository.
            StateDirUnsafe: ``.agent`` or ``.agent/workspace`` is a link or not a folder.
        """
        validate_run_id(run_id)
        root = Path(os.path.realpath(root))
        base = state_dir(root, WORKSPACE_DIR, create=True)
        ensure_agent_gitignore(root)
        folder = base / run_id
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            raise WorkspaceError(f"the staging workspace {run_id} already exists; discard it first") from None
        try:
            manifest = _populate(root, folder)
        except BaseException:
            remove_tree(folder)
            raise
        return cls(root, run_id, manifest)

    @classmethod
    def open(cls, root: Path, run_id: object) -> Workspace:
        """The existing workspace of ``run_id`` (validated like any untrusted value).

        Raises:
            WorkspaceError: a bad run id, no such workspace, or an unreadable manifest.
            StateDirUnsafe: a folder on the way is a link or not a folder.
        """
        run = validate_run_id(run_id)
        root = Path(os.path.realpath(root))
        try:
            folder = state_dir(root, WORKSPACE_DIR, run, create=False)
            state_dir(root, WORKSPACE_DIR, run, TREE_DIR, create=False)
        except StateDirUnsafe as exc:
            raise WorkspaceError(exc.message) from None
        if not (folder / TREE_DIR).is_dir():
            raise WorkspaceError(f"there is no staging workspace {run} in {root / AGENT_DIR / WORKSPACE_DIR}")
        try:
            fd = os.open(folder / MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_MANIFEST_BYTES + 1)
            if len(data) > MAX_MANIFEST_BYTES:
                raise ValueError(f"it is over {MAX_MANIFEST_BYTES} bytes")
            manifest = json.loads(data)
        except (OSError, ValueError) as exc:
            raise WorkspaceError(f"the staging workspace {run} has no readable {MANIFEST}: {exc}") from None
        if not isinstance(manifest, dict) or manifest.get("version") != MANIFEST_VERSION:
            raise WorkspaceError(f"{folder / MANIFEST} is not a version {MANIFEST_VERSION} workspace manifest")
        return cls(root, run, manifest)

    @staticmethod
    def list(root: Path) -> list[str]:
        """Run ids that have a staging tree under ``root``, sorted."""
        base = state_dir(Path(root), WORKSPACE_DIR, create=False)
        try:
            entries = list(os.scandir(base))
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(e.name for e in entries if RUN_ID.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
                      and os.path.isdir(os.path.join(e.path, TREE_DIR)))

    def discard(self) -> None:
        """Remove the staging tree and everything beside it (read-only folders in it included)."""
        state_dir(self.root, WORKSPACE_DIR, self.run_id, create=False)
        remove_tree(self.folder)

    # --- reading -------------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """The staged files and links that count: what was copied and still exists, plus new files
        the tree's ignore rules do not ignore (outside git: the walk's files)."""
        if self.mode == GIT_MODE:
            try:
                done = git(["ls-files", "-z", "--others", "--exclude-standard"], self.tree,
                           options=("--git-dir", str(self.folder / GIT_DIR), "--work-tree", str(self.tree)))
            except (OSError, subprocess.SubprocessError) as exc:
                raise WorkspaceError(f"git could not list the staging tree: {exc}") from None
            if done.returncode != 0:
                raise WorkspaceError(f"git could not list the staging tree: {done.stderr.decode(errors='replace')}")
            paths = kept([*self._files, *split_z(done.stdout)])
        else:
            paths = kept(walk_paths(self.tree))
        return [e for p in paths if (e := scan(self.tree, p)) is not None and e.kind != "other"]

    def content_hash(self) -> str:
        """sha256 of the staged content (:meth:`entries`): paths, executable bits, bytes, link texts."""
        return tree_hash(self.tree, self.entries())

    def changes(self) -> list[StagedChange]:
        """What staging changed, against the user's tree as it is now, sorted by path.

        Paths staging never touched are left out, even when the user changed
        them since (delivering must not undo the user's own edits).
        """
        staged = {e.path: e for e in self.entries()}
        current = {e.path: e for e in self._current()}
        out = []
        for path in sorted(set(staged) | set(current)):
            record = self._files.get(path)
            after = staged.get(path)
            if record is None and after is None:
                continue
            if record is not None and after is not None and _stamp(str(self.tree / path)) == _as_stamp(record[0]):
                continue
            change = self._change(path, current.get(path), after, record)
            if change is not None:
                out.append(change)
        return out

    def _current(self) -> list[Entry]:
        if self.mode == GIT_MODE:
            paths = git_paths(self.root)
            if paths is None:
                raise WorkspaceError(f"git could not list the files of {self.root}")
        else:
            paths = walk_paths(self.root)
        root_real, cache = str(self.root), {}
        return [e for p in kept(paths) if not through_link(root_real, p, cache)
                and (e := scan(self.root, p)) is not None and e.kind != "other"]

    def _change(self, path: str, now: Entry | None, staged: Entry | None,
                record: list[list[int] | None] | None) -> StagedChange | None:
        if now is None and staged is None:
            return None
        if now is not None and staged is not None and now.kind == staged.kind == "file":
            if now.size == staged.size and same_bytes(self.root, self.tree, path):
                if now.executable == staged.executable:
                    return None
                data = read_entry(self.tree, staged)
                return StagedChange(path, data, data, reason=f"only its executable bit changed (now "
                                    f"{'set' if staged.executable else 'cleared'}); an EDIT plan carries text only")
        elif now is not None and staged is not None and now.kind == staged.kind == "link" \
                and now.target == staged.target:
            return None
        note = ""
        before = read_entry(self.root, now) if now is not None and now.kind == "file" else None
        after = read_entry(self.tree, staged) if staged is not None and staged.kind == "file" else None
        if record is not None and _stamp(str(self.root / path)) != _as_stamp(record[1]):
            return StagedChange(path, before, after, reason=USER_CHANGED)
        if record is None and (now is not None or os.path.lexists(self.root / path)):
            why = dict(self.skipped).get(path)  # the copy left the user's file out, or the user made it since
            return StagedChange(path, before, after, reason=USER_CREATED if why is None else NOT_COPIED.format(why=why))
        if now is not None and now.kind == "link" or staged is not None and staged.kind == "link":
            return StagedChange(path, None, None, reason="a symbolic link changed; an EDIT plan carries text only")
        if staged is not None and staged.executable != (now is not None and now.kind == "file" and now.executable):
            bit = f"its executable bit is {'set' if staged.executable else 'cleared'} in staging; an EDIT plan " \
                  "carries text only, so change the bit by hand after delivery"
            note = "; ".join(n for n in (note, bit) if n)
        return StagedChange(path, before, after, note=note)


def _as_stamp(value: object) -> Stamp | None:
    return tuple(value) if isinstance(value, list) and len(value) == 3 else None  # type: ignore[return-value]


def _populate(root: Path, folder: Path) -> dict[str, object]:
    """Fill ``folder`` with the tree, the private git folder and the manifest; the manifest's data."""
    paths = git_paths(root)
    mode = GIT_MODE
    if paths is None:
        if os.path.lexists(root / ".git"):
            raise WorkspaceError(f"{root} holds .git but git cannot list its files; is git installed and working?")
        paths, mode = walk_paths(root), WALK_MODE
    entries, skipped = _plan(root, kept(paths))
    tree = folder / TREE_DIR
    os.mkdir(tree, 0o755)
    files: dict[str, list[list[int] | None]] = {}
    made: set[str] = set()
    for entry in entries:
        try:
            copy_entry(str(root), str(tree), entry, made)
        except OSError as exc:
            skipped.append((entry.path, f"it could not be copied: {exc.strerror or exc}"))
            continue
        files[entry.path] = [_list(_stamp(str(tree / entry.path))), _list(_stamp(str(root / entry.path)))]
    if mode == GIT_MODE:
        private_git(root, folder / GIT_DIR)
    manifest = {"version": MANIFEST_VERSION, "mode": mode, "created": time.time(), "files": files,
                "skipped": sorted(skipped)}
    fd = os.open(folder / MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh)
    return manifest


def _list(stamp: Stamp | None) -> list[int] | None:
    return list(stamp) if stamp is not None else None


def _plan(root: Path, paths: list[str]) -> tuple[list[Entry], list[tuple[str, str]]]:
    """What to copy and what to leave out (with why); refuses a tree over the caps."""
    root_real, cache = str(root), {}
    entries: list[Entry] = []
    skipped: list[tuple[str, str]] = []
    total = 0
    for path in paths:
        if through_link(root_real, path, cache):
            skipped.append((path, "a folder on its path is a symbolic link"))
            continue
        entry = scan(root, path)
        if entry is None:
            continue
        if entry.kind == "other":
            kind = "a submodule or nested repository" if os.path.isdir(root / path) else "not a regular file"
            skipped.append((path, f"{kind}; only files and links inside the tree are staged"))
            continue
        if entry.kind == "link" and (why := link_refusal(root_real, entry)) is not None:
            skipped.append((path, why))
            continue
        entries.append(entry)
        total += entry.size
    if len(entries) > MAX_TREE_FILES or total > MAX_TREE_BYTES:
        raise WorkspaceError(f"the working tree has {len(entries)} files ({total} bytes); a staging copy holds at "
                             f"most {MAX_TREE_FILES} files and {MAX_TREE_BYTES} bytes")
    return entries, skipped
