"""Engine.plan through the real Anthropic SDK against the loopback fake server."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.events import ModelCallRetried, TurnFailed
from ljtui.core.planner.events import PlannerFinished
from tests.core.providers.helpers import make_rig
from tests.fakes import anthropic_api as api
from tests.fakes.fixtures import fake_anthropic, fast_provider  # noqa: F401
from tests.fakes.server import FakeSSEServer

LIST_ACTION = '```json\n{"action": "list_dir", "path": "."}\n```\n'
PLAN = """### EDIT 1

- file: `app.py`
- where: `greet (~1)`

```old
x = 1
```

```new
x = 2
```

```json
{"will_modify": ["x"], "will_add": [], "will_remove": []}
```
"""


async def test_planner_retries_an_overload_mid_reply(fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    fake_anthropic.queue(api.overloaded_midstream("### EDIT"), api.text_reply(LIST_ACTION), api.text_reply(PLAN))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)

    result = await rig.engine.plan("set x to 2")

    assert result is not None and result.ok, result
    [retried] = rig.of(ModelCallRetried)
    assert (retried.attempt, retried.error) == (1, "overloaded")
    assert rig.of(PlannerFinished)[-1].ok
    assert len(fake_anthropic.requests) == 3
    await rig.engine.aclose()


async def test_planner_reports_an_unreachable_model(tmp_path: Path) -> None:
    rig = make_rig(fast_provider("anthropic", "http://127.0.0.1:9"), tmp_path)
    assert await rig.engine.plan("anything") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "connection" and "send the message again to retry" in failed.message
    await rig.engine.aclose()


async def test_planner_refuses_a_missing_root(tmp_path: Path) -> None:
    rig = make_rig(fast_provider("anthropic", "http://127.0.0.1:9"), tmp_path / "gone")
    assert await rig.engine.plan("anything") is None
    [failed] = rig.of(TurnFailed)
    assert failed.error == "config" and "is not a directory" in failed.message


async def test_a_model_that_trickles_forever_is_stopped_at_the_planners_hard_deadline(
        fake_anthropic: FakeSSEServer, tmp_path: Path) -> None:
    import time

    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    fake_anthropic.queue(api.trickle_forever(0.05))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    rig.engine.config.planner.hard_deadline = 1.0
    started = time.monotonic()
    result = await rig.engine.plan("set x to 2")
    assert time.monotonic() - started < 10
    assert result is not None and result.aborted == "deadline"
    [finished] = [e for e in rig.sink.events if isinstance(e, PlannerFinished)]
    assert finished.aborted == "deadline"
    assert (tmp_path / "app.py").read_text() == "x = 1\n"
