"""The user's planner settings reach the planner from the engine and from ``ljtui plan``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ljtui.cli.main import main
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.planner.budget import estimate_tokens
from ljtui.core.ports import ListSink
from tests.core.planner.helpers import GOOD_PLAN, RecordingClient, action

SECRET = "API_TOKEN=t0k3n-from-the-env-file"
BUDGET = 20_000
BIG_READ = action("read_file", path="big.py")


def prepare(repo: Path) -> None:
    (repo / ".env.local").write_text(SECRET + "\n")
    (repo / "big.py").write_text("x = 'padding padding padding padding padding'\n" * 1500)


async def test_engine_plan_passes_the_allow_list_and_the_budget(repo: Path) -> None:
    prepare(repo)
    config = Config()
    config.security.allow_secret_files = [".env.local"]
    config.planner.prompt_budget_tokens = BUDGET
    client = RecordingClient(*[BIG_READ] * 4, action("read_file", path=".env.local"), GOOD_PLAN)
    engine = Engine(config, ListSink(), repo_root=repo, client_factory=lambda _: client)
    result = await engine.plan("double the upload timeout")
    assert result is not None and result.ok
    assert SECRET in client.prompt(5)
    assert all(estimate_tokens(r.system + r.messages[0].text) <= BUDGET for r in client.requests)
    assert "[elided to stay within the prompt budget" in client.prompt(5)


async def test_engine_plan_refuses_secrets_by_default(repo: Path) -> None:
    prepare(repo)
    client = RecordingClient(action("read_file", path=".env.local"), GOOD_PLAN)
    engine = Engine(Config(), ListSink(), repo_root=repo, client_factory=lambda _: client)
    result = await engine.plan("double the upload timeout")
    assert result is not None and result.ok
    assert SECRET not in client.prompt(1) and "looks like a secret file" in client.prompt(1)


@pytest.mark.parametrize("allowed", [True, False])
def test_ljtui_plan_reads_the_users_config(repo: Path, tmp_path: Path, isolated_env: Path, allowed: bool,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    prepare(repo)
    if allowed:
        (isolated_env / "ljtui").mkdir(exist_ok=True)
        (isolated_env / "ljtui" / "config.yaml").write_text(yaml.safe_dump(
            {"security": {"allow_secret_files": [".env.local"]}, "planner": {"prompt_budget_tokens": BUDGET}}))
    model = tmp_path / "model.yaml"
    model.write_text(yaml.safe_dump({"turns": [{"text": action("read_file", path=".env.local")},
                                               {"text": GOOD_PLAN}]}))
    code = main(["plan", "--source", str(repo), "--request", "x", "--out", str(tmp_path / "p.md"),
                 "--script", str(model)])
    assert code == 0
    first = capsys.readouterr().err.splitlines()[0]
    if allowed:
        assert first == "turn 1: read_file path=.env.local -> .env.local lines 1-1 of 1"
    else:
        assert first.startswith("turn 1: read_file path=.env.local -> error: '.env.local' looks like a secret")
