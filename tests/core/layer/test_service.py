"""The layer as one service: what a command in it can reach, what the user changed since, and a corrupt record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ljtui.core.layer.place import MAX_RECORD_BYTES, LayerRecordError
from ljtui.core.layer.scan import CREATE, DELETE, MODIFY, MOVE
from tests.core.layer.helpers import add_files, change_of, kinds, layer_of, layer_view, run_in, run_ok, tree_of

SRC = {"src/a.py": "a = 1\n", "src/b.py": "b = 2\n", "src/pkg/c.py": "c = 3\n", "src/pkg/data.bin": b"\0\1\2"}


def test_a_command_reaches_neither_the_tree_nor_git(git_repo: Path) -> None:
    repo = add_files(git_repo, SRC)
    before = tree_of(repo)
    layer = layer_of(repo)
    done = run_in(layer, "rm -rf src && git checkout -- . ; echo x > .git/hooks/pre-commit")
    assert done.returncode != 0
    assert f"fatal: Unable to create '{repo}/.git/index.lock': Read-only file system" in done.stderr
    assert "pre-commit: Read-only file system" in done.stderr
    assert tree_of(repo) == before  # every byte and mode, .git included
    assert not (repo / ".git/hooks/pre-commit").exists()
    assert not (layer.place.upper / ".git").exists()
    change = change_of(layer)
    assert kinds(change) == {rel: DELETE for rel in SRC}
    assert all(e.before.data == (repo / e.path).read_bytes() and not e.stale for e in change.entries)
    assert not any(rel.startswith("src") for rel in layer_view(layer))
    assert tree_of(repo) == before


def test_an_entry_the_user_changed_since_is_stale(git_repo: Path) -> None:
    repo = add_files(git_repo, {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n"})
    layer = layer_of(repo)
    run_ok(layer, "echo A >> a.txt && echo B >> b.txt && rm c.txt && echo new > new.txt && mv d.txt moved.txt")
    assert not any(e.stale for e in change_of(layer).entries)
    (repo / "a.txt").write_text("the user's a\n")
    (repo / "c.txt").write_text("the user's c\n")
    (repo / "new.txt").write_text("the user's new\n")
    os.utime(repo / "d.txt", ns=(1, 1))  # the same bytes, touched
    entries = {e.path: e for e in change_of(layer).entries}
    assert {p: e.kind for p, e in entries.items()} == {
        "a.txt": MODIFY, "b.txt": MODIFY, "c.txt": DELETE, "new.txt": MODIFY, "moved.txt": MOVE}
    stale = {p: e.stale for p, e in entries.items() if e.stale}
    assert sorted(stale) == ["a.txt", "c.txt", "moved.txt", "new.txt"]
    assert stale["a.txt"].startswith("a.txt changed in your tree after the layer took it")
    assert stale["moved.txt"].startswith("d.txt changed in your tree")
    assert entries["new.txt"].before.data == b"the user's new\n"  # the layer's creation now meets the user's file
    assert entries["b.txt"].stale == ""


def test_the_stamps_are_those_the_layer_first_took(git_repo: Path) -> None:
    repo = add_files(git_repo, {"a.txt": "a\n"})
    layer = layer_of(repo)
    run_ok(layer, "echo 1 >> a.txt")
    (repo / "a.txt").write_text("the user's a\n")
    run_ok(layer, "echo 2 >> a.txt")  # a second command does not take the user's edit for the layer's
    (entry,) = change_of(layer).entries
    assert entry.stale and entry.after.data == b"a\n1\n2\n"


CORRUPT = {
    "not JSON": (b"{\"version\": 1,", "is not JSON"),
    "another repository": (json.dumps({"version": 1, "repo": "/elsewhere", "stamps": {}}).encode(), "belongs to"),
    "stamps not an object": (json.dumps({"version": 1, "repo": "REPO", "stamps": [1]}).encode(), "'stamps' is not"),
    "a stamp not four integers": (json.dumps({"version": 1, "repo": "REPO", "stamps": {"a.txt": [1, 2.5, 3, 4]}})
                                  .encode(), "the stamp of 'a.txt' is not four integers"),
    "huge": (None, "is larger than"),
}


@pytest.mark.parametrize("case", list(CORRUPT))
def test_a_corrupt_record_makes_every_entry_stale(git_repo: Path, case: str) -> None:
    repo = add_files(git_repo, {"a.txt": "a\n", "b.txt": "b\n"})
    layer = layer_of(repo)
    run_ok(layer, "echo A >> a.txt && mv b.txt c.txt && rm app.py && echo n > n.txt")
    data, says = CORRUPT[case]
    record = layer.place.record_path
    if data is None:
        record.write_bytes(b"")
        os.truncate(record, MAX_RECORD_BYTES + 1)
    else:
        record.write_bytes(data.replace(b"REPO", str(layer.place.repo).encode()))
    kept = record.read_bytes()
    with pytest.raises(LayerRecordError, match=says):
        layer.place.read_stamps()
    change = change_of(layer)
    assert kinds(change) == {"a.txt": MODIFY, "c.txt": MOVE, "app.py": DELETE, "n.txt": CREATE}
    for entry in change.entries:  # with no record, every path counts as changed by the user, a creation too
        assert entry.stale.startswith(f"{entry.paths[0]} changed in your tree"), entry
    (repo / "n.txt").write_text("the user's n\n")
    assert all(e.stale for e in change_of(layer).entries)
    assert record.read_bytes() == kept  # reading the change rewrites nothing


def test_a_corrupt_record_stays_distrusted_after_the_next_command(git_repo: Path) -> None:
    repo = add_files(git_repo, {"a.txt": "a\n"})
    layer = layer_of(repo)
    run_ok(layer, "echo A >> a.txt")
    layer.place.record_path.write_text("{corrupt")
    (repo / "a.txt").write_text("the user's a\n")
    assert all(e.stale for e in change_of(layer).entries)
    run_ok(layer, "echo other > other.txt")
    assert {e.path: bool(e.stale) for e in change_of(layer).entries}["a.txt"]
