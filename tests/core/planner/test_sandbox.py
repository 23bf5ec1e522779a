"""Sandbox path resolution and the handbook mount (PLN-3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.sandbox import HANDBOOK_MOUNT, MountTable, PathRefused, Sandbox, handbook_dir_from_skill


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


@pytest.mark.parametrize("path", ["../secret.txt", "pkg/../../secret.txt", "pkg/.."])
def test_dotdot_is_refused(tree: Path, path: str) -> None:
    with pytest.raises(PathRefused, match=r"'\.\.'"):
        Sandbox.at(tree).resolve(path)


@pytest.mark.parametrize("path", ["/etc/passwd", "\\etc", "C:\\x", "~/x"])
def test_absolute_paths_are_refused(tree: Path, path: str) -> None:
    with pytest.raises(PathRefused, match="absolute"):
        Sandbox.at(tree).resolve(path)


@pytest.mark.parametrize("path", ["pkg\\mod.py", "..\\secret.txt", "pkg/sub\\", "a\\b\\c"])
def test_backslash_is_refused_with_a_hint(tree: Path, path: str) -> None:
    with pytest.raises(PathRefused, match="contains a backslash; use / between folders"):
        Sandbox.at(tree).resolve(path)
    with pytest.raises(PathRefused, match="use / between folders"):
        MountTable.build(tree).locate(path)


def test_symlink_leaving_the_root_is_refused(tree: Path) -> None:
    (tree / "link.txt").symlink_to(tree.parent / "secret.txt")
    (tree / "linkdir").symlink_to(tree.parent, target_is_directory=True)
    box = Sandbox.at(tree)
    for path in ("link.txt", "linkdir", "linkdir/secret.txt"):
        with pytest.raises(PathRefused, match="leaves the sandbox"):
            box.resolve(path)


def test_symlink_inside_the_root_is_followed(tree: Path) -> None:
    (tree / "alias.py").symlink_to(tree / "pkg" / "mod.py")
    assert Sandbox.at(tree).resolve("alias.py") == (tree / "pkg" / "mod.py").resolve()


def test_root_and_plain_paths_resolve(tree: Path) -> None:
    box = Sandbox.at(tree)
    assert box.resolve(".") == box.root == box.resolve("")
    assert box.resolve("./pkg//mod.py") == box.root / "pkg" / "mod.py"
    assert box.display(box.root / "pkg" / "mod.py") == "pkg/mod.py"


def test_nul_byte_is_refused(tree: Path) -> None:
    with pytest.raises(PathRefused, match="NUL"):
        Sandbox.at(tree).resolve("pkg\0/mod.py")


@pytest.mark.parametrize("path", ["pkg/\ud800.py", "\udfff", "pkg/mod\udc80.py"])
def test_unpaired_surrogate_is_refused(tree: Path, path: str) -> None:
    with pytest.raises(PathRefused, match="unpaired surrogate"):
        Sandbox.at(tree).resolve(path)


def test_root_reached_through_a_symlink_works(tree: Path) -> None:
    link = tree.parent / "via-link"
    link.symlink_to(tree, target_is_directory=True)
    assert Sandbox.at(link).resolve("pkg/mod.py") == Path(os.path.realpath(tree)) / "pkg" / "mod.py"


def test_handbook_is_a_second_sandbox(tree: Path, tmp_path: Path) -> None:
    book = tmp_path / "book"
    book.mkdir()
    (book / "index.md").write_text("# index\n")
    mounts = MountTable.build(tree, book)
    box, real = mounts.locate(f"{HANDBOOK_MOUNT}/index.md")
    assert box is mounts.handbook and real == book.resolve() / "index.md"
    assert box.display(real) == "__handbook__/index.md"
    with pytest.raises(PathRefused):
        mounts.locate(f"{HANDBOOK_MOUNT}/../root/pkg/mod.py")
    (book / "escape").symlink_to(tree, target_is_directory=True)
    with pytest.raises(PathRefused, match="leaves the sandbox"):
        mounts.locate(f"{HANDBOOK_MOUNT}/escape/pkg/mod.py")


def test_handbook_prefix_without_a_handbook_is_refused(tree: Path) -> None:
    with pytest.raises(PathRefused, match="no handbook"):
        MountTable.build(tree).locate(f"{HANDBOOK_MOUNT}/x.md")


def test_handbook_dir_from_skill() -> None:
    assert handbook_dir_from_skill("skills/myrepo") == Path("skills/myrepo/references")
