"""The playbook tools as the agent calls them: drafts only, search and get within trust, promotion asks the user."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.tools import agent_tools
from ljtui.core.approval import ApprovalRequest, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.events import ApprovalRequested, Event
from ljtui.core.playbooks.events import PlaybookDemoted
from ljtui.core.playbooks.service import PROMOTE_KIND, PlaybookService
from ljtui.core.playbooks.store import PlaybookStore
from ljtui.core.tools import ToolContext, ToolResult, ToolServices
from ljtui.core.trust import TrustStore
from tests.core.playbooks.helpers import repo_playbooks, write_fixture_library, write_playbook


class Session:
    """The agent's tools with a session's permissions asking a scripted user."""

    def __init__(self, root: Path, answers: list[str] | None = None) -> None:
        self.root = root
        self.events: list[Event] = []
        self.approver = ScriptedApprover({PROMOTE_KIND: list(answers or [])})
        self.permissions = Permissions(self.ask, self.events.append)
        self.tools = agent_tools()

    async def ask(self, request: ApprovalRequest):  # as Engine.ask: an event, then the approver
        self.events.append(ApprovalRequested(request.kind, request.title, request.subject))
        return await self.approver.decide(request)

    async def call(self, name: str, **args: object) -> ToolResult:
        ctx = ToolContext(self.root, 1, "call-1", "chat", self.events.append, Config(),
                          ToolServices(permissions=self.permissions))
        return await self.tools.call(name, args, ctx)


async def test_save_makes_a_draft_from_the_runs_plan_and_pitfalls(git_repo: Path) -> None:
    session = Session(git_repo)
    result = await session.call("playbook_save", title="为 DSH 开发并热装本地 Host 插件", when_to_use="开发 DSH 插件时",
                                tags=["dsh"], sop=["写插件", "npm test", "重启 DSH"], pitfalls=["重装不会重新 import"],
                                evidence=["npm test: 68 pass"])
    assert result.ok and result.summary == "saved draft playbook dsh-host", result.content
    assert "Only the user can make it active" in result.content and "not trusted" in result.content
    text = (repo_playbooks(git_repo) / "dsh-host.md").read_text(encoding="utf-8")
    assert 'status: "draft"' in text and "1. 写插件\n2. npm test\n3. 重启 DSH" in text
    assert "## Pitfalls\n\n- 重装不会重新 import" in text and "## Evidence\n\n- npm test: 68 pass" in text


async def test_bad_arguments_are_tool_errors_the_model_reads(git_repo: Path) -> None:
    session = Session(git_repo)
    for args in ({"title": "x", "when_to_use": "y", "sop": "not a list"},
                 {"title": "", "when_to_use": "y", "sop": ["a"]},
                 {"title": "x", "when_to_use": "y", "sop": ["a\x00"]},
                 {"title": "x", "when_to_use": "y", "sop": ["a"], "scope": "everywhere"},
                 {"title": "x\x1b[2J", "when_to_use": "y", "sop": ["a"]}):
        result = await session.call("playbook_save", **args)
        assert not result.ok and result.content.startswith("error:"), args
    assert not (await session.call("playbook_search", query="x", include_drafts="yes")).ok
    assert not (await session.call("playbook_feedback", id="nope", outcome="ok")).ok
    assert PlaybookStore(git_repo).load(for_model=False).playbooks == []


async def test_search_and_get_see_repository_playbooks_only_once_trusted(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    session = Session(git_repo)
    hidden = await session.call("playbook_search", query="沙箱构建")
    assert hidden.ok and "no playbook matches" in hidden.content and "not trusted" in hidden.content
    assert not (await session.call("playbook_get", id="windows-sandbox-build")).ok
    TrustStore.for_env().trust(git_repo, 0.0)
    found = await session.call("playbook_search", query="沙箱构建")
    assert found.content.startswith("18.12  windows-sandbox-build  [active, 2 ok, 1 fail]  Windows 沙箱里跑构建")
    drafts = await session.call("playbook_search", query="数据库回滚")
    assert "no playbook matches" in drafts.content
    drafts = await session.call("playbook_search", query="数据库回滚", include_drafts=True)
    assert "pb-1a2b3c4d  [draft" in drafts.content
    got = await session.call("playbook_get", id="pb-1a2b3c4d")
    assert got.ok and "title: 数据库迁移回滚" in got.content and "This playbook is draft: not proven" in got.content
    assert "1. 停止服务" in got.content


async def test_promote_asks_the_user_and_only_a_yes_makes_it_active(git_repo: Path, isolated_env: Path) -> None:
    write_playbook(isolated_env / "ljtui" / "playbooks", "deploy", "Deploy", status="draft", scope="user")
    refused = Session(git_repo)
    result = await refused.call("playbook_promote", id="deploy")
    assert not result.ok and "the user did not promote" in result.content and "Do not ask again" in result.content
    assert [e.kind for e in refused.events] == ["approval_requested"]
    accepted = Session(git_repo, ["yes"])
    result = await accepted.call("playbook_promote", id="deploy")
    assert result.ok and "now active" in result.content
    [request] = accepted.approver.asked
    assert "Once active it is offered to the model as the skill playbook-deploy in every repository" in request.lines[-1]


async def test_feedback_records_and_demotes_with_an_event(git_repo: Path, isolated_env: Path) -> None:
    write_playbook(isolated_env / "ljtui" / "playbooks", "deploy", "Deploy", scope="user", ok=1, fail=1)
    session = Session(git_repo)
    assert "1 ok, 2 fail" in (await session.call("playbook_feedback", id="deploy", outcome="fail")).content
    assert [e for e in session.events if isinstance(e, PlaybookDemoted)] == [
        PlaybookDemoted("deploy", "active", "draft", 1, 2)]


async def test_the_sessions_service_is_used_when_there_is_one(git_repo: Path) -> None:
    seen: list[Event] = []
    service = PlaybookService(git_repo, seen.append, session_id=lambda: "session-1")
    ctx = ToolContext(git_repo, 1, "c", "chat", lambda e: None, Config(), ToolServices(playbooks=service))
    result = await agent_tools().call("playbook_save", {"title": "Deploy", "when_to_use": "x", "sop": ["a"]}, ctx)
    assert result.ok and [e.kind for e in seen] == ["playbook_saved"]
    assert 'source_session: "session-1"' in (repo_playbooks(git_repo) / "deploy.md").read_text()
