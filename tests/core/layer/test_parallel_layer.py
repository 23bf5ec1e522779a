"""Agents working side by side in one layer: their commands and writes take turns on it, none is lost, and the
tree is untouched."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ljtui.core.agent.shell import run_command
from ljtui.core.agent.tools.bash import in_layer, layer_facts
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.layer.service import Layer
from ljtui.core.layer.tools import LayerTools
from ljtui.core.planner.grep import GREP_TIMEOUT_S
from ljtui.core.secret_files import SecretFiles


@pytest.fixture
def box(git_repo: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    layer = Layer(git_repo)
    if not layer.status.layered:
        pytest.skip(f"no layer on this machine: {layer.status.why}")
    sandbox = CommandSandbox(git_repo, layer=layer)
    tools = LayerTools(layer, secrets=SecretFiles(), grep_engine="auto", grep_timeout=GREP_TIMEOUT_S,
                       handbook_dir=None, outline_budget=1000, cache_dir=tmp_path / "cache", idle_seconds=0.2)
    yield sandbox, tools
    tools.close()
    sandbox.close()


async def command(sandbox: CommandSandbox, repo: Path, line: str) -> int | None:
    rules, layered, hidden = await asyncio.to_thread(layer_facts, sandbox, repo)
    confinement = sandbox.confinement(rules, layered=layered, hidden=hidden or ())
    async with in_layer(sandbox, confinement):
        done = await run_command(line, repo, confinement=confinement, timeout=60, on_output=lambda _t: None,
                                 cancelled=asyncio.Event(), env=sandbox.environment())
    return done.exit_code


async def test_commands_and_writes_of_four_agents_side_by_side_all_land_in_the_layer(box, git_repo: Path) -> None:
    sandbox, tools = box
    before = {p.name: p.read_bytes() for p in git_repo.iterdir() if p.is_file()}

    async def agent(n: int) -> None:
        for step in range(3):
            assert await command(sandbox, git_repo, f"mkdir -p out && echo {n}-{step} >> out/agent{n}.txt") == 0
            result = await asyncio.to_thread(tools.write_tool, "write_file",
                                             {"path": f"notes/agent{n}-{step}.md", "content": f"note {n} {step}\n"})
            assert result.ok, result.content

    await asyncio.gather(*(agent(n) for n in range(4)))
    layer = sandbox.layer
    assert layer is not None
    with layer.holding():
        change = layer.change()
    paths = {e.path: e for e in change.entries}
    for n in range(4):
        assert paths[f"out/agent{n}.txt"].after.data == b"".join(f"{n}-{s}\n".encode() for s in range(3))
        for step in range(3):
            assert paths[f"notes/agent{n}-{step}.md"].after.data == f"note {n} {step}\n".encode()
    assert len(paths) == 16
    assert {p.name: p.read_bytes() for p in git_repo.iterdir() if p.is_file()} == before
    assert not (git_repo / "out").exists() and not (git_repo / "notes").exists()
