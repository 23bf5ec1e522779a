"""``apply_patch`` on a real git repository: a Codex patch asked about once with every file's diff, written in one
transaction (all its files or none), undone by ``/undo``, and every patch that does not apply answered by name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.agent.permissions import PermissionPolicy
from ljtui.core.approval import ScriptedApprover
from ljtui.core.edits.recovery import undo_last
from ljtui.core.events import PermissionDecided
from tests.core.agent.test_edit_tools import ORIGINAL, call, make_engine
from tests.core.agent.test_write_turns import changing_to
from tests.core.layer.host_helpers import tree_of

UNDO = "/undo reverts this message's writes"
GREETING = "*** Update File: app.py\n@@ def greet(name):\n-    return 'hello ' + name\n+    return f'hello {name}!'\n"
GREETED = "def greet(name):\n    return f'hello {name}!'\n"


def patch(*sections: str) -> str:
    """The sections in a Codex envelope."""
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


async def test_a_one_file_patch_asks_with_its_diff_and_writes_through_the_transaction(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, sink = make_engine(git_repo, approver)
    result = await call(engine, "apply_patch", patch=patch(GREETING))
    assert result.ok and result.content == f"wrote app.py (+1 -1); {UNDO}" and result.summary == "wrote app.py"
    [asked] = approver.asked
    assert asked.title == "Apply the patch to app.py?" and asked.diff_path == "app.py"
    assert list(asked.lines) == ["--- a/app.py", "+++ b/app.py", "@@ -1,2 +1,2 @@", " def greet(name):",
                                 "-    return 'hello ' + name", "+    return f'hello {name}!'"]
    assert [c.id for c in asked.choices] == ["once", "session", "deny"]
    decided = [(d.tool, d.decision, d.scope) for d in sink.events if isinstance(d, PermissionDecided)]
    assert decided == [("apply_patch", "allow", "once")]
    assert (git_repo / "app.py").read_text() == GREETED
    undone = undo_last(git_repo)
    assert undone.ok and undone.files == ["app.py"] and (git_repo / "app.py").read_text() == ORIGINAL


async def test_a_patch_of_several_files_is_asked_about_once_and_undone_whole(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    assert engine.services.writer is not None
    engine.services.writer.new_message()
    result = await call(engine, "apply_patch", patch=patch(
        GREETING, "*** Add File: notes/new.txt\n+one\n+two\n", "*** Delete File: README.md\n"))
    assert result.ok, result.content
    assert result.content == f"wrote app.py (+1 -1), notes/new.txt (new, +2), README.md (deleted, -1); {UNDO}"
    assert result.summary == "wrote 3 files"
    [asked] = approver.asked
    assert asked.title == "Apply the patch to 3 files (app.py, notes/new.txt, README.md)?"
    assert asked.diff_path is None  # several files: every diff with its own header
    for line in ("+++ b/app.py", "+    return f'hello {name}!'", "--- /dev/null", "+++ b/notes/new.txt", "+two",
                 "--- a/README.md", "+++ /dev/null", "-# sample"):
        assert line in asked.lines
    assert (git_repo / "app.py").read_text() == GREETED
    assert (git_repo / "notes" / "new.txt").read_text() == "one\ntwo\n" and not (git_repo / "README.md").exists()
    undone = undo_last(git_repo)
    assert undone.ok and sorted(undone.files) == ["README.md", "app.py", "notes/new.txt"]
    assert undone.entries == ["apply_patch app.py", "apply_patch notes/new.txt", "apply_patch README.md"]
    assert (git_repo / "app.py").read_text() == ORIGINAL and (git_repo / "README.md").read_text() == "# sample\n"
    assert not (git_repo / "notes").exists()


async def test_a_denied_patch_writes_nothing(git_repo: Path) -> None:
    approver = ScriptedApprover()
    engine, _ = make_engine(git_repo, approver)
    before = tree_of(git_repo)
    result = await call(engine, "apply_patch", patch=patch(GREETING, "*** Add File: new.txt\n+x\n"))
    assert not result.ok and "the user denied this apply_patch call" in result.content
    assert len(approver.asked) == 1 and tree_of(git_repo) == before


async def test_a_moved_file_is_renamed_with_its_hunks_and_keeps_its_mode(git_repo: Path) -> None:
    os.chmod(git_repo / "app.py", 0o755)
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    moved = GREETING.replace("@@", "*** Move to: lib/greet.py\n@@", 1)
    result = await call(engine, "apply_patch", patch=patch(moved))
    assert result.ok and result.content == f"wrote lib/greet.py (moved from app.py, +1 -1); {UNDO}"
    [asked] = approver.asked
    assert asked.title == "Apply the patch to app.py → lib/greet.py?"
    assert asked.lines[0] == "rename app.py → lib/greet.py"
    assert "-    return 'hello ' + name" in asked.lines and asked.diff_path is None
    assert not (git_repo / "app.py").exists() and (git_repo / "lib" / "greet.py").read_text() == GREETED
    assert os.stat(git_repo / "lib" / "greet.py").st_mode & 0o111
    assert undo_last(git_repo).ok and (git_repo / "app.py").read_text() == ORIGINAL
    assert not (git_repo / "lib").exists()


async def test_hunks_apply_in_order_and_an_add_then_update_of_one_file_chains(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    result = await call(engine, "apply_patch", patch=patch(
        "*** Add File: a.txt\n+one\n+two\n+three\n",
        "*** Update File: a.txt\n@@\n one\n-two\n+2\n three\n",
        "*** Update File: app.py\n@@\n-def greet(name):\n+def greet(name: str) -> str:\n"
        "@@\n-    return 'hello ' + name\n+    return 'hi ' + name\n"))
    assert result.ok, result.content
    assert (git_repo / "a.txt").read_text() == "one\n2\nthree\n"
    assert (git_repo / "app.py").read_text() == "def greet(name: str) -> str:\n    return 'hi ' + name\n"


async def test_a_session_grant_and_the_write_policy_cover_apply_patch(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["session"]})
    engine, sink = make_engine(git_repo, approver)
    assert (await call(engine, "apply_patch", patch=patch(GREETING))).ok
    assert (await call(engine, "apply_patch", patch=patch("*** Add File: b.txt\n+b\n"))).ok
    assert len(approver.asked) == 1
    assert [d.scope for d in sink.events if isinstance(d, PermissionDecided)] == ["session", "session"]
    assert "apply_patch" in PermissionPolicy.from_names(["write"])  # `ljtui run --allow write`
    listed = ScriptedApprover()
    engine, _ = make_engine(git_repo, listed, allow_tools=["apply_patch"])
    assert (await call(engine, "apply_patch", patch=patch("*** Add File: c.txt\n+c\n"))).ok
    assert listed.asked == [] and (git_repo / "c.txt").read_text() == "c\n"


TWICE = "x = 1\ny = 0\nx = 1\n"


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("*** Update File: app.py\n@@\n-    return 'hello' + name\n+    return name\n",
                 ["AnchorNotFound: hunk 1/1 of app.py (line 3 of the patch): `old` does not occur in app.py",
                  "nearest: app.py:2", "Context and '-' lines must match app.py exactly"], id="context-not-found"),
    pytest.param("*** Update File: twice.py\n@@\n-x = 1\n+x = 2\n",
                 ["AnchorAmbiguous: hunk 1/1 of twice.py (line 3 of the patch): `old` occurs 2 times in twice.py, "
                  "at lines 1, 3", "Each hunk must apply at exactly one place"], id="context-found-twice"),
    pytest.param("*** Update File: twice.py\n@@ y = 0\n-x = 9\n+x = 2\n",
                 ["AnchorNotFound: hunk 1/1 of twice.py (line 3 of the patch, under '@@ y = 0')"],
                 id="context-not-found-after-the-header"),
    pytest.param("*** Add File: app.py\n+x\n",
                 ["FileExists: '*** Add File: app.py' (line 2 of the patch): app.py already exists: '*** Add File' "
                  "creates a new file; change this one with '*** Update File'"], id="add-an-existing-file"),
    pytest.param("*** Update File: missing.py\n@@\n-a\n+b\n",
                 ["FileMissing: hunk 1/1 of missing.py (line 3 of the patch): missing.py does not exist: '*** Update "
                  "File' changes an existing file; create it with '*** Add File'"], id="update-a-missing-file"),
    pytest.param("*** Delete File: missing.py\n",
                 ["FileMissing: '*** Delete File: missing.py' (line 2 of the patch): missing.py does not exist, so it "
                  "cannot be deleted"], id="delete-a-missing-file"),
    pytest.param("*** Update File: app.py\n*** Move to: README.md\n@@\n-def greet(name):\n+def hello(name):\n",
                 ["FileExists: '*** Move to: README.md' (line 3 of the patch): cannot rename app.py to README.md: "
                  "README.md already exists"], id="move-onto-an-existing-file"),
])
async def test_a_patch_that_does_not_apply_names_the_file_and_the_hunk_and_writes_nothing(
        git_repo: Path, text: str, expected: list[str]) -> None:
    (git_repo / "twice.py").write_text(TWICE)
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    before = tree_of(git_repo)
    result = await call(engine, "apply_patch", patch=patch(text))
    assert not result.ok and result.content.startswith("error: ")
    for part in expected:
        assert part in result.content
    assert result.content.endswith("The patch applies to all its files or none, so nothing was written.")
    assert result.summary == result.content.removeprefix("error: ").splitlines()[0][:160]
    assert approver.asked == [] and tree_of(git_repo) == before


async def test_one_hunk_that_does_not_apply_keeps_every_other_file_as_it_is(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    before = tree_of(git_repo)
    result = await call(engine, "apply_patch", patch=patch(
        "*** Add File: new.txt\n+x\n", GREETING,
        "*** Update File: README.md\n@@\n-# sample\n+# renamed\n@@\n-# nowhere\n+# x\n"))
    assert not result.ok
    assert result.content.startswith("error: AnchorNotFound: hunk 2/2 of README.md (line 12 of the patch): ")
    assert approver.asked == [] and tree_of(git_repo) == before


async def test_every_problem_is_told_at_once(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    result = await call(engine, "apply_patch", patch=patch(
        "*** Add File: app.py\n+x\n", "*** Delete File: gone.txt\n", "*** Update File: README.md\n@@\n-# nope\n+x\n"))
    problems = result.content.removeprefix("error: ").splitlines()
    assert [p.split(":")[0] for p in problems if not p.startswith(" ")] == [
        "FileExists", "FileMissing", "AnchorNotFound", "The patch applies to all its files or none, so nothing was "
        "written."]


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("*** Update File: app.py\n@@\n-a\n+b\n", "MalformedPatch: line 1: a Codex patch starts with "
                 "'*** Begin Patch', not '*** Update File: app.py'", id="no-envelope"),
    pytest.param("*** Begin Patch\n*** Update File: app.py\n@@\n-a\n+b\n", "MalformedPatch: line 5: a Codex patch "
                 "ends with '*** End Patch'", id="no-end"),
    pytest.param(patch("*** Frobnicate File: app.py\n"), "MalformedPatch: line 2: unknown marker "
                 "'*** Frobnicate File: app.py'", id="unknown-marker"),
    pytest.param(patch("*** Update File: app.py\n@@\n+only added\n"), "UnanchoredHunk: line 3: hunk 1 of app.py "
                 "only adds lines", id="nothing-to-place-the-hunk-by"),
    pytest.param(patch("*** Add File: /etc/passwd\n+x\n"), "'/etc/passwd' is an absolute path", id="absolute"),
    pytest.param(patch("*** Begin Patch\n"), "a second '*** Begin Patch' inside the patch", id="nested"),
])
async def test_a_patch_that_cannot_be_read_is_an_error_naming_its_line(git_repo: Path, text: str,
                                                                       expected: str) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    before = tree_of(git_repo)
    result = await call(engine, "apply_patch", patch=text)
    assert not result.ok and result.content.startswith("error: ") and expected in result.content
    assert result.content.endswith("The patch cannot be read, so nothing was written: send it again whole, corrected.")
    assert approver.asked == [] and tree_of(git_repo) == before


@pytest.mark.parametrize(("section", "expected"), [
    ("*** Update File: .env\n@@\n-TOKEN=abc\n+TOKEN=new\n", "SecretTarget: hunk 1/1 of .env (line 3 of the patch): "
                                                          "'.env' looks like a secret file"),
    ("*** Add File: .env.local\n+TOKEN=new\n", "SecretTarget: '*** Add File: .env.local'"),
    ("*** Delete File: .env\n", "SecretTarget: '*** Delete File: .env'"),
    ("*** Update File: app.py\n*** Move to: .env.app\n@@\n-def greet(name):\n+def hello(name):\n",
     "SecretTarget: '*** Move to: .env.app'"),
    ("*** Add File: ../outside.txt\n+x\n", "PathEscape: '*** Add File: ../outside.txt' (line 2 of the patch): "
                                            "../outside.txt uses `..`"),
    ("*** Add File: .git/hooks/pre-commit\n+x\n", "is inside a .git folder"),
    ("*** Add File: .agent/memory.md\n+x\n", ".agent/"),
    ("*** Add File: link/x.txt\n+x\n", "outside the repo root"),
])
async def test_secret_outside_and_protected_paths_are_refused_before_asking(
        git_repo: Path, tmp_path: Path, section: str, expected: str) -> None:
    (git_repo / ".env").write_text("TOKEN=abc\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, git_repo / "link")
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    before = tree_of(git_repo)
    result = await call(engine, "apply_patch", patch=patch(section))
    assert not result.ok and expected in result.content, result.content
    assert "TOKEN=abc" not in result.content and "nearest" not in result.content
    assert approver.asked == [] and tree_of(git_repo) == before and list(outside.iterdir()) == []


async def test_a_patch_that_changes_nothing_is_answered_without_asking(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    same = await call(engine, "apply_patch", patch=patch("*** Update File: app.py\n@@\n def greet(name):\n"))
    assert same.ok and same.content.startswith("the patch changes nothing") and approver.asked == []
    assert not (git_repo / ".agent" / "journal").exists()


async def test_hostile_arguments_are_tool_errors(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    for args in ({}, {"patch": 3}, {"patch": ""}, {"patch": "*** Begin Patch\n\x00"}, {"patch": "\ud800"},
                 {"path": "app.py", "old": "'hello '", "new": "'hi '"}):
        result = await engine.tools.call("apply_patch", args, engine.tool_context(1, "c"))
        assert not result.ok and result.content.startswith("error: "), args
    assert (git_repo / "app.py").read_text() == ORIGINAL


async def test_a_patch_whose_file_changed_meanwhile_is_applied_to_the_current_bytes(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, changing_to(git_repo, "# added meanwhile\n" + ORIGINAL))
    result = await call(engine, "apply_patch", patch=patch(GREETING, "*** Add File: new.txt\n+x\n"))
    assert result.ok, result.content
    assert "note: app.py, new.txt changed on disk after this patch was worked out" in result.content
    assert (git_repo / "app.py").read_text() == "# added meanwhile\n" + GREETED
    assert (git_repo / "new.txt").read_text() == "x\n"


async def test_a_patch_that_no_longer_applies_after_a_change_writes_nothing(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, changing_to(git_repo, "def greet(name):\n    return 'hey ' + name\n"))
    result = await call(engine, "apply_patch", patch=patch(GREETING, "*** Add File: new.txt\n+x\n"))
    assert not result.ok
    assert result.content.startswith("error: StalePlan: app.py, new.txt changed on disk after this patch was worked "
                                     "out, and the patch no longer applies (AnchorNotFound: hunk 1/1 of app.py")
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hey ' + name\n"
    assert not (git_repo / "new.txt").exists()
