"""Reply classification, dangling-fence repair and plan extraction (PLN-6…10)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ljtui.core.planner.protocol import classify_reply, close_dangling_fence, extract_plan, summarize_args
from tests.core.planner.helpers import GOOD_PLAN, action


def test_one_fenced_json_object_is_the_action() -> None:
    reply = classify_reply(action("read_file", path="a.py", start_line=3))
    assert reply.kind == "action"
    assert reply.action == {"action": "read_file", "path": "a.py", "start_line": 3}


def test_a_bare_json_reply_is_an_action_too() -> None:
    assert classify_reply('  {"action": "list_dir", "path": "."}\n').kind == "action"


def test_extra_actions_are_counted_and_the_first_wins() -> None:
    reply = classify_reply(action("list_dir", path=".") + action("grep", pattern="x", path="."))
    assert reply.action["action"] == "list_dir" and reply.extra_actions == 1


@pytest.mark.parametrize("text", [
    "## Tool result\nfile contents", "Sure.\n\n## Tool result\n```\nx\n```", "### tool result\n",
    "> ## Tool Result\n", "## Tool results\n",
])
def test_tool_result_heading_is_a_fabrication(text: str) -> None:
    assert classify_reply(text + "\n" + GOOD_PLAN).kind == "fabricated"


def test_mentioning_the_words_is_not_a_fabrication() -> None:
    assert classify_reply("The tool result showed two hits.\n" + action("list_dir", path=".")).kind == "action"


def test_a_reply_with_edit_blocks_is_the_plan_even_with_action_json() -> None:
    text = GOOD_PLAN + '\n```json\n{"action": "finish"}\n```\n'
    assert classify_reply(text).kind == "plan"
    plan, repaired = extract_plan("Here is the plan.\n\n" + text)
    assert plan == GOOD_PLAN and not repaired


@pytest.mark.parametrize(("text", "error"), [
    ('```json\n{"action": "list_dir", "path": ".",}\n```', "does not parse"),
    ('```json\n{"action": "list_dir" "path": "."}\n```', "does not parse"),
    ('```json\n{"path": "."}\n```', '"action" key'),
])
def test_malformed_action_json_is_reported(text: str, error: str) -> None:
    reply = classify_reply(text)
    assert reply.kind == "malformed" and error in reply.error


def test_prose_only_is_no_action() -> None:
    assert classify_reply("I think the bug is in upload.py.").kind == "none"
    assert classify_reply("```python\nprint(1)\n```").kind == "none"


def test_summarize_args_shortens_and_shows_non_strings() -> None:
    text = summarize_args({"action": "read_file", "path": "x" * 100, "start_line": 3})
    assert text == "path=" + "x" * 80 + "… start_line=3"


def test_dangling_fence_at_the_very_end_is_closed() -> None:
    cut = GOOD_PLAN.rstrip("\n").removesuffix("```").rstrip("\n")
    fixed, repaired = close_dangling_fence(cut)
    assert repaired and fixed == GOOD_PLAN


def test_dangling_fence_keeps_its_marker_and_length() -> None:
    fixed, repaired = close_dangling_fence("text\n~~~~json\n{}\n")
    assert repaired and fixed == "text\n~~~~json\n{}\n~~~~\n"


def test_closed_plan_is_untouched() -> None:
    assert close_dangling_fence(GOOD_PLAN) == (GOOD_PLAN, False)
    assert close_dangling_fence("````\n```python\nx\n```\n````\n")[1] is False


def test_unclosed_fence_in_the_middle_is_left_for_the_patcher() -> None:
    broken = GOOD_PLAN.replace("timeout=self._timeout)\n```\n", "timeout=self._timeout)\n", 1)
    assert close_dangling_fence(broken) == (broken, False)


def test_fence_left_open_before_more_edits_is_not_repaired() -> None:
    open_old = "### EDIT 1\n\n- file: `a.py`\n\n```old\nx = 1\n\n### EDIT 2\n\n- file: `b.py`\n"
    assert close_dangling_fence(open_old) == (open_old, False)
    two_open = "```old\nx\n```new\ny\n"
    assert close_dangling_fence(two_open) == (two_open, False)


LINES = st.sampled_from(["```", "```json", "```old", "~~~", "````", "x = 1", "", "### EDIT 2", "  ```"])


@given(st.lists(LINES, max_size=12), st.booleans())
def test_fence_repair_only_appends_a_closing_fence(lines: list[str], final_newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    fixed, repaired = close_dangling_fence(text)
    if not repaired:
        assert fixed == text
        return
    added = fixed[len(text):]
    assert fixed.startswith(text) and added.strip() in ("```", "````", "~~~")
    assert close_dangling_fence(fixed) == (fixed, False)
