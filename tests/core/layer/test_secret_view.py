"""Secret files are unreadable to commands in the layer, which run without a dialog; when they cannot all be found,
the command asks instead."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ljtui.core.agent.shell import run_command
from ljtui.core.agent.tools.bash import in_layer, layer_facts
from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.confine.refusal import refusal_note
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.layer import secret_view
from ljtui.core.layer.service import Layer
from tests.conftest import git
from tests.core.agent.helpers import Harness


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / ".gitignore").write_text(".env\nkeys/\n", encoding="utf-8")
    (git_repo / ".env").write_text("TOKEN=s3cret-value\n", encoding="utf-8")
    (git_repo / "keys").mkdir()
    (git_repo / "keys" / "deploy.pem").write_text("-----BEGIN PRIVATE KEY-----\n", encoding="utf-8")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-q", "-m", "ignore")
    if not Layer(git_repo).status.layered:
        pytest.skip(f"no layer on this machine: {Layer(git_repo).status.why}")
    return git_repo


def run(box: CommandSandbox, repo: Path, command: str) -> tuple[str, str | None]:
    rules, layered, hidden = layer_facts(box, repo)
    assert layered and hidden is not None
    confinement = box.confinement(rules, layered=True, hidden=hidden)

    async def go():  # type: ignore[no-untyped-def]
        async with in_layer(box, confinement):
            return await run_command(command, repo, confinement=confinement, timeout=30, on_output=lambda _t: None,
                                     cancelled=asyncio.Event(), env=box.environment())

    result = asyncio.run(go())
    return result.output, refusal_note(result.output, result.exit_code, confinement)


def test_a_command_in_the_layer_cannot_read_a_secret_file_and_is_told_why(repo: Path) -> None:
    box = CommandSandbox(repo, layer=Layer(repo))
    try:
        output, note = run(box, repo, "cat .env; cat keys/deploy.pem; cat README.md; false")
        assert "s3cret-value" not in output and "PRIVATE KEY" not in output
        assert "cat: .env: Permission denied" in output and "cat: keys/deploy.pem: Permission denied" in output
        assert "# sample" in output  # the rest of the repository reads as ever
        assert note is not None and note.startswith("layer: .env is a secret file")
        output, _ = run(box, repo, "git status --short --ignored; git log --oneline | wc -l")
        assert "!! .env" in output and "!! keys/" in output  # git still works, and sees the files exist
    finally:
        box.close()


def test_a_secret_made_in_the_layer_is_hidden_from_the_next_command_and_none_can_be_removed(repo: Path) -> None:
    box = CommandSandbox(repo, layer=Layer(repo))
    try:
        run(box, repo, "echo KEY=made-here > .env.local")
        output, note = run(box, repo, "cat .env.local; rm .env")
        assert "made-here" not in output and "cat: .env.local: Permission denied" in output
        assert "rm: cannot remove '.env': Device or resource busy" in output, output
        assert note is not None and note.startswith("layer: .env.local is a secret file"), note
        assert (repo / ".env").read_text(encoding="utf-8") == "TOKEN=s3cret-value\n"
        layer = box.layer
        assert layer is not None
        with layer.holding():
            assert [e.path for e in layer.change().entries] == [".env.local"]
    finally:
        box.close()


async def test_when_the_secret_files_cannot_all_be_found_the_command_asks(repo: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secret_view, "MAX_HIDDEN", 1)  # two secret files: more than can be hidden
    approver = ScriptedApprover({"permission": ["once"]})
    harness = Harness(repo, approver, Config(), sandbox_factory=lambda root: CommandSandbox(root, layer=Layer(root)))
    result = await harness.call(command="echo hi")
    assert result.ok, result.content
    [asked] = approver.asked
    assert asked.kind == "permission" and asked.lines[-1].startswith("in the layer · ")
    monkeypatch.setattr(secret_view, "MAX_HIDDEN", 2000)
    approver.asked.clear()
    harness.sandbox.secret_view._tree = None
    assert (await harness.call(command="echo hi")).ok and approver.asked == []  # found: no dialog
    harness.sandbox.close()
