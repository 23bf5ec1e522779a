"""Conformance of ljtui's diff reading with the real tools: the same tree, patched both ways, must match.

:func:`conform` copies a tree into fresh git repositories, applies a patch
with ``git apply`` (``git am`` for a mail series) in one, with GNU ``patch``
(``--dry-run``, then for real) in another for plain unified diffs when
``patch`` is installed, and in the last parses it with
:func:`~ljtui.core.edits.read_unified.parse_unified`, validates it with
``validate_plan`` and writes it with ``apply_changes``. Every file's bytes,
its executable bit and which files exist must then be equal (folders are
not compared).

:func:`keep_hunks` writes a patch holding only some hunks of another, so a
partial acceptance of blocks can be compared with ``git apply`` as well.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ljtui.core.edits.plan import EditPlan
from ljtui.core.edits.read_unified import parse_unified
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import validate_plan
from tests.core.edits.unified_trees import Tree

Snapshot = dict[str, tuple[bytes, bool]]
"""Every file of a tree (``.git`` and ljtui's ``.agent`` aside): its bytes and whether it is executable."""

GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C",
           "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org"}
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_SKIPPED = (".git", ".agent")


@dataclass(frozen=True)
class Conformance:
    """The trees after each tool applied the patch."""

    git: Snapshot
    ljtui: Snapshot
    patch: Snapshot | None
    """After GNU ``patch`` (``None`` when it was not run)."""


def write_tree(root: Path, tree: Tree) -> None:
    """Create ``tree``'s files under ``root`` (names may hold surrogates: they are bytes on disk)."""
    for name, value in tree.items():
        data, mode = value if isinstance(value, tuple) else (value, 0o644)
        path = Path(os.fsdecode(os.path.join(os.fsencode(root), os.fsencode(name))))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, mode)


def snapshot(root: Path) -> Snapshot:
    """The files under ``root``, ``.git`` and ``.agent`` left out."""
    out: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not (Path(folder) == root and d in _SKIPPED))
        for name in files:
            path = Path(folder, name)
            st = path.lstat()
            assert stat.S_ISREG(st.st_mode), f"{path} is not a regular file"
            out[path.relative_to(root).as_posix()] = (path.read_bytes(), bool(st.st_mode & stat.S_IXUSR))
    return out


def tree_snapshot(tree: Tree) -> Snapshot:
    """What :func:`snapshot` reads from a tree written by :func:`write_tree`."""
    return {name: (value[0], bool(value[1] & 0o100)) if isinstance(value, tuple) else (value, False)
            for name, value in tree.items()}


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, timeout=60)


def make_repo(parent: Path, name: str, tree: Tree) -> Path:
    """A fresh git repository ``parent/name`` holding ``tree`` (nothing committed)."""
    root = parent / name
    root.mkdir()
    write_tree(root, tree)
    result = _run(["git", "init", "-q"], root)
    assert result.returncode == 0, result.stderr
    return root


def git_apply(root: Path, patch: Path, strip: int) -> None:
    """``git apply -pN`` the patch in ``root``; fails the test when git refuses it."""
    result = _run(["git", "apply", f"-p{strip}", str(patch)], root)
    assert result.returncode == 0, f"git apply refused the patch: {result.stderr.decode(errors='replace')}"


def git_am(root: Path, patch: Path) -> None:
    """Commit ``root``'s tree, then ``git am --keep-cr`` the mails of ``patch`` one commit after another."""
    steps = (["add", "-A"], ["commit", "-q", "--allow-empty", "-m", "before"], ["am", "-q", "--keep-cr", str(patch)])
    for args in steps:
        result = _run(["git", *args], root)
        assert result.returncode == 0, f"git {args[0]} failed: {result.stderr.decode(errors='replace')}"


def gnu_patch(root: Path, patch: Path, strip: int) -> None:
    """``patch -pN --dry-run``, then ``patch -pN``, in ``root``; fails the test when either refuses."""
    for extra in (["--dry-run"], []):
        result = _run(["patch", f"-p{strip}", "--batch", "--no-backup-if-mismatch", "-i", str(patch), *extra], root)
        assert result.returncode == 0, f"patch {' '.join(extra)} refused: {result.stdout!r} {result.stderr!r}"


def ljtui_apply(root: Path, plan: EditPlan) -> None:
    """Validate ``plan`` against ``root`` and write it, as ljtui does."""
    report = validate_plan(plan, root)
    assert report.ok, [str(e) for e in report.errors]
    outcome = apply_changes(root, list(report.changes.values()))
    assert outcome.ok, outcome.error


