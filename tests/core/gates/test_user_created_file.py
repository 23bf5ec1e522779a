"""A file the user creates in their own tree while a gated run stages the same path is never overwritten.

The staging copy records what it copied; a path it did not hold (the run
created it) but the user's tree holds at delivery is left out of the
delivery and said so, exactly like a file changed on both sides.
"""

from __future__ import annotations

import os
from pathlib import Path

from ljtui.core.events import Notice
from ljtui.core.gates import events as G
from ljtui.core.gates.delivery import delivery_plan
from ljtui.core.gates.workspace import Workspace
from tests.conftest import git
from tests.core.gates.scripted import FRIENDLY, GATE, call, gate_events, make_engine, propose, tool_results, with_tests

EDIT = call("edit_file", path="app.py", old="    return 'hello ' + name\n", new="    return f'hello, {name}!'\n")
START = [propose(), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE)]
USER_SAYS_YES = {"gate_confirm": ["yes"], "gate_start": ["yes"], "apply": ["yes"]}
USERS_OWN = "the user's own notes\n"


async def test_delivery_leaves_a_file_the_user_created_meanwhile_and_says_so(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, [
        *START,
        EDIT,
        call("write_file", path="new.txt", content="written by the agent in staging\n"),
        call("gate_check", item="tests"),
        {"text": "Checked; delivering next."},
        call("gate_finish", outcome="pass"),
        {"text": "Delivered."},
    ], USER_SAYS_YES)
    await engine.run_turn("make greet friendlier and leave a note")
    staged = engine.gates.staging_root()
    assert staged is not None and (staged / "new.txt").exists() and not (repo / "new.txt").exists()
    (repo / "new.txt").write_text(USERS_OWN, encoding="utf-8")  # the user, in their own tree, before delivery
    await engine.run_turn("deliver it")
    assert (repo / "new.txt").read_text(encoding="utf-8") == USERS_OWN
    assert (repo / "app.py").read_text(encoding="utf-8") == FRIENDLY
    [delivered] = [e for e in gate_events(sink) if isinstance(e, G.GateDelivered)]
    assert delivered.applied and delivered.files == ("app.py",)
    [said] = [e.message for e in sink.events if isinstance(e, Notice) and "Not delivered" in e.message]
    assert "new.txt" in said and "did not exist when the staging copy was made" in said
    assert "never overwritten" in said
    [finish] = tool_results(sink, "gate_finish")
    assert finish.ok
    assert (staged / "new.txt").read_text(encoding="utf-8") == "written by the agent in staging\n"  # kept to merge


def test_a_path_staging_created_is_held_back_when_the_user_has_it_now(git_repo: Path) -> None:
    space = Workspace.create(git_repo, "run-1")
    (space.tree / "new.txt").write_text("staged\n", encoding="utf-8")
    (git_repo / "new.txt").write_text("user\n", encoding="utf-8")
    [change] = space.changes()
    assert (change.path, change.before, change.after) == ("new.txt", b"user\n", b"staged\n")
    assert "did not exist when the staging copy was made" in change.reason
    assert delivery_plan([change]).files == ()


def test_a_file_ignored_in_the_users_tree_is_held_back_too(git_repo: Path) -> None:
    (git_repo / ".gitignore").write_text("*.log\n", encoding="utf-8")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-q", "-m", "ignore logs")
    space = Workspace.create(git_repo, "run-1")
    (space.tree / ".gitignore").write_text("", encoding="utf-8")  # staging stops ignoring logs, then makes one
    (space.tree / "keep.log").write_text("staged\n", encoding="utf-8")
    (git_repo / "keep.log").write_text("user's log\n", encoding="utf-8")  # ignored in the user's tree
    changes = {c.path: c for c in space.changes()}
    assert set(changes) == {".gitignore", "keep.log"}
    assert "did not exist when the staging copy was made" in changes["keep.log"].reason
    assert delivery_plan(changes.values()).files == (".gitignore",)


def test_a_file_made_where_the_copy_left_the_users_entry_out_is_held_back(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n", encoding="utf-8")
    os.symlink(str(outside), git_repo / "config.txt")  # a link out of the tree is never copied
    space = Workspace.create(git_repo, "run-3")
    assert not os.path.lexists(space.tree / "config.txt")
    (space.tree / "config.txt").write_text("staged\n", encoding="utf-8")
    [change] = space.changes()
    assert change.path == "config.txt" and "the staging copy left it out (its symbolic link" in change.reason
    assert "never overwritten" in change.reason and delivery_plan([change]).files == ()
    assert outside.read_text(encoding="utf-8") == "private\n"


def test_the_same_file_made_on_both_sides_is_nothing_to_deliver(git_repo: Path) -> None:
    space = Workspace.create(git_repo, "run-2")
    (space.tree / "same.txt").write_text("same\n", encoding="utf-8")
    (git_repo / "same.txt").write_text("same\n", encoding="utf-8")
    assert space.changes() == []
