"""The system prompt's playbook section (PB-8), and the engine's access to the playbook service."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.playbooks.prompt import PLAYBOOK_PROMPT
from ljtui.core.playbooks.service import PROMOTE_KIND, PlaybookService
from ljtui.core.ports import ListSink
from tests.core.playbooks.helpers import repo_playbooks, write_playbook


def test_the_section_says_search_before_planning_feedback_after_use_and_drafts_after_success() -> None:
    assert PLAYBOOK_PROMPT.startswith("# Playbooks\n")
    for phrase in ("Before you plan", "playbook_search", "playbook_feedback", "playbook_save", "draft",
                   "only the user can make it", "playbook-<id>"):
        assert phrase in PLAYBOOK_PROMPT, phrase
    assert "{" not in PLAYBOOK_PROMPT, "a constant: the same bytes in every session (cached prefix)"


async def test_the_engine_holds_one_service_asking_through_its_approver(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy", status="draft")
    sink = ListSink()
    approver = ScriptedApprover({PROMOTE_KIND: ["yes"]})
    engine = Engine(Config(), sink, repo_root=git_repo, approver=approver)
    service = engine.playbooks
    assert isinstance(service, PlaybookService) and engine.playbooks is service
    assert engine.services.playbooks is service
    assert (await service.promote("deploy")).ok
    assert [e.kind for e in sink.events] == ["approval_requested", "approval_decided", "playbook_status_changed"]
    saved = await asyncio.to_thread(service.save, "Roll back", "x", sections={"SOP": ["revert"]})
    assert saved.playbook is not None and saved.playbook.source_session == engine.session_log.id
    await engine.aclose()
