"""A real llama.cpp server's ``apply_patch`` call (recorded): the Codex patch a model wrote is applied through the
same dialog and transaction as every write, and /undo reverts it (MODEL-3)."""

from __future__ import annotations

import json
from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.edits.recovery import undo_last
from ljtui.core.engine import Engine
from ljtui.core.events import PermissionRequested, ToolCallFinished
from ljtui.core.ports import ListSink
from tests.fakes import openai_api as api
from tests.fakes.fixtures import fake_openai, fast_provider  # noqa: F401 - the fixture
from tests.fakes.recorded import recording
from tests.fakes.server import FakeSSEServer

PATCH_CALL = recording("llamacpp_apply_patch_call")


def test_the_recording_is_one_apply_patch_call() -> None:
    [arguments] = PATCH_CALL.arguments()
    assert json.loads(arguments)["patch"] == (
        "*** Begin Patch\n*** Update File: app.py\n@@\n-z = 5\n+z = 6\n*** End Patch\n")
    assert PATCH_CALL.finish_reason() == "tool_calls"


async def test_the_models_patch_is_asked_about_written_once_and_undone(
    fake_openai: FakeSSEServer, git_repo: Path,  # noqa: F811
) -> None:
    (git_repo / "app.py").write_text("z = 5\n", encoding="utf-8")
    fake_openai.queue(PATCH_CALL.reply(), api.text_reply("Changed z."))
    config = Config(provider=fast_provider("openai-compatible", fake_openai.url + "/v1", model="smollm2"))
    config.agent.layer = "off"
    config.agent.edit_tools = "patch"
    sink = ListSink()
    engine = Engine(config, sink, repo_root=git_repo, approver=ScriptedApprover({"permission": ["once"]}))
    try:
        result = await engine.run_turn("In app.py change z = 5 to z = 6")
        assert result is not None and result.text == "Changed z."
        assert (git_repo / "app.py").read_text(encoding="utf-8") == "z = 6\n"
        [asked] = [e for e in sink.events if isinstance(e, PermissionRequested)]
        assert asked.tool == "apply_patch"
        [done] = [e for e in sink.events if isinstance(e, ToolCallFinished)]
        assert done.ok and "app.py" in done.summary
        assert "apply_patch" in [t["function"]["name"] for t in fake_openai.requests[0].json["tools"]]
        undone = undo_last(git_repo)
        assert undone.ok and undone.files == ["app.py"]
        assert (git_repo / "app.py").read_text(encoding="utf-8") == "z = 5\n"
    finally:
        await engine.aclose()
