"""After the user's decisions the layer keeps exactly what is pending: settle, keep_only, and a rebuild cut short."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.layer.scan import CREATE, DELETE, MODIFY, LayerEntry, Side
from ljtui.core.layer.service import GONE_UPPER, OLD_UPPER
from tests.core.layer.helpers import add_files, change_of, files_of, kinds, layer_of, layer_view, run_ok, tree_of

SRC = {"src/a.py": "a = 1\n", "src/b.py": "b = 2\n", "src/c.py": "c = 3\n"}


def accept(repo: Path, entry: LayerEntry) -> None:
    """What the user's apply does to the tree for one entry (the layer's bytes, or the file removed)."""
    if entry.kind == DELETE:
        (repo / entry.path).unlink()
    else:
        (repo / entry.path).write_bytes(entry.after.data or b"")


def test_settle_keeps_exactly_what_is_pending(git_repo: Path) -> None:
    repo = add_files(git_repo, SRC)
    layer = layer_of(repo)
    run_ok(layer, "rm src/a.py src/b.py && echo more >> README.md && echo changed > app.py && echo new > new.txt")
    entries = {e.path: e for e in change_of(layer).entries}
    assert {p: e.kind for p, e in entries.items()} == {
        "README.md": MODIFY, "app.py": MODIFY, "new.txt": CREATE, "src/a.py": DELETE, "src/b.py": DELETE}
    accept(repo, entries["src/a.py"])
    accept(repo, entries["README.md"])
    with layer.holding():  # decided: the two applied paths and the rejected one
        left = layer.settle({"src/a.py", "README.md", "src/b.py"})
    assert kinds(left) == {"app.py": MODIFY, "new.txt": CREATE}
    now = change_of(layer)
    assert now.entries == left.entries and not any(e.stale for e in now.entries)
    assert sorted(os.listdir(layer.place.upper)) == ["app.py", "new.txt"]
    assert set(layer.place.read_stamps()) <= {"app.py", "new.txt"}
    view, tree = files_of(layer_view(layer)), files_of(tree_of(repo, ".git", ".agent"))
    assert view["src/b.py"] == tree["src/b.py"] == ("file", b"b = 2\n".hex(), False)  # rejected: back in the layer
    assert "src/a.py" not in view and view["README.md"] == tree["README.md"]
    assert view.pop("app.py")[1] == b"changed\n".hex() and view.pop("new.txt")[1] == b"new\n".hex()
    tree.pop("app.py")
    assert view == tree


def test_settle_with_everything_decided_drops_the_layer(git_repo: Path) -> None:
    layer = layer_of(git_repo)
    run_ok(layer, "echo more >> README.md && rm app.py")
    entries = {e.path: e for e in change_of(layer).entries}
    accept(git_repo, entries["README.md"])
    with layer.holding():
        assert layer.settle({"README.md", "app.py"}).empty
    assert files_of(layer_view(layer)) == files_of(tree_of(git_repo, ".git", ".agent"))
    assert not layer.place.record_path.exists()


def test_settle_drops_the_copies_of_applied_entries(git_repo: Path) -> None:
    layer = layer_of(git_repo)
    run_ok(layer, "echo more >> README.md && echo changed > app.py")
    entries = {e.path: e for e in change_of(layer).entries}
    accept(git_repo, entries["README.md"])
    with layer.holding():
        assert kinds(layer.settle({"README.md"})) == {"app.py": MODIFY}
    (git_repo / "README.md").write_text("the user's next edit\n")
    assert kinds(change_of(layer)) == {"app.py": MODIFY}
    assert layer_view(layer)["README.md"][1] == b"the user's next edit\n".hex()


def test_a_file_partly_applied_leaves_the_layer_whole(git_repo: Path) -> None:
    lines = [f"line {n}\n" for n in range(1, 21)]
    repo = add_files(git_repo, {"plain.txt": "".join(lines)})
    layer = layer_of(repo)
    run_ok(layer, "sed -i -e 's/^line 2$/line two/' -e 's/^line 19$/line nineteen/' plain.txt && echo n > n.txt")
    lines[1] = "line two\n"  # the user takes the first hunk and rejects the second
    (repo / "plain.txt").write_text("".join(lines))
    with layer.holding():
        assert kinds(layer.settle({"plain.txt"})) == {"n.txt": CREATE}
    assert layer_view(layer)["plain.txt"][1] == "".join(lines).encode().hex()


REPO = {"pkg/a.py": "a = 1\n", "pkg/b.py": "b = 2\n", "pkg/sub/c.py": "c = 3\n", "notes.txt": "notes\n",
        "old.txt": "moving\n", "run.sh": "echo run\n"}
EVERY_KIND = ("rm -rf pkg && mkdir pkg && echo 'a = 10' > pkg/a.py && mv old.txt new.txt && ln -s README.md link && "
              "printf '\\000\\001' > blob.bin && chmod +x run.sh && rm notes.txt && mkdir notes.txt && "
              "echo inner > notes.txt/inner && mkfifo fifo && mkdir empty && touch README.md")


def test_keep_only_rebuilds_every_kind_of_entry(git_repo: Path) -> None:
    repo = add_files(git_repo, REPO)
    layer = layer_of(repo)
    run_ok(layer, EVERY_KIND)
    change = change_of(layer)
    assert change.held and change.empty_folders and len(change.entries) == 9
    view = files_of(layer_view(layer))
    assert view.pop("fifo")[0] == "other"
    with layer.holding():
        layer.keep_only(change.entries)
    rebuilt = change_of(layer)
    assert rebuilt.entries == change.entries
    assert rebuilt.held == () and rebuilt.empty_folders == ()
    assert files_of(layer_view(layer)) == view
    assert not (layer.place.upper / "README.md").exists()  # the touched copy was no entry: it is gone
    assert not (layer.place.folder / OLD_UPPER).exists() and not (layer.place.folder / GONE_UPPER).exists()


def test_keep_only_a_part_keeps_that_part(git_repo: Path) -> None:
    repo = add_files(git_repo, REPO)
    layer = layer_of(repo)
    run_ok(layer, EVERY_KIND)
    entries = {e.path: e for e in change_of(layer).entries}
    kept = [entries["new.txt"], entries["pkg/sub/c.py"], entries["link"]]
    with layer.holding():
        layer.keep_only(kept)
    assert change_of(layer).entries == tuple(sorted(kept, key=lambda e: e.path))
    view = files_of(layer_view(layer))
    assert "old.txt" not in view and "pkg/sub/c.py" not in view and view["pkg/b.py"][1] == b"b = 2\n".hex()
    assert view["link"] == ("link", "README.md", False)


def test_keep_only_nothing_removes_the_layer(git_repo: Path) -> None:
    layer = layer_of(git_repo)
    run_ok(layer, "echo more >> README.md && rm app.py && mkdir d && echo x > d/x")
    with layer.holding():
        layer.keep_only([])
        assert not layer.place.exists() and not layer.place.record_path.exists()
    assert change_of(layer).empty
    assert files_of(layer_view(layer)) == files_of(tree_of(git_repo, ".git", ".agent"))


def test_a_failed_rebuild_leaves_the_layer_as_it_was(git_repo: Path) -> None:
    layer = layer_of(git_repo)
    run_ok(layer, "echo more >> README.md && rm app.py")
    change = change_of(layer)
    ghost = LayerEntry("ghost.txt", CREATE, Side(), Side(b"not in the layer\n"))
    with layer.holding():
        with pytest.raises(OSError, match="the layer could not be rebuilt: "):
            layer.keep_only([*change.entries, ghost])
        assert layer.change().entries == change.entries
    assert not (layer.place.folder / OLD_UPPER).exists()
    run_ok(layer, "true")  # the restored layer still mounts


@pytest.mark.parametrize("cut", ["while replaying", "after replaying"])
def test_an_interrupted_rebuild_is_undone_by_the_next_holding(git_repo: Path, cut: str) -> None:
    layer = layer_of(git_repo)
    run_ok(layer, "echo more >> README.md && rm app.py && mkdir d && echo x > d/x")
    change, view = change_of(layer), layer_view(layer)
    place = layer.place
    if cut == "while replaying":  # keep_only set the old upper folder aside and started a fresh one
        os.replace(place.upper, place.folder / OLD_UPPER)
        place.ensure()
        (place.upper / "README.md").write_text("half of a rebuild\n")
    else:  # the rebuild is done; the old upper folder was being removed
        gone = place.folder / GONE_UPPER
        (gone / "locked").mkdir(parents=True)
        (gone / "locked" / "f").write_text("x")
        os.chmod(gone / "locked", 0)
    with layer.holding():
        assert not (place.folder / OLD_UPPER).exists() and not (place.folder / GONE_UPPER).exists()
        assert layer.change().entries == change.entries
    assert layer_view(layer) == view
