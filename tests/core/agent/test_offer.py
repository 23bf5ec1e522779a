"""The tools a model call offers (MODEL-3): those the agent can use now, in their fixed order."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent.offer import GATE_IN_FOCUS, PLAYBOOKS_EXIST, Offer
from ljtui.core.agent.tools import agent_tools
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.ports import ListSink
from tests.fakes import openai_api as api
from tests.fakes.fixtures import fake_openai, fast_provider  # noqa: F401 - the fixture
from tests.fakes.server import FakeSSEServer

ALL = agent_tools().specs


def names(specs) -> list[str]:
    return [s.name for s in specs]


def test_without_a_gate_or_playbooks_their_later_tools_are_left_out_and_the_order_kept() -> None:
    config = Config()
    offered = names(Offer(gate=False, playbooks=False).specs(ALL, config))
    assert not GATE_IN_FOCUS & set(offered) and not PLAYBOOKS_EXIST & set(offered)
    assert {"gate_status", "gate_propose", "playbook_save", "edit_file", "bash"} <= set(offered)
    assert offered == [n for n in names(ALL) if n in offered]
    assert len(offered) == len(ALL) - len(GATE_IN_FOCUS) - len(PLAYBOOKS_EXIST) - 1, "apply_patch too"


def test_a_gate_in_focus_and_playbooks_bring_their_tools_back() -> None:
    offered = set(names(Offer(gate=True, playbooks=True).specs(ALL, Config())))
    assert GATE_IN_FOCUS <= offered and PLAYBOOKS_EXIST <= offered


async def test_a_first_request_offers_only_what_a_fresh_session_can_use(
    fake_openai: FakeSSEServer, tmp_path: Path,  # noqa: F811
) -> None:
    fake_openai.queue(api.text_reply("ok"))
    engine = Engine(Config(provider=fast_provider("openai-compatible", fake_openai.url + "/v1")), ListSink(),
                    repo_root=tmp_path)

    assert await engine.run_turn("hi") is not None

    sent = {t["function"]["name"] for t in fake_openai.requests[0].json["tools"]}
    assert sent == set(names(Offer(gate=False, playbooks=False).specs(ALL, Config())))
    assert "gate_check" not in sent and "playbook_search" not in sent
    await engine.aclose()
