"""Every change input goes through one reader and one format detection, in ``ljtui apply``, ``ljtui review`` and
``/open`` alike: a FIFO, a device, a folder or a file past the bound is refused at once by what it is, and a change
behind a byte-order mark is read in every format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.edits.change_source import MAX_CHANGE_BYTES, read_change_file
from ljtui.core.ports import FixedClock, ListSink
from ljtui.core.review import events as R
from ljtui.core.review.service import ReviewService
from tests.cli.terminal import Terminal
from tests.core.edits.helpers import block, plan_text

LJTUI = str(Path(sys.executable).with_name("ljtui"))
REFUSED_IN_S = 20
"""A refusal comes at once; a reader that waits on a FIFO or reads a device without end runs into this."""
GREETING = "def greet(name):\n    return 'hello ' + name\n"
HI = GREETING.replace("'hello '", "'hi '")
BOM = "\ufeff"
CHANGES = {
    "edit": plan_text(block(1, "app.py", "    return 'hello ' + name\n", "    return 'hi ' + name\n")),
    "diff": ("--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    return 'hello ' + name\n"
             "+    return 'hi ' + name\n"),
    "aider": "app.py\n<<<<<<< SEARCH\n    return 'hello ' + name\n=======\n    return 'hi ' + name\n>>>>>>> REPLACE\n",
    "codex": ("*** Begin Patch\n*** Update File: app.py\n@@ def greet(name):\n-    return 'hello ' + name\n"
              "+    return 'hi ' + name\n*** End Patch\n"),
}
"""One change to app.py in each format ljtui reads."""
RACE_S = 0.5
SWAP_FIFO = """
import os, sys
path, text = sys.argv[1], sys.argv[2]
fifo, regular = path + ".fifo", path + ".regular"
while True:
    os.mkfifo(fifo)
    os.replace(fifo, path)
    with open(regular, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(regular, path)
"""
"""Puts a FIFO and a regular file in turn at one path, as fast as it can."""


def ljtui(repo: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([LJTUI, *args], cwd=repo, capture_output=True, input=stdin, timeout=REFUSED_IN_S)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def tree(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def opened(repo: Path, typed: str) -> tuple[list[str], list[str]]:
    """``/open TYPED`` in a review of ``repo``: the files of the blocks it opened, and why it failed."""
    sink = ListSink()
    ReviewService(repo, sink, ScriptedApprover().decide, FixedClock()).open_typed(typed)
    files = [view.file for e in sink.events if isinstance(e, R.PlanOpened) for view in e.blocks]
    return files, [e.message for e in sink.events if isinstance(e, R.PlanOpenFailed)]


# --- a byte-order mark ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", CHANGES)
def test_apply_reads_a_change_file_behind_a_byte_order_mark_in_every_format(git_repo: Path, fmt: str) -> None:
    change = git_repo.parent / f"change.{fmt}"
    change.write_text(BOM + CHANGES[fmt], encoding="utf-8")
    done = ljtui(git_repo, "apply", str(change), "--yes", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files"] == ["app.py"]
    assert (git_repo / "app.py").read_text(encoding="utf-8") == HI


@pytest.mark.parametrize("fmt", CHANGES)
def test_apply_reads_standard_input_behind_a_byte_order_mark_in_every_format(git_repo: Path, fmt: str) -> None:
    done = ljtui(git_repo, "apply", "-", "--yes", stdin=(BOM + CHANGES[fmt]).encode())
    assert done.returncode == 0, done.stderr
    assert (git_repo / "app.py").read_text(encoding="utf-8") == HI


@pytest.mark.parametrize("fmt", CHANGES)
def test_open_reads_a_change_behind_a_byte_order_mark_in_every_format(git_repo: Path, fmt: str) -> None:
    (git_repo / f"change.{fmt}").write_text(BOM + CHANGES[fmt], encoding="utf-8")
    assert opened(git_repo, f"change.{fmt}") == (["app.py"], [])


def test_only_the_leading_byte_order_mark_is_dropped_one_inside_the_change_is_content(git_repo: Path) -> None:
    diff = "--- /dev/null\n+++ b/marked.txt\n@@ -0,0 +1 @@\n+\ufeffhello\n"
    done = ljtui(git_repo, "apply", "-", "--yes", stdin=(BOM + diff).encode())
    assert done.returncode == 0, done.stderr
    assert (git_repo / "marked.txt").read_bytes() == b"\xef\xbb\xbfhello\n"


def test_review_opens_an_edit_plan_behind_a_byte_order_mark(git_repo: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(BOM + CHANGES["edit"], encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / ".state"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    term = Terminal([LJTUI, "review", str(plan)], git_repo, env)
    try:
        term.wait_for(lambda: term.on_screen("return 'hi ' + name"), "the block's new line in the Diff pane")
        assert not term.on_screen("UnknownFormat")
    finally:
        term.press(b"\x11")
        assert term.finish() == 0


# --- what is not a change file ----------------------------------------------------------------------------------

def not_files(repo: Path) -> dict[str, tuple[str, str]]:
    """Inputs no change is read from, each made in ``repo``'s parent: the name typed, and what ljtui says."""
    base = repo.parent
    os.mkfifo(base / "pipe.diff")
    (base / "folder").mkdir()
    with open(base / "big.diff", "wb") as fh:
        fh.truncate(MAX_CHANGE_BYTES + 1)  # sparse: past the bound without the bytes
    return {
        "fifo": (str(base / "pipe.diff"), "it is a FIFO (named pipe), not a regular file"),
        "device": ("/dev/zero", "it is a character device, not a regular file"),
        "folder": (str(base / "folder"), "it is a directory"),
        "big": (str(base / "big.diff"), f"larger than {MAX_CHANGE_BYTES} bytes"),
        "unreadable": ("/proc/self/mem", "Input/output error"),
        "under a file": (str(repo / "app.py" / "x.diff"), "a folder on its path is a file"),
        "long name": (str(base / ("x" * 300)), "File name too long"),
    }


@pytest.mark.parametrize("case", ["fifo", "device", "folder", "big", "unreadable", "under a file", "long name"])
def test_apply_refuses_what_is_not_a_change_file_at_once_and_writes_nothing(git_repo: Path, case: str) -> None:
    typed, reason = not_files(git_repo)[case]
    before = tree(git_repo)
    done = ljtui(git_repo, "apply", typed, "--yes", "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["message"] == f"cannot open {typed}: {reason}"
    assert tree(git_repo) == before


@pytest.mark.parametrize("case", ["fifo", "device", "big"])
def test_review_refuses_what_is_not_a_change_file_before_the_app_starts(git_repo: Path, case: str) -> None:
    typed, reason = not_files(git_repo)[case]
    done = ljtui(git_repo, "review", typed)
    assert done.returncode == 2
    assert done.stderr == f"ljtui review: cannot open {typed}: {reason}\n"


@pytest.mark.parametrize("case", ["fifo", "device", "under a file"])
def test_open_refuses_what_is_not_a_change_file_at_once(git_repo: Path, case: str) -> None:
    typed, reason = not_files(git_repo)[case]
    shown = Path(typed).relative_to(git_repo).as_posix() if Path(typed).is_relative_to(git_repo) else typed
    assert opened(git_repo, typed) == ([], [f"cannot open {shown}: {reason}"])


def test_a_fifo_swapped_in_while_the_change_is_opened_is_never_read(tmp_path: Path) -> None:
    """The kind is checked again on the file opened: a FIFO put in its place between the check and the open is
    refused, never read as an empty change."""
    path = tmp_path / "change.diff"
    text = CHANGES["diff"]
    path.write_text(text, encoding="utf-8")
    swapper = subprocess.Popen([sys.executable, "-c", SWAP_FIFO, str(path), text])
    results = []
    try:
        deadline = time.monotonic() + RACE_S
        while time.monotonic() < deadline:
            results.append(read_change_file(path, "change.diff"))
    finally:
        swapper.kill()
        swapper.wait()
    refused = (None, "cannot open change.diff: it is a FIFO (named pipe), not a regular file")
    seen = {(r.text, r.problem) for r in results}
    assert seen == {(text, None), refused}, seen - {(text, None), refused}
