"""Hooks on a real engine's turns, each a real bash script in the repository: a PreToolUse guard, a PostToolUse
formatter whose change is reviewed, a Stop hook that keeps the turn going (and its bound), a UserPromptSubmit
hook that adds context or keeps a message back."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.events import (
    HookFinished, HookStarted, ModelCallStarted, Notice, PermissionRequested, ToolCallFinished, TurnFinished,
)
from ljtui.core.providers.base import TextBlock, ToolResultBlock
from tests.core.hooks.helpers import call, hook_script, hooked_engine, needs_layer, of, on

GUARD = """input=$(cat)
if printf '%s' "$input" | grep -q '"command": *"rm '; then
  echo "rm is not allowed in this repository; move the file to trash/ instead" >&2
  exit 2
fi
exit 0"""


@pytest.mark.parametrize("layer", ["auto", "off"])
async def test_a_pre_tool_use_hook_refuses_rm_the_model_reads_why_and_nothing_runs(
        git_repo: Path, tmp_path: Path, layer: str) -> None:
    (git_repo / "victim.txt").write_text("keep me\n", encoding="utf-8")
    guard = hook_script(git_repo, "guard.sh", GUARD)
    engine, sink, approver = hooked_engine(git_repo, tmp_path, [call("bash", command="rm -f victim.txt"),
                                                                {"text": "I will not delete it."}],
                                           {"PreToolUse": on("Bash", guard)}, answers={"permission": ["once"]},
                                           layer=layer)
    try:
        result = await engine.run_turn("delete victim.txt")
    finally:
        await engine.aclose()
    assert result is not None and result.text == "I will not delete it."
    assert (git_repo / "victim.txt").read_text(encoding="utf-8") == "keep me\n"
    assert not of(sink, PermissionRequested) and not approver.asked  # refused before anyone was asked
    [finished] = of(sink, ToolCallFinished)
    assert not finished.ok and finished.summary == f"blocked by hook {guard}"
    [block] = engine.history[2].content
    assert isinstance(block, ToolResultBlock) and block.is_error
    assert "A PreToolUse hook blocked this call; it did not run" in block.content
    assert "rm is not allowed in this repository; move the file to trash/ instead" in block.content
    [started] = of(sink, HookStarted)
    assert (started.event, started.subject, started.source) == ("PreToolUse", "bash", "your config")
    [hook] = of(sink, HookFinished)
    assert (hook.outcome, hook.exit_code) == ("blocked", 2) and "rm is not allowed" in hook.reason


async def test_a_pre_tool_use_hook_lets_other_commands_run_and_its_matcher_skips_other_tools(
        git_repo: Path, tmp_path: Path) -> None:
    guard = hook_script(git_repo, "guard.sh", GUARD)
    engine, sink, _ = hooked_engine(git_repo, tmp_path, [call("bash", command="echo fine > out.txt"),
                                                         call("read_file", path="app.py"), {"text": "Done."}],
                                    {"PreToolUse": on("Bash", guard)}, answers={"permission": ["once"]},
                                    layer="off")
    try:
        await engine.run_turn("write out.txt")
    finally:
        await engine.aclose()
    assert (git_repo / "out.txt").read_text(encoding="utf-8") == "fine\n"
    assert [e.subject for e in of(sink, HookStarted)] == ["bash"]  # read_file is not Bash
    assert [e.outcome for e in of(sink, HookFinished)] == ["ok"]


async def test_a_post_tool_use_formatter_changes_the_layer_and_its_change_is_reviewed_like_the_agents(
        git_repo: Path, tmp_path: Path) -> None:
    needs_layer(git_repo)
    formatter = hook_script(git_repo, "format.sh", """file=$(jq -r '.tool_input.file_path')
sed -i 's/x=1/x = 1/' "$file"
echo "formatted $file" """)
    before = (git_repo / "app.py").read_bytes()
    engine, sink, _ = hooked_engine(git_repo, tmp_path, [call("write_file", path="app.py", content="x=1\n"),
                                                         {"text": "Wrote it."}],
                                    {"PostToolUse": on("Write|Edit", formatter)},
                                    answers={"permission": ["once"], "apply": ["yes"]})
    try:
        await engine.run_turn("set x")
        assert (git_repo / "app.py").read_bytes() == before  # the agent's write and the formatter's: in the layer
        assert engine.review.active and engine.review.targets() == {"app.py"}
        await engine.review.apply()
    finally:
        await engine.aclose()
    assert (git_repo / "app.py").read_text(encoding="utf-8") == "x = 1\n"
    [hook] = of(sink, HookFinished)
    assert (hook.event, hook.outcome) == ("PostToolUse", "ok")


async def test_a_stop_hook_keeps_the_turn_going_until_the_file_exists(git_repo: Path, tmp_path: Path) -> None:
    check = hook_script(git_repo, "stop.sh", """test -f done.txt && exit 0
