"""``apply_patch`` in a layered session: run by the layer's tool host, its files land in the upper folder (all of them
or none), the tree stays as it is, and the model is told what the tool in ljtui's process tells it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from ljtui.core.clock import FixedClock
from ljtui.core.edits import errors as E
from ljtui.core.edits.transaction import TransactionOutcome
from ljtui.core.layer.host_patch import run_patch
from ljtui.core.layer.host_writes import LayerWriter
from ljtui.core.layer.tools import LayerPrepared, LayerTools
from tests.core.agent.test_apply_patch_tool import GREETED, GREETING, TWICE, patch
from tests.core.agent.test_edit_tools import ORIGINAL
from tests.core.layer.host_helpers import Session, run_ok, running_tools, tree_of

LANDED = "the user reviews this turn's change before it reaches their files"
SEVERAL = patch(GREETING, "*** Add File: notes/new.txt\n+one\n+two\n", "*** Delete File: README.md\n")


@pytest.fixture
def host(git_repo: Path, tmp_path: Path) -> Iterator[LayerTools]:
    yield from running_tools(git_repo, tmp_path)


async def test_a_patch_lands_in_the_layer_whole_and_the_tree_stays_byte_identical(git_repo: Path,
                                                                                   host: LayerTools) -> None:
    before = tree_of(git_repo)
    session = Session(git_repo, host)
    result = await session.call("apply_patch", patch=SEVERAL)
    assert result.ok and result.content == ("wrote app.py (+1 -1), notes/new.txt (new, +2), README.md (deleted, -1) "
                                            f"in the layer; {LANDED}")
    assert result.summary == "wrote 3 files in the layer"
    assert session.approver.asked == []  # the review replaces the dialog
    assert tree_of(git_repo) == before
    seen = run_ok(host.layer, "cat app.py notes/new.txt; test -e README.md || echo no README")
    assert seen == GREETED + "one\ntwo\nno README\n"
    assert (host.layer.place.upper / "app.py").read_text() == GREETED


async def test_a_move_in_the_layer_renames_the_file(git_repo: Path, host: LayerTools) -> None:
    moved = GREETING.replace("@@", "*** Move to: lib/greet.py\n@@", 1)
    result = host.write_tool("apply_patch", {"patch": patch(moved)})
    assert result.ok and result.content == f"wrote lib/greet.py (moved from app.py, +1 -1) in the layer; {LANDED}"
    assert run_ok(host.layer, "cat lib/greet.py; test -e app.py || echo gone") == GREETED + "gone\n"
    assert (git_repo / "app.py").read_text() == ORIGINAL


@pytest.mark.parametrize("text", [
    patch("*** Update File: app.py\n@@\n-    return 'hello' + name\n+    return name\n"),
    patch("*** Update File: twice.py\n@@\n-x = 1\n+x = 2\n"),
    patch("*** Add File: app.py\n+x\n"),
    patch("*** Update File: missing.py\n@@\n-a\n+b\n"),
    patch("*** Delete File: missing.py\n"),
    patch("*** Update File: .env\n@@\n-TOKEN=secret\n+TOKEN=x\n"),
    patch("*** Add File: ../outside.txt\n+x\n"),
    patch("*** Add File: .git/x\n+x\n"),
    patch("*** Add File: new.txt\n+x\n", "*** Update File: README.md\n@@\n-# nope\n+x\n"),
    patch("*** Update File: app.py\n@@\n def greet(name):\n"),
    "*** Begin Patch\n*** Update File: app.py\n",
    "",
])
async def test_refusals_say_what_the_tool_in_ljtui_s_process_says(git_repo: Path, host: LayerTools,
                                                                  text: str) -> None:
    (git_repo / "twice.py").write_text(TWICE)
    (git_repo / ".env").write_text("TOKEN=secret\n")
    before = tree_of(git_repo)
    direct = await Session(git_repo).call("apply_patch", patch=text)
    in_layer = await Session(git_repo, host).call("apply_patch", patch=text)
    assert not direct.ok or direct.summary == "patch: no change"
    assert in_layer == direct
    assert "TOKEN=secret" not in in_layer.content
    assert tree_of(git_repo) == before and not os.listdir(host.layer.place.upper)


async def test_asking_before_each_write_shows_every_diff_then_writes(git_repo: Path, host: LayerTools) -> None:
    session = Session(git_repo, host, answers=["deny", "once"], ask_writes=True)
    denied = await session.call("apply_patch", patch=SEVERAL)
    assert not denied.ok and "denied" in denied.content and not os.listdir(host.layer.place.upper)
    assert (await session.call("apply_patch", patch=SEVERAL)).ok
    first, second = session.approver.asked
    assert first.title == second.title == "Apply the patch to 3 files (app.py, notes/new.txt, README.md)?"
    assert "+    return f'hello {name}!'" in first.lines and "+++ b/notes/new.txt" in first.lines
    assert "--- a/README.md" in first.lines and first.diff_path is None
    assert run_ok(host.layer, "cat app.py notes/new.txt") == GREETED + "one\ntwo\n"
    assert (git_repo / "app.py").read_text() == ORIGINAL and (git_repo / "README.md").exists()


async def test_a_prepared_patch_is_refused_when_a_file_changed_before_its_commit(git_repo: Path,
                                                                                host: LayerTools) -> None:
    prepared = host.prepare_write("apply_patch", {"patch": patch(GREETING)})
    assert isinstance(prepared, LayerPrepared) and prepared.path == "app.py" and prepared.diff_path == "app.py"
    assert "+    return f'hello {name}!'" in prepared.lines and len(prepared.before_hash) == 64
    run_ok(host.layer, "printf '# changed\\n' >> app.py")  # a command changes it while the dialog is open
    stale = host.commit_write(prepared)
    assert not stale.ok and stale.content.startswith("error: StalePlan: app.py changed on disk")
    fresh = host.prepare_write("apply_patch", {"patch": patch(GREETING)})
    assert isinstance(fresh, LayerPrepared) and host.commit_write(fresh).ok
    assert run_ok(host.layer, "cat app.py") == GREETED + "# changed\n"
    assert (git_repo / "app.py").read_text() == ORIGINAL


def test_a_file_that_cannot_be_written_gives_the_files_written_before_it_their_bytes_back(
        git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = LayerWriter(git_repo, FixedClock())
    write = LayerWriter.write

    def failing_on_new(self: LayerWriter, planned, *, entry: str, turn_held: bool = False) -> TransactionOutcome:
        if planned.target.key == "notes/new.txt" and planned.after is not None:
            return TransactionOutcome("x", error=E.WriteFailed(None, "notes/new.txt: No space left on device"))
        return write(self, planned, entry=entry, turn_held=turn_held)

    monkeypatch.setattr(LayerWriter, "write", failing_on_new)
    before = tree_of(git_repo)
    result = run_patch(writer, {"patch": SEVERAL})
    assert not result.ok and result.content == "error: WriteFailed: notes/new.txt: No space left on device"
    assert tree_of(git_repo) == before  # app.py, written first, holds its bytes again
