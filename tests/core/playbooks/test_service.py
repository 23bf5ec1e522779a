"""The playbook service: promotion only through the user's answer, demotion as an event and a notice,
and the /playbook command's replies."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ljtui.core.approval import DenyAll, ScriptedApprover
from ljtui.core.events import Notice, event_to_dict
from ljtui.core.playbooks.events import PlaybookDemoted, PlaybookStatusChanged
from ljtui.core.playbooks.service import GATES_LATER, PROMOTE_KIND, USAGE, PlaybookService
from ljtui.core.playbooks.store import PlaybookStore
from ljtui.core.trust import TrustStore
from tests.core.playbooks.helpers import repo_playbooks, write_fixture_library, write_playbook


def _status(root: Path, pid: str) -> str:
    found = PlaybookStore(root).load(for_model=False).get(pid)
    assert found is not None
    return found.status


def test_promotion_is_denied_when_nobody_can_answer(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy", status="draft")
    events: list[object] = []
    done = asyncio.run(PlaybookService(git_repo, events.append, DenyAll().decide).promote("deploy"))
    assert not done.ok and "was not promoted; it stays draft" in done.message
    assert _status(git_repo, "deploy") == "draft" and events == []


def test_promotion_asks_the_user_and_a_yes_makes_it_active(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy the site", status="draft", when="when deploying",
                   sop=["Build", "Upload"])
    approver = ScriptedApprover({PROMOTE_KIND: ["yes"]})
    events: list[object] = []
    done = asyncio.run(PlaybookService(git_repo, events.append, approver.decide).promote("deploy"))
    assert done.ok and _status(git_repo, "deploy") == "active"
    [request] = approver.asked
    assert request.title == "Make playbook deploy active?" and request.safe == "no"
    assert {"Deploy the site", "When to use: when deploying", "  1. Build", "  2. Upload"} <= set(request.lines)
    assert events == [PlaybookStatusChanged("deploy", "draft", "active")]
    assert events[0].as_dict() == {"kind": "playbook_status_changed", "id": "deploy", "from": "draft",
                                   "to": "active"}


def test_the_model_cannot_reach_an_untrusted_repositorys_playbook_to_promote_it(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy", status="draft")
    approver = ScriptedApprover({PROMOTE_KIND: ["yes"]})
    service = PlaybookService(git_repo, lambda event: None, approver.decide)
    done = asyncio.run(service.promote("deploy", for_model=True))
    assert not done.ok and "not trusted" in done.message and approver.asked == []
    TrustStore.for_env().trust(git_repo, 0.0)
    assert asyncio.run(service.promote("deploy", for_model=True)).ok


def test_feedback_that_demotes_emits_playbook_demoted_and_a_notice(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy", fail=1)
    events: list[object] = []
    service = PlaybookService(git_repo, events.append)
    done = service.feedback("deploy", "fail", for_model=False)
    assert done.ok and "demoted it from active to deprecated" in done.message
    demoted, notice = events
    assert isinstance(demoted, PlaybookDemoted) and isinstance(notice, Notice) and notice.level == "warning"
    assert demoted.as_dict() == {"kind": "playbook_demoted", "id": "deploy", "from": "active", "to": "deprecated",
                                 "ok": 0, "fail": 2}
    assert event_to_dict(demoted)["kind"] == "playbook_demoted"
    assert _status(git_repo, "deploy") == "deprecated"
    assert not service.feedback("deploy", "meh", for_model=False).ok


def test_a_run_from_a_playbook_skill_records_its_outcome(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy")
    service = PlaybookService(git_repo, lambda event: None)
    assert service.record_skill_outcome("fix-with-test", True) is None
    assert service.record_skill_outcome("playbook-deploy", True).ok  # type: ignore[union-attr]
    assert service.record_of("deploy").ok == 1  # type: ignore[union-attr]


def test_recall_finds_the_active_playbook_a_request_matches_in_a_trusted_repository(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    service = PlaybookService(git_repo, lambda event: None)
    assert service.recall("在沙箱里构建") is None
    TrustStore.for_env().trust(git_repo, 0.0)
    hit = service.recall("在沙箱里构建")
    assert hit is not None and hit.playbook.id == "windows-sandbox-build"
    assert service.recall("回滚数据库迁移") is None  # that one is a draft
    assert service.recall("hello") is None


def test_the_command_lists_shows_and_changes_playbooks(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    service = PlaybookService(git_repo, lambda event: None, DenyAll().decide)
    listed = asyncio.run(service.command("list"))
    assert listed.title == "Playbooks (7)" and "active     dsh-host  1 ok · 2 fail" in listed.lines
    assert asyncio.run(service.command("")) == listed
    shown = asyncio.run(service.command("show dsh-host"))
    assert shown.title == "Playbook dsh-host" and "offered as the skill playbook-dsh-host" in shown.lines
    assert "3. 重启 DSH" in shown.lines
    assert asyncio.run(service.command("deprecate dsh-host")).lines == ()
    assert _status(git_repo, "dsh-host") == "deprecated"
    assert asyncio.run(service.command("draft dsh-host")).title == "Playbook 'dsh-host' is now draft (was deprecated)."
    refused = asyncio.run(service.command("promote dsh-host"))
    assert refused.level == "warning" and _status(git_repo, "dsh-host") == "draft"
    assert asyncio.run(service.command("stats")).lines[0].startswith("playbooks: 7 (4 active, 2 draft, 1 deprecated)")
    assert asyncio.run(service.command("show nope")).level == "error"
    assert asyncio.run(service.command("frobnicate")).title == f"Usage: {USAGE}"
    assert asyncio.run(service.command("gates")).title == GATES_LATER


def test_a_malformed_playbook_in_the_list_is_a_warning_notice(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "ok", "Fine")
    (repo_playbooks(git_repo) / "bad.md").write_text("---\nid: bad\n---\n", encoding="utf-8")
    events: list[object] = []
    listed = asyncio.run(PlaybookService(git_repo, events.append).command("list"))
    assert listed.title == "Playbooks (1)"
    assert events == [Notice("repository playbook .agent/playbooks/bad.md: title: is missing; skipped", "warning")]


def test_one_shared_verb_recalls_nothing_but_two_meaningful_words_do(tmp_path) -> None:
    from ljtui.core.playbooks.model import Playbook, PlaybookStats
    from ljtui.core.playbooks.service import shared_words

    playbook = Playbook("add-longest-word", "add longest_word", "active", "project", ("words",),
                        "add longest_word", "", "", None, PlaybookStats(), "", "repository")
    assert shared_words("add a retry to the client", playbook) == {"add"}
    assert shared_words("add shortest_word", playbook) == {"add", "word"}
    assert shared_words("为 DSH 开发插件", Playbook("dsh", "为 DSH 开发…Host 插件", "active", "project", (),
                                               "开发 DSH 插件", "", "", None, PlaybookStats(), "", "repository")) >= {"dsh"}
