"""Ids of saved playbooks (PB-2): ASCII kebab-case from the title, a content hash without ASCII, suffixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.playbooks.service import PlaybookService
from ljtui.core.playbooks.store import PlaybookStore


def _save(root: Path, title: str, scope: str = "project") -> str:
    done = PlaybookService(root, lambda event: None).save(title, "when", sections={"SOP": ["step"]}, scope=scope)
    assert done.ok and done.playbook is not None, done.message
    return done.playbook.id


@pytest.mark.parametrize(("title", "expected"), [
    ("Release a Python package", "release-a-python-package"),
    ("为 DSH 开发…Host 插件", "dsh-host"),
    ("Windows 沙箱里跑构建", "windows"),
    ("  Fix: the  flaky--build!  ", "fix-the-flaky-build"),
])
def test_an_id_is_the_ascii_words_of_the_title_in_kebab_case(git_repo: Path, title: str, expected: str) -> None:
    assert _save(git_repo, title) == expected
    assert (git_repo / ".agent" / "playbooks" / f"{expected}.md").is_file()


def test_a_title_without_ascii_gets_pb_and_eight_hex_characters_and_keeps_its_title(git_repo: Path) -> None:
    pid = _save(git_repo, "数据库迁移回滚")
    assert pid.startswith("pb-") and len(pid) == len("pb-") + 8 and int(pid[3:], 16) >= 0
    [playbook] = PlaybookStore(git_repo).load(for_model=False).playbooks
    assert (playbook.id, playbook.title) == (pid, "数据库迁移回滚")


def test_a_taken_id_gets_a_numeric_suffix_across_both_libraries_and_even_over_a_broken_file(git_repo: Path) -> None:
    assert _save(git_repo, "Deploy it") == "deploy-it"
    assert _save(git_repo, "deploy IT!") == "deploy-it-2"
    assert _save(git_repo, "Deploy it", scope="user") == "deploy-it-3"
    (git_repo / ".agent" / "playbooks" / "broken.md").write_text("not a playbook", encoding="utf-8")
    assert _save(git_repo, "Broken") == "broken-2"
    assert (git_repo / ".agent" / "playbooks" / "broken.md").read_text() == "not a playbook"
    ids = {p.id for p in PlaybookStore(git_repo).load(for_model=False).playbooks}
    assert ids == {"deploy-it", "deploy-it-2", "deploy-it-3", "broken-2"}