def conform(tree: Tree, patch: str | bytes, *, strip: int = 1, plan: EditPlan | None = None,
            plain: bool = False, mbox: bool = False, git_patch: str | bytes | None = None) -> Conformance:
    """Apply ``patch`` to ``tree`` with ``git apply`` and with ljtui, and assert both trees are equal.

    Args:
        tree: The files before the patch.
        patch: The patch text (``str``: encoded back with ``surrogateescape``).
        strip: The ``-pN`` of ``git apply`` and ``patch``; ljtui's reader is given it only when
            ``plan`` is not (its own default is checked to agree by the tests).
        plan: The plan ljtui applies (default: the patch as :func:`parse_unified` reads it).
        plain: A plain unified diff: GNU ``patch`` is run too, when installed, and must agree.
        mbox: A ``git format-patch`` series: ``git am`` applies it (``git apply`` reads the whole text as
            one patch and refuses a rename of a file an earlier commit of the series created).
        git_patch: What ``git apply`` and ``patch`` are given instead of ``patch`` (a partial plan's hunks).

    Returns:
        The three trees after the patch.
    """
    text = patch if isinstance(patch, str) else patch.decode("utf-8", "surrogateescape")
    tool_text = text if git_patch is None else git_patch
    data = tool_text.encode("utf-8", "surrogateescape") if isinstance(tool_text, str) else tool_text
    with tempfile.TemporaryDirectory(prefix="ljtui-conform-") as tmp:
        parent = Path(tmp)
        patch_file = parent / "change.patch"
        patch_file.write_bytes(data)
        git_root = make_repo(parent, "git", tree)
        ours = make_repo(parent, "ljtui", tree)
        if mbox:
            git_am(git_root, patch_file)
        else:
            git_apply(git_root, patch_file, strip)
        ljtui_apply(ours, plan if plan is not None else parse_unified(text))
        patched = None
        if plain and shutil.which("patch"):
            patch_root = make_repo(parent, "patch", tree)
            gnu_patch(patch_root, patch_file, strip)
            patched = snapshot(patch_root)
        result = Conformance(snapshot(git_root), snapshot(ours), patched)
    assert sorted(result.ljtui) == sorted(result.git), "git apply and ljtui leave different files"
    for name, (data, executable) in result.git.items():
        assert result.ljtui[name][0] == data, f"{name}: ljtui wrote {result.ljtui[name][0]!r}, git {data!r}"
        assert result.ljtui[name][1] == executable, f"{name}: executable bit differs from git apply's"
    if result.patch is not None:
        assert result.patch == result.git, "GNU patch and git apply disagree"
    return result


def git_apply_result(tree: Tree, patch: str, strip: int = 1) -> Snapshot | None:
    """The tree after ``git apply`` of ``patch``, or ``None`` when git refuses it (for reporting differences)."""
    with tempfile.TemporaryDirectory(prefix="ljtui-conform-") as tmp:
        parent = Path(tmp)
        patch_file = parent / "change.patch"
        patch_file.write_bytes(patch.encode("utf-8", "surrogateescape"))
        root = make_repo(parent, "git", tree)
        result = _run(["git", "apply", f"-p{strip}", str(patch_file)], root)
        return snapshot(root) if result.returncode == 0 else None


def ljtui_result(tree: Tree, plan: EditPlan) -> Snapshot | list[str]:
    """The tree after ljtui validates and writes ``plan``, or the validation's error messages."""
    with tempfile.TemporaryDirectory(prefix="ljtui-conform-") as tmp:
        root = make_repo(Path(tmp), "ljtui", tree)
        report = validate_plan(plan, root)
        if not report.ok:
            return [str(e) for e in report.errors]
        outcome = apply_changes(root, list(report.changes.values()))
        assert outcome.ok, outcome.error
        return snapshot(root)


def keep_hunks(text: str, keep: set[tuple[str, int]]) -> str:
    """``text`` (a git diff) with only the hunks ``(file, n)`` in ``keep`` (``n`` 1-based within the file).

    File headers stay; a file none of whose hunks is kept is left out; the
    ``+start`` of every kept hunk is moved by the lines the dropped hunks
    before it would have added or removed, so ``git apply`` places it where
    ljtui does.
    """
    out: list[str] = []
    section: list[str] = []
    path, number, shift, kept, skipping = "", 0, 0, False, False

    def close() -> None:
        if kept:
            out.extend(section)

    for line in re.findall(r"[^\n]*\n|[^\n]+", text):
        if line.startswith("diff --git "):
            close()
            section, number, shift, kept, skipping = [line], 0, 0, False, False
            path = line.rstrip("\r\n").split(" b/", 1)[-1]
            continue
        match = _HUNK.match(line)
        if match:
            number += 1
            old_count, new_count = int(match.group(2) or 1), int(match.group(4) or 1)
            skipping = (path, number) not in keep
            if skipping:
                shift -= new_count - old_count
                continue
            kept = True
            start = int(match.group(3)) + shift
            line = f"@@ -{match.group(1)},{old_count} +{start},{new_count} @@{line[match.end():]}"
        if not skipping:
            section.append(line)
    close()
    return "".join(out)
