"""The layer's binary files reach the tree whole, once the user says yes to the list; links and stale files stay,
each said with why; the write is one transaction that ``undo`` reverts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.events import Notice
from ljtui.core.layer.session import SessionLayer
from ljtui.core.layer.whole import KIND
from ljtui.core.ports import FixedClock, ListSink
from ljtui.core.review.session import undo
from tests.core.layer.helpers import add_files, change_of, layer_of, run_ok

OLD_IMAGE = b"\x89PNG\r\n\x1a\n\x00\x00old"
NEW_IMAGE = b"\x89PNG\r\n\x1a\n\x00\x00new image"
TOOL = b"\x7fELF\x00\x01tool"
COMMANDS = ("printf '\\211PNG\\r\\n\\032\\n\\000\\000new image' > logo.png && "
            "printf '\\177ELF\\000\\001tool' > bin/tool && chmod +x bin/tool && "
            "rm data.bin && ln -s logo.png link.png && echo text >> notes.txt")


def repo_with_binaries(git_repo: Path) -> Path:
    return add_files(git_repo, {"logo.png": OLD_IMAGE, "data.bin": b"\x00\x01\x02", "notes.txt": "notes\n",
                                "bin/.keep": ""})


def session(layer) -> tuple[SessionLayer, ListSink]:  # type: ignore[no-untyped-def]
    sink = ListSink()
    return SessionLayer(layer, lambda: None, sink), sink  # type: ignore[arg-type, return-value]


def said(sink: ListSink) -> list[str]:
    return [e.message for e in sink.events if isinstance(e, Notice)]


async def test_binary_files_are_written_whole_after_one_yes_and_undo_reverts_them(git_repo: Path) -> None:
    repo = repo_with_binaries(git_repo)
    layer = layer_of(repo)
    run_ok(layer, COMMANDS)
    approver = ScriptedApprover({KIND: ["yes"]})
    layered, sink = session(layer)
    assert await layered.take_binary(approver.decide)
    [asked] = approver.asked
    assert asked.title == "Write 3 binary file(s)?"
    shown = "\n".join(asked.lines)
    assert "modify logo.png (binary file, 19 bytes, sha256 " in shown
    assert "delete data.bin (binary file, 3 bytes" in shown
    assert "create bin/tool (binary file, 10 bytes" in shown
    assert "create link.png (symbolic link" in shown and "ln -s logo.png link.png" in shown  # said, left
    assert (repo / "logo.png").read_bytes() == NEW_IMAGE and not (repo / "data.bin").exists()
    assert (repo / "bin" / "tool").read_bytes() == TOOL and os.access(repo / "bin" / "tool", os.X_OK)
    assert not (repo / "link.png").exists() and (repo / "notes.txt").read_text(encoding="utf-8") == "notes\n"
    assert any("Wrote 3 binary file(s) into your files: bin/tool, data.bin, logo.png" in n for n in said(sink))
    assert sorted(e.path for e in change_of(layer).entries) == ["link.png", "notes.txt"]  # the rest stays
    told = layered.told("next")
    assert "applied to the user's files: bin/tool, data.bin, logo.png" in told
    undone = undo(repo, clock=FixedClock())
    assert undone.error is None, undone.error
    assert (repo / "logo.png").read_bytes() == OLD_IMAGE and (repo / "data.bin").read_bytes() == b"\x00\x01\x02"
    assert not (repo / "bin" / "tool").exists()


async def test_a_no_writes_nothing_and_a_file_changed_in_the_tree_is_never_overwritten(git_repo: Path) -> None:
    repo = repo_with_binaries(git_repo)
    layer = layer_of(repo)
    run_ok(layer, COMMANDS)
    layered, sink = session(layer)
    approver = ScriptedApprover({KIND: ["no"]})
    assert not await layered.take_binary(approver.decide)
    assert (repo / "logo.png").read_bytes() == OLD_IMAGE and (repo / "data.bin").exists()
    assert "Not written: the binary files stay in the layer." in said(sink)
    (repo / "logo.png").write_bytes(b"\x00the user's own image")  # the user changes it meanwhile
    approver = ScriptedApprover({KIND: ["yes"]})
    assert await layered.take_binary(approver.decide)
    assert (repo / "logo.png").read_bytes() == b"\x00the user's own image"
    assert any(n.startswith("Left in the layer: modify logo.png") for n in said(sink)), said(sink)
    assert "logo.png" in {e.path for e in change_of(layer).entries}


async def test_a_layer_without_binary_files_says_so(git_repo: Path) -> None:
    layer = layer_of(add_files(git_repo, {"a.txt": "a\n"}))
    run_ok(layer, "echo b >> a.txt")
    layered, sink = session(layer)
    approver = ScriptedApprover({})
    assert not await layered.take_binary(approver.decide)
    assert approver.asked == [] and "The layer holds no binary file." in said(sink)


def test_ljtui_layer_apply_writes_the_text_then_the_binary_files(git_repo: Path) -> None:
    repo = repo_with_binaries(git_repo)
    layer = layer_of(repo)
    run_ok(layer, COMMANDS)
    done = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "layer", "apply", "--yes", "--repo", str(repo)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # partial: the link stays in the layer
    assert "wrote notes.txt" in done.stdout and "wrote logo.png" in done.stdout
    assert "left in the layer: create link.png (symbolic link" in done.stderr
    assert (repo / "logo.png").read_bytes() == NEW_IMAGE and (repo / "notes.txt").read_text() == "notes\ntext\n"


def test_an_apply_where_the_layer_cannot_be_mounted_any_more_says_so_and_stands(git_repo: Path,
                                                                                tmp_path: Path) -> None:
    repo = repo_with_binaries(git_repo)
    run_ok(layer_of(repo), "echo text >> notes.txt && printf '\\000x' > new.bin")  # new.bin waits: a rebuild
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
                                encoding="utf-8")
    (fake / "bwrap").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "layer", "apply", "--yes", "--repo", str(repo)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert "wrote notes.txt" in done.stdout, done.stderr
    assert "the change is in your files, but the layer could not let go of it" in done.stderr
    assert "Traceback" not in done.stderr and (repo / "notes.txt").read_text() == "notes\ntext\n"
    assert (repo / "new.bin").read_bytes() == b"\x00x"


async def test_a_read_only_file_is_left_in_the_layer_and_says_why(git_repo: Path) -> None:
    repo = add_files(git_repo, {"locked.bin": b"\x00old"})
    layer = layer_of(repo)
    os.chmod(repo / "locked.bin", 0o444)  # nobody may write it in the tree
    run_ok(layer, "chmod u+w locked.bin && printf '\\000new' > locked.bin")
    layered, sink = session(layer)
    approver = ScriptedApprover({KIND: ["yes"]})
    assert not await layered.take_binary(approver.decide)
    assert approver.asked == [] and (repo / "locked.bin").read_bytes() == b"\x00old"
    assert any(n.startswith("Left in the layer: modify locked.bin") and "read-only" in n for n in said(sink)), \
        said(sink)
