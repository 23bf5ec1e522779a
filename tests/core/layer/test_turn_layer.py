"""A turn in the layer, end to end: a destructive command changes nothing of the tree, its effects are reviewed as
blocks when the turn ends, exactly the accepted ones are applied, undo restores them, and the layer lets go."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import PermissionDecided, SandboxChecked
from ljtui.core.layer.service import Layer
from ljtui.core.ports import ListSink
from tests.conftest import git

DESTROY = ("rm -rf src && git checkout -- . ; echo x > .git/hooks/pre-commit; printf 'overwritten\\n' > app.py; "
           "echo finished")


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file below ``root`` (``.git`` too, but not ljtui's own ``.agent``): its hash and mode."""
    found = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root and ".agent" in dirs:
            dirs.remove(".agent")
        for name in files:
            path = Path(folder, name)
            if path.is_symlink():
                found[str(path.relative_to(root))] = (os.readlink(path), 0)
            else:
                found[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(),
                                                      path.stat().st_mode)
    return found


def script(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "turn.yaml"
    path.write_text("turns:\n  - text: \"Cleaning up.\"\n    tool_calls:\n      - name: bash\n"
                    f"        input: {{command: {command!r}}}\n  - text: \"Done.\"\n", encoding="utf-8")
    return path


def engine_for(repo: Path, tmp_path: Path, command: str, approver: ScriptedApprover) -> tuple[Engine, ListSink]:
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script(tmp_path, command))
    sink = ListSink()
    return Engine(config, sink, repo_root=repo, approver=approver), sink


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "src").mkdir()
    (git_repo / "src" / "a.py").write_text("A = 1\n", encoding="utf-8")
    (git_repo / "src" / "b.py").write_text("B = 2\n", encoding="utf-8")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-q", "-m", "src")
    (git_repo / "app.py").write_text("uncommitted work\n", encoding="utf-8")  # what `git checkout -- .` would lose
    if not Layer(git_repo).status.layered:
        pytest.skip(f"no layer on this machine: {Layer(git_repo).status.why}")
    return git_repo


async def test_a_destructive_command_changes_nothing_and_its_deletions_are_reviewed_applied_and_undone(
        repo: Path, tmp_path: Path) -> None:
    before = snapshot(repo)
    approver = ScriptedApprover({"apply": ["yes"], "undo": ["yes"],
                                 "reject_reason": [Decision("yes", "b.py is still imported by the CLI")]})
    engine, sink = engine_for(repo, tmp_path, DESTROY, approver)
    result = await engine.run_turn("clean up")
    assert result is not None
    assert snapshot(repo) == before  # the tree, .git included, is byte for byte as it was
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert _decided_by_layer(sink)
    assert [r.kind for r in approver.asked] == []  # no dialog: the command could change nothing but the layer
    review = engine.review
    assert review.origin == "the layer"
    opened = [e for e in sink.events if e.kind == "plan_opened"][-1]
    shown = sorted((b.file, b.source or "") for b in opened.blocks)
    assert [f for f, _ in shown] == ["app.py", "src/a.py", "src/b.py"], shown
    numbers = {b.file: b.number for b in opened.blocks}
    page = await _to_thread(review.diff, numbers["src/a.py"])
    assert page is not None and "-A = 1" in page.lines and not any(
        line.startswith("+") and not line.startswith("+++") for line in page.lines), page.lines
    await review.reject_with_reason(numbers["src/b.py"])  # keep b.py, saying why
    await _to_thread(review.toggle, numbers["app.py"])  # keep the uncommitted work
    assert [r.kind for r in approver.asked] == ["reject_reason"]
    await review.apply()
    assert not (repo / "src" / "a.py").exists()
    assert (repo / "src" / "b.py").read_text(encoding="utf-8") == "B = 2\n"
    assert (repo / "app.py").read_text(encoding="utf-8") == "uncommitted work\n"
    layer = Layer(repo)
    with layer.holding():
        assert layer.change().entries == ()  # what was decided left the layer, rejected ones too
    told = engine._told("next request")
    assert told.startswith("[ljtui: the user reviewed the layer's change from your last turn.]\n"), told
    assert "applied to the user's files: src/a.py: " in told
    assert "rejected (removed from the layer): src/b.py: " in told
    assert "the user's reason: b.py is still imported by the CLI" in told and told.endswith("\n\nnext request")
    assert engine._told("again") == "again"  # told once
    await review.undo()
    assert (repo / "src" / "a.py").read_text(encoding="utf-8") == "A = 1\n"
    assert {k: v for k, v in snapshot(repo).items() if not k.startswith(".git/")} \
        == {k: v for k, v in before.items() if not k.startswith(".git/")}


def _decided_by_layer(sink: ListSink) -> bool:
    return any(isinstance(e, PermissionDecided) and e.scope == "layer" for e in sink.events)


async def _to_thread(fn, *args):  # type: ignore[no-untyped-def]
    import asyncio

    return await asyncio.to_thread(fn, *args)


async def test_without_overlays_the_session_works_directly_and_says_so(repo: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    bwrap = fake / "bwrap"  # what bwrap says where the kernel refuses unprivileged user namespaces
    bwrap.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n", encoding="utf-8")
    bwrap.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    approver = ScriptedApprover({"permission": ["once"]})
    engine, sink = engine_for(repo, tmp_path, "echo direct > made.txt", approver)
    import asyncio

    await asyncio.to_thread(engine.check_sandbox)
    [checked] = [e for e in sink.events if isinstance(e, SandboxChecked)]
    assert checked.layer == "direct" and "setting up uid map: Permission denied" in checked.layer_why
    await engine.run_turn("make a file")
    [asked] = approver.asked
    assert asked.lines[-1].endswith("changes are written to your files directly"), asked.lines
    assert (repo / "made.txt").read_text(encoding="utf-8") == "direct\n"  # direct: the tree itself
    assert engine.review.origin is None
