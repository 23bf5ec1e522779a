"""The model proposes a commit message; once the user applied the layer's change they are asked whether to commit
exactly the files written with it, as text they may edit; no hook of the repository runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice, ToolCallFinished
from ljtui.core.layer.commit import KIND
from ljtui.core.layer.service import Layer
from ljtui.core.ports import ListSink
from tests.conftest import git

MESSAGE = "Greet with a comma\n\nThe old greeting ran the words together."
TURNS = [
    {"tool_calls": [{"name": "edit_file", "input": {"path": "app.py", "old": "'hello ' + name",
                                                     "new": "'hello, ' + name"}}]},
    {"tool_calls": [{"name": "propose_commit", "input": {"message": MESSAGE}}]},
    {"text": "Done."},
]


def engine(repo: Path, answers: dict[str, list[Any]], layer: str = "auto",
           turns: list[dict[str, Any]] = TURNS) -> tuple[Engine, ListSink, ScriptedApprover]:
    script = repo.parent / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    config.agent.layer = layer
    config.agent.allow_tools = ["edit_file"]
    sink = ListSink()
    approver = ScriptedApprover(answers)
    return Engine(config, sink, repo_root=repo, approver=approver), sink, approver


def result(sink: ListSink, name: str) -> ToolCallFinished:
    return next(e for e in sink.events if isinstance(e, ToolCallFinished) and e.name == name)


@pytest.fixture
def repo(git_repo: Path, layered: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("AUTHOR", "COMMITTER"):  # who commits, whatever the machine's own git config says
        monkeypatch.setenv(f"GIT_{name}_NAME", "t")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "t@example.invalid")
    hooks = git_repo.parent / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text(f"#!/bin/sh\necho ran > {git_repo.parent / 'hook-ran'}\n", encoding="utf-8")
    (hooks / "pre-commit").chmod(0o755)
    git(git_repo, "config", "core.hooksPath", str(hooks))
    (git_repo / "staged.txt").write_text("mine\n", encoding="utf-8")
    git(git_repo, "add", "staged.txt")
    status = Layer(git_repo).status
    if not status.layered:
        pytest.skip(f"no layer on this machine: {status.why}")
    return git_repo


async def test_the_applied_files_are_committed_with_the_message_as_the_user_edited_it(repo: Path) -> None:
    edited = "Greet with a comma\n\nEdited by me."
    eng, sink, approver = engine(repo, {"apply": ["yes"], KIND: [Decision("yes", edited)]})
    await eng.run_turn("put a comma in the greeting")
    assert result(sink, "propose_commit").ok
    assert git(repo, "log", "--format=%s").splitlines()[0] != "Greet with a comma"  # nothing committed yet
    await eng.review.apply()
    asked = approver.asked[-1]
    assert asked.kind == KIND and asked.text == MESSAGE + "\n" and "  app.py" in asked.lines
    assert asked.multiline and [c.key for c in asked.choices] == ["ctrl+s", "escape"]
    assert git(repo, "log", "-1", "--format=%B").strip() == edited
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["app.py"]
    assert git(repo, "diff", "--cached", "--name-only") == "staged.txt\n"  # the user's own staging stays
    assert not (repo.parent / "hook-ran").exists()
    head = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert any(f"Committed 1 file(s) as {head}" in e.message for e in sink.events if isinstance(e, Notice))
    assert f"the user committed the applied change as {head}" in eng._told("next")


async def test_a_no_leaves_the_change_applied_and_uncommitted(repo: Path) -> None:
    before = git(repo, "rev-parse", "HEAD")
    eng, sink, _ = engine(repo, {"apply": ["yes"], KIND: ["no"]})
    await eng.run_turn("put a comma in the greeting")
    await eng.review.apply()
    assert "'hello, ' + name" in (repo / "app.py").read_text(encoding="utf-8")
    assert git(repo, "rev-parse", "HEAD") == before
    assert any("Not committed: the change is in your files, uncommitted." == e.message
               for e in sink.events if isinstance(e, Notice))


async def test_an_emptied_message_is_not_committed_and_says_why(repo: Path) -> None:
    before = git(repo, "rev-parse", "HEAD")
    eng, sink, _ = engine(repo, {"apply": ["yes"], KIND: [Decision("yes", "   ")]})
    await eng.run_turn("put a comma in the greeting")
    await eng.review.apply()
    assert git(repo, "rev-parse", "HEAD") == before
    assert any("Not committed: a commit message needs some text" in e.message
               for e in sink.events if isinstance(e, Notice))


async def test_without_a_layer_there_is_nothing_to_propose_a_commit_for(git_repo: Path) -> None:
    eng, sink, _ = engine(git_repo, {"permission": ["once"]}, layer="off")
    await eng.run_turn("put a comma in the greeting")
    found = result(sink, "propose_commit")
    assert not found.ok and "this session has no layer" in found.output


async def test_a_commit_git_refuses_says_why_and_leaves_nothing_of_it_staged(repo: Path, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{name}_EMAIL")
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))  # no identity anywhere, and git may not guess one
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    git(repo, "config", "user.useConfigOnly", "true")
    before = git(repo, "rev-parse", "HEAD")
    eng, sink, _ = engine(repo, {"apply": ["yes"], KIND: ["yes"]})
    await eng.run_turn("put a comma in the greeting")
    await eng.review.apply()
    assert git(repo, "rev-parse", "HEAD") == before
    said = [e.message for e in sink.events if isinstance(e, Notice) and e.message.startswith("Not committed: ")]
    assert said and "The change is in your files, uncommitted." in said[0], said
    assert git(repo, "diff", "--cached", "--name-only") == "staged.txt\n"  # app.py was unstaged again
    assert "'hello, ' + name" in (repo / "app.py").read_text(encoding="utf-8")
