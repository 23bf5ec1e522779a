"""What the layer's scan reads from a real overlay's upper folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.edits.read_change import read_change
from ljtui.core.layer.diff import diff_text
from ljtui.core.layer.scan import CREATE, DELETE, MODIFY, MOVE, is_opaque, is_whiteout
from tests.core.layer.helpers import add_files, change_of, kinds, layer_of, run_in, run_ok


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return add_files(git_repo, {
        "pkg/a.py": "a = 1\n", "pkg/b.py": "b = 2\n", "pkg/sub/c.py": "c = 3\n",
        "notes.txt": "notes\n", "docs/x.md": "x\n", "docs/y.md": "y\n",
        "run.sh": "echo run\n", ".gitignore": "build/\n*.log\n",
    })


def test_modification_creation_and_deletion(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "echo more >> README.md && mkdir -p new/deep/er && echo made > new/deep/er/f.txt && rm app.py")
    change = change_of(layer)
    assert kinds(change) == {"README.md": MODIFY, "new/deep/er/f.txt": CREATE, "app.py": DELETE}
    by_path = {e.path: e for e in change.entries}
    assert by_path["README.md"].before.data == b"# sample\n"
    assert by_path["README.md"].after.data == b"# sample\nmore\n"
    assert by_path["new/deep/er/f.txt"].before.exists is False
    assert by_path["new/deep/er/f.txt"].after.data == b"made\n"
    assert by_path["app.py"].after.exists is False
    assert by_path["app.py"].before.data == (repo / "app.py").read_bytes()
    assert is_whiteout(os.lstat(layer.place.upper / "app.py"))
    assert change.empty_folders == () and change.held == ()
    assert [e.path for e in change.entries] == sorted(e.path for e in change.entries)


def test_a_folder_deleted_then_made_again_is_opaque(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "rm -rf pkg && mkdir pkg && echo 'a = 10' > pkg/a.py && echo 'b = 2' > pkg/b.py")
    assert is_opaque(layer.place.upper / "pkg")
    change = change_of(layer)
    # b.py is made again with its old bytes: no change; c.py below the old folder is gone
    assert kinds(change) == {"pkg/a.py": MODIFY, "pkg/sub/c.py": DELETE}
    assert {e.path: e.after.data for e in change.entries} == {"pkg/a.py": b"a = 10\n", "pkg/sub/c.py": None}


def test_a_file_replaced_by_a_folder_and_a_folder_by_a_file(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "rm notes.txt && mkdir notes.txt && echo inner > notes.txt/inner.txt && rm -rf docs && "
                  "echo flat > docs")
    change = change_of(layer)
    assert kinds(change) == {"notes.txt": DELETE, "notes.txt/inner.txt": CREATE, "docs": CREATE,
                             "docs/x.md": DELETE, "docs/y.md": DELETE}
    assert {e.path: e.after.data for e in change.entries if e.kind == CREATE} == {
        "notes.txt/inner.txt": b"inner\n", "docs": b"flat\n"}


def test_chmod_only_is_a_mode_change(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "chmod +x run.sh")
    (entry,) = change_of(layer).entries
    assert (entry.path, entry.kind) == ("run.sh", MODIFY)
    assert entry.before.data == entry.after.data == b"echo run\n"
    assert (entry.before.mode, entry.after.mode) == (0o644, 0o755)
    assert diff_text([entry]) == "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"


def test_a_mode_change_git_cannot_carry_is_no_change(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "chmod 600 notes.txt && chmod 664 pkg/a.py && echo 'b = 3' > pkg/b.py && chmod 600 pkg/b.py")
    (entry,) = change_of(layer).entries
    assert (entry.path, entry.kind, entry.after.data, entry.after.mode) == ("pkg/b.py", MODIFY, b"b = 3\n", 0o600)
    plan, _ = read_change(diff_text([entry]))
    assert [(b.file, b.action) for b in plan.blocks] == [("pkg/b.py", "edit")]


def test_a_rename_is_a_move(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "mv notes.txt renamed.txt")
    (entry,) = change_of(layer).entries
    assert (entry.path, entry.kind, entry.moved_from) == ("renamed.txt", MOVE, "notes.txt")
    assert entry.paths == ("notes.txt", "renamed.txt")
    assert entry.before.data == entry.after.data == b"notes\n"
    text = diff_text([entry])
    assert "rename from notes.txt\nrename to renamed.txt\n" in text and "@@" not in text


def test_touch_alone_changes_nothing(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "touch README.md pkg/a.py")
    assert (layer.place.upper / "README.md").is_file()  # copied up, bytes and mode unchanged
    change = change_of(layer)
    assert change.entries == () and change.empty


def test_links_binaries_empty_folders_and_fifos(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "ln -s README.md link && printf 'GIF\\000\\001\\377' > blob.bin && mkdir empty && mkfifo pipe && "
                  "echo text > plain.txt")
    change = change_of(layer)
    assert kinds(change) == {"link": CREATE, "blob.bin": CREATE, "plain.txt": CREATE}
    by_path = {e.path: e for e in change.entries}
    assert by_path["link"].link and by_path["link"].after.data == b"README.md" and not by_path["link"].binary
    assert by_path["blob.bin"].binary and not by_path["blob.bin"].link
    assert by_path["blob.bin"].after.data == b"GIF\0\1\377"
    assert not by_path["plain.txt"].binary
    assert change.empty_folders == ("empty",)
    assert change.held == (("pipe", "not a file, a folder or a symbolic link"),)
    text = diff_text(change.entries)
    assert "plain.txt" in text and "blob.bin" not in text and "link" not in text


def test_git_and_agent_are_never_entries(repo: Path) -> None:
    layer = layer_of(repo)
    done = run_ok(layer, "echo x > .git/hooks/pre-commit 2>/dev/null; mkdir .agent && echo x > .agent/record; true")
    change = change_of(layer)
    assert change.entries == ()
    assert change.held == ((".agent", "made in the layer; ljtui never delivers it"),)
    assert not (repo / ".git/hooks/pre-commit").exists() and not (repo / ".agent").exists()
    assert done.returncode == 0


def test_agent_of_the_tree_is_read_only_in_the_layer(repo: Path) -> None:
    (repo / ".agent").mkdir()
    (repo / ".agent/record").write_text("mine\n")
    layer = layer_of(repo)
    done = run_in(layer, "echo theirs > .agent/record")
    assert done.returncode != 0 and "Read-only file system" in done.stderr
    assert (repo / ".agent/record").read_text() == "mine\n"
    assert change_of(layer).empty


def test_ignored_creations_are_kept_without_review(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "mkdir build && echo o > build/out.txt && echo log > run.log && echo 'n = 1' > new.py && "
                  "echo changed > notes.txt")
    change = change_of(layer)
    assert {e.path: e.ignored for e in change.entries} == {
        "build/out.txt": True, "run.log": True, "new.py": False, "notes.txt": False}
    assert [e.path for e in change.reviewed()] == ["new.py", "notes.txt"]
    assert [e.path for e in change.unreviewed()] == ["build/out.txt", "run.log"]


SCAN_AS_USER = """
import json, sys
from pathlib import Path
from ljtui.core.layer.scan import covered_paths, scan
upper, tree = Path(sys.argv[1]), Path(sys.argv[2])
change = scan(upper, tree, stamps={})
print(json.dumps({"entries": [[e.path, e.kind] for e in change.entries], "held": change.held,
                  "covered": covered_paths(upper, tree)}))
"""


def test_what_the_user_cannot_read_is_held(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "echo more >> README.md && chmod 000 notes.txt && mkdir -p locked/in && echo x > locked/in/f && "
                  "chmod 000 locked")
    # read as an ordinary user would (a new user namespace without capabilities: permissions apply even to root)
    argv = [layer.status.bwrap, "--unshare-user", "--uid", "1000", "--gid", "1000", "--ro-bind", "/", "/", "--dev",
            "/dev", "--proc", "/proc", "--", sys.executable, "-c", SCAN_AS_USER, str(layer.place.upper), str(repo)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["entries"] == [["README.md", MODIFY]]
    assert found["held"] == [["locked", "cannot be read: Permission denied"],
                             ["notes.txt", "cannot be read: Permission denied"]]
    assert found["covered"] == ["README.md", "notes.txt"]
