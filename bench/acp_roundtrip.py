"""Benchmark: the round trip of one ACP prompt to ``ljtui acp``, against a bare SDK agent, in one run.

The ACP SDK's own client starts each agent as a subprocess over stdio, opens a
session in a fresh git repository and sends ``--prompts`` prompts after one
warm-up; each is timed from sending ``session/prompt`` to its answer, with the
reply's words received as ``session/update`` on the way:

* bare: an agent of a few lines on the same SDK that answers each prompt with
  one message chunk (the protocol and the two processes, nothing else);
* ljtui: ``ljtui acp`` with the scripted model answering each prompt with one
  sentence, so the time is ljtui's own: the message routed (one model call),
  the turn (the second), its events turned into updates and sent in order,
  and the session saved.

Prints each side's median, ``ljtui prompt round trip: X ms`` and ``ljtui/bare
ratio: X``.

Usage: ``python bench/acp_roundtrip.py [--prompts N]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

DEFAULT_PROMPTS = 50
REPLY = "Done: nothing needed changing."
BARE_AGENT = '''
import asyncio
from acp import InitializeResponse, NewSessionResponse, PromptResponse, run_agent, update_agent_message_text


class Bare:
    def on_connect(self, conn):
        self.conn = conn

    async def initialize(self, protocol_version, **kwargs):
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd, **kwargs):
        return NewSessionResponse(session_id="bare")

    async def prompt(self, prompt, session_id, **kwargs):
        await self.conn.session_update(session_id=session_id, update=update_agent_message_text("%s"))
        return PromptResponse(stop_reason="end_turn")


asyncio.run(run_agent(Bare()))
''' % REPLY


class Listener:
    """The editor's side: counts the reply's chunks, answers no question (none is asked)."""

    def __init__(self) -> None:
        self.chunks = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if update.session_update == "agent_message_chunk":
            self.chunks += 1

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the benchmark's prompts ask nothing")

    def on_connect(self, conn: Any) -> None:
        pass


async def timed(argv: list[str], repo: Path, prompts: int) -> list[float]:
    from acp import PROTOCOL_VERSION, spawn_agent_process, text_block

    listener = Listener()
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    times = []
    async with spawn_agent_process(listener, argv[0], *argv[1:], env=env, cwd=str(repo)) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = (await conn.new_session(cwd=str(repo), mcp_servers=[])).session_id
        for n in range(prompts + 1):
            start = time.perf_counter()
            response = await conn.prompt(session_id=session, prompt=[text_block(f"check {n}")])
            if n:
                times.append(time.perf_counter() - start)
            assert response.stop_reason == "end_turn", response
    assert listener.chunks >= prompts + 1, "every reply arrived"
    return times


def repository(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# bench\n", encoding="utf-8")
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b", "PATH": os.environ["PATH"], "HOME": str(root)}
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


async def main(prompts: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = repository(root)
        script = root / "script.yaml"
        script.write_text(yaml.safe_dump({"turns": [{"text": REPLY}] * (prompts + 1)}), encoding="utf-8")
        bare_agent = root / "bare_agent.py"
        bare_agent.write_text(BARE_AGENT, encoding="utf-8")
        os.environ.setdefault("XDG_CONFIG_HOME", str(root / "config"))
        os.environ.setdefault("XDG_STATE_HOME", str(root / "state"))
        bare = await timed([sys.executable, str(bare_agent)], repo, prompts)
        ljtui = await timed([sys.executable, "-m", "ljtui.cli.main", "acp", "--provider", "scripted",
                             "--script", str(script)], repo, prompts)
    bare_ms, ljtui_ms = statistics.median(bare) * 1000, statistics.median(ljtui) * 1000
    print(f"prompts: {prompts} per side, after one warm-up")
    print(f"bare SDK agent: median {bare_ms:.2f} ms per prompt")
    print(f"ljtui acp:      median {ljtui_ms:.2f} ms per prompt")
    print(f"ljtui prompt round trip: {ljtui_ms:.2f} ms ({ljtui_ms - bare_ms:.2f} ms more than the bare agent)")
    print(f"ljtui/bare ratio: {ljtui_ms / bare_ms:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=DEFAULT_PROMPTS)
    asyncio.run(main(parser.parse_args().prompts))