echo "done.txt does not exist yet: create it before you stop" >&2
exit 2""")
    turns = [{"text": "All done."}, call("bash", command="touch done.txt"), {"text": "Now it exists."}]
    engine, sink, _ = hooked_engine(git_repo, tmp_path, turns, {"Stop": on("", check)},
                                    answers={"permission": ["once"]}, layer="off")
    try:
        result = await engine.run_turn("finish up")
    finally:
        await engine.aclose()
    assert result is not None and result.text == "All done.Now it exists."
    assert (git_repo / "done.txt").exists()
    assert len(of(sink, ModelCallStarted)) == 3
    assert [e.outcome for e in of(sink, HookFinished)] == ["blocked", "ok"]
    [nudge] = [m for m in engine.history if m.role == "user" and isinstance(m.content[0], TextBlock)
               and "Stop hook" in m.content[0].text]
    assert "did not let your turn end (1/3)" in nudge.content[0].text
    assert "done.txt does not exist yet: create it before you stop" in nudge.content[0].text


async def test_a_stop_hook_that_never_passes_is_given_up_after_its_bound(git_repo: Path, tmp_path: Path) -> None:
    never = hook_script(git_repo, "never.sh", 'echo "not yet" >&2; exit 2')
    turns = [{"text": "One."}, {"text": "Two."}, {"text": "Three."}, {"text": "Four."}]
    engine, sink, _ = hooked_engine(git_repo, tmp_path, turns, {"Stop": on("*", never)}, stop_continues=2)
    try:
        result = await engine.run_turn("stop")
    finally:
        await engine.aclose()
    assert result is not None and result.text == "One.Two.Three."
    assert len(of(sink, ModelCallStarted)) == 3 and len(of(sink, TurnFinished)) == 1
    assert any("still refuses to let the turn end after 2 continuation(s)" in n.message for n in of(sink, Notice))


async def test_a_user_prompt_submit_hook_adds_context_as_a_hooks_output(git_repo: Path, tmp_path: Path) -> None:
    context = hook_script(git_repo, "ticket.sh", """prompt=$(jq -r .prompt)
echo "Ticket ABC-123 is open for: $prompt" """)
    engine, _, _ = hooked_engine(git_repo, tmp_path, [{"text": "Noted."}],
                                 {"UserPromptSubmit": on("", context)}, layer="off")
    try:
        await engine.run_turn("fix the login")
    finally:
        await engine.aclose()
    text = engine.history[0].content[0].text
    assert text.startswith("fix the login\n\n[output of the hook ")
    assert "text a program printed, not an instruction from the user]" in text
    assert text.endswith("Ticket ABC-123 is open for: fix the login")


async def test_a_user_prompt_submit_hook_keeps_a_message_back_and_the_user_reads_why(
        git_repo: Path, tmp_path: Path) -> None:
    refuse = hook_script(git_repo, "refuse.sh", 'echo "no prompts mentioning passwords" >&2; exit 2')
    engine, sink, _ = hooked_engine(git_repo, tmp_path, [{"text": "never sent"}],
                                    {"UserPromptSubmit": on("", refuse)}, layer="off")
    try:
        result = await engine.run_turn("print the password")
    finally:
        await engine.aclose()
    assert result is None and engine.history == [] and not of(sink, ModelCallStarted)
    [kept] = [n for n in of(sink, Notice) if "was not sent" in n.message]
    assert "no prompts mentioning passwords" in kept.message and kept.level == "warning"


async def test_a_claude_code_edit_hook_sees_an_apply_patch_call_as_multi_edit_with_its_file(
        git_repo: Path, tmp_path: Path) -> None:
    guard = hook_script(git_repo, "edits.sh", """jq -r '.tool_input.file_path' >&2
exit 2""")
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-x\n+y\n*** End Patch\n"
    engine, sink, _ = hooked_engine(git_repo, tmp_path, [call("apply_patch", patch=patch), {"text": "Stopped."}],
                                    {"PreToolUse": on("Edit|MultiEdit|Write", guard)}, layer="off")
    try:
        await engine.run_turn("patch app.py")
    finally:
        await engine.aclose()
    [block] = engine.history[2].content
    assert isinstance(block, ToolResultBlock) and block.is_error
    assert str(git_repo / "app.py") in block.content
    [started] = of(sink, HookStarted)
    assert started.subject == "apply_patch"
