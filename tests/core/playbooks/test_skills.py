"""Active playbooks as skills (PB-6): ``playbook-<id>``, ``when_to_use`` as the description, the SOP as steps."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.skills import load_skills
from ljtui.core.trust import TrustStore
from tests.core.playbooks.helpers import repo_playbooks, write_fixture_library, write_playbook


def test_only_active_playbooks_are_skills_with_when_to_use_and_the_sop(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    TrustStore.for_env().trust(git_repo, 0.0)
    found = load_skills(git_repo)
    offered = sorted(n for n in found.names if n.startswith("playbook-"))
    assert offered == ["playbook-dsh-host", "playbook-japanese-release", "playbook-python-build-cache",
                       "playbook-release-python-package", "playbook-windows-sandbox-build"]
    skill = found.get("/playbook-dsh-host")
    assert skill is not None and skill.source == "playbook"
    assert skill.description == "开发或热装 DSH Host 插件时"
    assert [s.description for s in skill.steps] == ["写插件", "npm test", "重启 DSH"]
    assert [t["depends_on"] for t in skill.task_specs()] == [[], [1], [2]]
    assert "## Pitfalls" in skill.instructions


def test_an_untrusted_repositorys_playbooks_are_not_skills_but_the_users_are(git_repo: Path,
                                                                             isolated_env: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "from-repo", "From the repository")
    write_playbook(isolated_env / "ljtui" / "playbooks", "mine", "Mine", when="", sop=())
    found = load_skills(git_repo)
    assert [n for n in found.names if n.startswith("playbook-")] == ["playbook-mine"]
    mine = found.get("playbook-mine")
    assert mine is not None and mine.description == "Mine" and mine.steps[0].description == "Follow the playbook: Mine"
    assert any("1 repository playbook(s) in .agent/playbooks are not offered" in w for w in found.warnings)


def test_a_malformed_playbook_is_a_skill_warning_and_the_rest_load(git_repo: Path, isolated_env: Path) -> None:
    folder = isolated_env / "ljtui" / "playbooks"
    write_playbook(folder, "good", "Good")
    write_playbook(folder, "bad", "Bad", tags=["x" * 41])
    found = load_skills(None)
    assert "playbook-good" in found.names and "playbook-bad" not in found.names
    assert any(w.endswith("bad.md: tags: is longer than 40 characters; skipped") for w in found.warnings)
    assert "playbook-good" not in load_skills(None, playbooks=False).names
