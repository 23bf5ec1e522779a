"""Both libraries on disk: bad files skipped with a warning naming file and field, links refused, trust for the
model, atomic writes under a lock."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ljtui.core.playbooks.model import MAX_FILE_BYTES
from ljtui.core.playbooks.service import PlaybookService
from ljtui.core.playbooks.store import PlaybookStore
from ljtui.core.trust import TrustStore
from tests.conftest import git
from tests.core.playbooks.helpers import repo_playbooks, write_playbook


def _ids(store: PlaybookStore, *, for_model: bool = False) -> list[str]:
    return [p.id for p in store.load(for_model=for_model).playbooks]


def test_a_malformed_playbook_is_skipped_with_a_warning_naming_file_and_field(git_repo: Path) -> None:
    folder = repo_playbooks(git_repo)
    write_playbook(folder, "good", "Good one")
    write_playbook(folder, "bad-status", "Bad", status="golden")
    (folder / "not-yaml.md").write_text("---\nid: [unclosed\n---\n", encoding="utf-8")
    (folder / "binary.md").write_bytes(b"\xff\xfe---\n")
    (folder / "huge.md").write_text("x" * (MAX_FILE_BYTES + 1), encoding="utf-8")
    (folder / "notes.txt").write_text("not a playbook file name", encoding="utf-8")
    library = PlaybookStore(git_repo).load(for_model=False)
    assert [p.id for p in library.playbooks] == ["good"]
    warnings = "\n".join(library.warnings)
    assert ".agent/playbooks/bad-status.md: status: 'golden' is not one of draft, active, deprecated; skipped" \
        in warnings
    assert ".agent/playbooks/not-yaml.md: front matter: is not valid YAML at line 2; skipped" in warnings
    assert ".agent/playbooks/binary.md: file: not UTF-8 text; skipped" in warnings
    assert f".agent/playbooks/huge.md: file: larger than {MAX_FILE_BYTES} bytes; skipped" in warnings
    assert "notes.txt" not in warnings


def test_a_search_over_a_library_with_broken_files_still_answers(git_repo: Path) -> None:
    folder = repo_playbooks(git_repo)
    write_playbook(folder, "deploy", "Deploy the site", tags=["deploy"])
    (folder / "broken.md").write_text("---\nid: broken\nstats: {uses: many}\n---\n", encoding="utf-8")
    notices: list[object] = []
    hits, library = PlaybookService(git_repo, notices.append).search("deploy", for_model=False)
    assert [h.playbook.id for h in hits] == ["deploy"]
    assert any("broken.md: title: is missing" in w for w in library.warnings)


def test_links_in_the_repository_are_refused_and_nothing_is_read_through_them(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_playbook(outside, "secret", "Outside the repository")
    folder = repo_playbooks(git_repo)
    write_playbook(folder, "inside", "Inside")
    (folder / "secret.md").symlink_to(outside / "secret.md")
    library = PlaybookStore(git_repo).load(for_model=False)
    assert [p.id for p in library.playbooks] == ["inside"]
    assert any("secret.md refused: it is a symbolic link" in w for w in library.warnings)
    os.unlink(folder / "secret.md")
    os.rename(folder, git_repo / "real")
    (git_repo / ".agent" / "playbooks").symlink_to(outside)
    library = PlaybookStore(git_repo).load(for_model=False)
    assert library.playbooks == [] and any(".agent/playbooks is a symbolic link" in w for w in library.warnings)


def test_the_model_sees_repository_playbooks_only_in_a_trusted_repository(git_repo: Path, isolated_env: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "from-repo", "From the repository")
    write_playbook(isolated_env / "ljtui" / "playbooks", "mine", "My own", scope="user")
    store = PlaybookStore(git_repo)
    assert _ids(store) == ["from-repo", "mine"]
    untrusted = store.load(for_model=True)
    assert [p.id for p in untrusted.playbooks] == ["mine"] and untrusted.hidden == 1
    assert any("not offered to the model because this repository is not trusted" in w for w in untrusted.warnings)
    TrustStore.for_env().trust(git_repo, 0.0)
    assert _ids(store, for_model=True) == ["from-repo", "mine"]


def test_the_repository_playbook_shadows_a_users_with_the_same_id(git_repo: Path, isolated_env: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "same", "The repository's")
    write_playbook(isolated_env / "ljtui" / "playbooks", "same", "Mine")
    library = PlaybookStore(git_repo).load(for_model=False)
    assert [(p.id, p.title) for p in library.playbooks] == [("same", "The repository's")]
    assert any("same id as the repository's" in w for w in library.warnings)


def test_a_write_is_atomic_and_leaves_no_temporary_file(git_repo: Path) -> None:
    service = PlaybookService(git_repo, lambda event: None)
    done = service.save("Deploy", "when deploying", sections={"SOP": ["push"]})
    assert done.ok
    folder = repo_playbooks(git_repo)
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", ".lock", "deploy.md"]
    (folder / "deploy.md").chmod(0o444)
    assert service.feedback("deploy", "ok", for_model=False).ok
    assert "  ok: 1" in (folder / "deploy.md").read_text()
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", ".lock", "deploy.md"]


def test_a_playbook_folder_that_is_a_file_is_reported_when_saving(git_repo: Path) -> None:
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "playbooks").write_text("", encoding="utf-8")
    done = PlaybookService(git_repo, lambda event: None).save("Deploy", "x", sections={"SOP": ["push"]})
    assert not done.ok and ".agent/playbooks is not a folder" in done.message


def test_feedback_from_many_threads_loses_no_count(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "busy", "Busy", status="draft")
    service = PlaybookService(git_repo, lambda event: None)
    threads = [threading.Thread(target=service.feedback, args=("busy", "ok"), kwargs={"for_model": False})
               for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    [playbook] = PlaybookStore(git_repo).load(for_model=False).playbooks
    assert (playbook.stats.uses, playbook.stats.ok) == (12, 12)


def test_git_sees_the_playbooks_and_not_the_lock_or_temp_files(git_repo: Path) -> None:
    service = PlaybookService(git_repo, lambda event: None)
    assert service.save("Deploy", "x", sections={"SOP": ["push"]}).ok
    (repo_playbooks(git_repo) / ".deploy.md.1.tmp").write_text("left by a crash", encoding="utf-8")
    assert git(git_repo, "status", "--porcelain", "-uall") == "?? .agent/playbooks/deploy.md\n"
