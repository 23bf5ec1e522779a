"""A block's new text edited by the user before it is accepted: the apply writes exactly that text, or nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.events import Notice
from ljtui.core.review.editing import KIND, MAX_EDIT_CHARS, SAVE_KEY
from ljtui.core.review.service import ReviewService
from tests.core.review.test_service import APP, PLAN, service

DELETION = """diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "gone.txt").write_text("bye\n", encoding="utf-8")
    return root


def opened(repo: Path, approver: ScriptedApprover, text: str = PLAN) -> tuple[ReviewService, object]:
    svc, sink = service(repo, approver)
    assert svc.open_text(text, "plan.md")
    return svc, sink


def notices(sink) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.message for e in sink.events if isinstance(e, Notice)]


async def test_the_edited_text_is_what_the_apply_writes(repo: Path) -> None:
    approver = ScriptedApprover({KIND: [Decision("yes", "    return 'howdy ' + name\n")], "apply": ["yes"]})
    svc, _ = opened(repo, approver)
    await svc.edit_block(1)
    [asked] = approver.asked
    assert asked.multiline and asked.text == "    return 'hi ' + name\n"  # the block's new text, to edit
    assert [c.key for c in asked.choices] == [SAVE_KEY, "escape"]
    await svc.apply()
    assert (repo / "app.py").read_text(encoding="utf-8") == "def greet(name):\n    return 'howdy ' + name\n"
    assert (repo / "notes.txt").read_text(encoding="utf-8") == "created\n"


@pytest.mark.parametrize("answer", [Decision("no", "    return 'howdy ' + name\n"), Decision("yes", None)])
async def test_a_cancelled_or_empty_answer_keeps_the_block_as_it_was(repo: Path, answer: Decision) -> None:
    approver = ScriptedApprover({KIND: [answer], "apply": ["yes"]})
    svc, _ = opened(repo, approver)
    await svc.edit_block(1)
    await svc.apply()
    assert (repo / "app.py").read_text(encoding="utf-8") == "def greet(name):\n    return 'hi ' + name\n"


async def test_a_rejected_block_edited_is_accepted_with_the_new_text(repo: Path) -> None:
    approver = ScriptedApprover({KIND: [Decision("yes", "    return 'yo ' + name\n")], "apply": ["yes"]})
    svc, _ = opened(repo, approver)
    await asyncio.to_thread(svc.toggle, 1)
    await svc.edit_block(1)
    await svc.apply()
    assert (repo / "app.py").read_text(encoding="utf-8") == "def greet(name):\n    return 'yo ' + name\n"


async def test_a_deletion_has_no_text_to_edit(repo: Path) -> None:
    approver = ScriptedApprover({KIND: [Decision("yes", "something\n")]})
    svc, sink = opened(repo, approver, DELETION)
    await svc.edit_block(1)
    assert any("EDIT 1 has no text to edit: it deletes gone.txt" in n for n in notices(sink)), notices(sink)


async def test_a_text_past_the_limit_is_refused_and_the_block_kept(repo: Path) -> None:
    approver = ScriptedApprover({KIND: [Decision("yes", "x" * (MAX_EDIT_CHARS + 1))], "apply": ["yes"]})
    svc, sink = opened(repo, approver)
    await svc.edit_block(1)
    assert any("longer than 1,000,000 characters" in n for n in notices(sink)), notices(sink)
    await svc.apply()
    assert (repo / "app.py").read_text(encoding="utf-8") == "def greet(name):\n    return 'hi ' + name\n"


async def test_editing_with_nothing_under_review_says_so(repo: Path) -> None:
    approver = ScriptedApprover({})
    svc, sink = service(repo, approver)
    await svc.edit_block(1)
    assert approver.asked == [] and notices(sink)
