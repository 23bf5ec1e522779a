"""``@`` mentions: the candidates git offers (ignore, secret and state rules), the fuzzy ranking, and what a
message's mentions attach, with real files in a real git repository."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from ljtui.core.mentions import Candidates, list_candidates, rank
from ljtui.core.mentions_attach import MAX_FILE_BYTES, MAX_LISTING_ENTRIES, MAX_TOTAL_BYTES, attach, mentions
from ljtui.core.mentions_images import MAX_IMAGE_BYTES, takes_images
from ljtui.core.secret_files import SecretFiles
from tests.conftest import git

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24
"""The start of a png: enough for the type check."""


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """The sample repository with an untracked file, an ignored folder, secrets and ljtui's state."""
    (git_repo / ".gitignore").write_text("build/\n", encoding="utf-8")
    (git_repo / "src").mkdir()
    (git_repo / "src" / "main_loop.py").write_text("loop = 1\n", encoding="utf-8")
    (git_repo / "docs" / "domain").mkdir(parents=True)
    (git_repo / "docs" / "domain" / "notes.md").write_text("notes\n", encoding="utf-8")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.py").write_text("built\n", encoding="utf-8")
    (git_repo / ".env").write_text("API_KEY=hidden\n", encoding="utf-8")
    (git_repo / "id_rsa").write_text("-----BEGIN KEY-----\n", encoding="utf-8")
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "state.json").write_text("{}\n", encoding="utf-8")
    git(git_repo, "add", ".gitignore", "src/main_loop.py")
    return git_repo


def _attach(text: str, root: Path, *, images: bool = False):
    return attach(text, root, SecretFiles(), None, images=images)


def test_candidates_are_git_s_files_tracked_and_untracked_without_ignored_secret_or_state(repo: Path) -> None:
    found = list_candidates(repo, SecretFiles())

    assert found.source == "git" and not found.cut
    assert set(found.paths) == {".gitignore", "README.md", "app.py", "src/main_loop.py", "docs/domain/notes.md",
                                "src/", "docs/", "docs/domain/"}


def test_the_user_s_allow_globs_offer_a_secret_file(repo: Path) -> None:
    assert ".env" in list_candidates(repo, SecretFiles.allowing([".env"])).paths


def test_outside_git_a_bounded_walk_stands_in_and_says_when_it_was_cut(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "dep.js").write_text("x\n", encoding="utf-8")

    whole = list_candidates(tmp_path, SecretFiles())
    cut = list_candidates(tmp_path, SecretFiles(), limit=2)

    assert whole.source == "walk" and whole.paths == ("a.py", "b.py", "c.py") and not whole.cut
    assert cut.cut and len(cut.paths) == 2


def test_a_big_repository_s_listing_is_cut(repo: Path) -> None:
    assert list_candidates(repo, SecretFiles(), limit=2).cut


def test_ranking_prefers_the_file_name_and_adjacent_matches() -> None:
    paths = ("docs/domain/notes.md", "src/main_loop.py", "mainly/other.txt", "README.md")

    assert rank("main", paths)[0] == "src/main_loop.py"
    assert rank("rdme", paths) == ["README.md"]
    assert rank("ml", paths)[0] == "src/main_loop.py"
    assert rank("zzz", paths) == []
    assert rank("", ("a/", "b.py")) == ["b.py", "a/"]
    assert rank("docs/", ("docs/", "docs/a/", "docs/a/x.md", "docs/guide.md")) == [
        "docs/guide.md", "docs/a/", "docs/a/x.md"]


def test_mentions_are_words_that_start_with_an_at_and_quotes_hold_spaces() -> None:
    assert mentions('see @a.py, @"my notes.md" and (@src/) but not me@example.com or @') == [
        "a.py,", "my notes.md", "src/)"]


def test_a_file_and_a_folder_are_attached_as_blocks_and_named(repo: Path) -> None:
    got = _attach("explain @app.py and @src/, please.", repo)

    context = got.context()
    assert '<file path="app.py">\ndef greet(name):\n    return \'hello \' + name\n</file>' in context
    assert '<folder path="src/">\nmain_loop.py\n</folder>' in context
    assert got.shown == ["app.py (44 B)", "src/ (listing, 1 entry)"] and not got.problems


def test_the_repository_root_s_listing_shows_folders_with_their_file_counts(repo: Path) -> None:
    context = _attach("@./", repo).context()

    assert '<folder path="./">\ndocs/ (1 files)\nsrc/ (1 files)\n.gitignore\nREADME.md\napp.py\n</folder>' in context


def test_secrets_state_outside_paths_missing_and_binary_files_are_refused_each_saying_why(
        repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("far\n", encoding="utf-8")
    os.symlink(tmp_path / "outside.txt", repo / "link.txt")
    (repo / "blob.bin").write_bytes(b"\0\1\2")

    got = _attach("@.env @id_rsa @.agent/state.json @../outside.txt @link.txt @nope.py @blob.bin", repo)

    assert got.context() == "" and got.images == []
    assert got.problems == [
        "@.env: not attached, it looks like a secret file (it matches '.env*'); the user can allow it with "
        "security.allow_secret_files in their own config file.",
        "@id_rsa: not attached, it looks like a secret file (it matches 'id_rsa*'); the user can allow it with "
        "security.allow_secret_files in their own config file.",
        "@.agent/state.json: not attached, it is ljtui's or git's own state.",
        "@../outside.txt: not attached, it is outside the repository.",
        "@link.txt: not attached, it is outside the repository.",
        "@nope.py: not attached, there is no such file in the repository.",
        "@blob.bin: not attached, it is a binary file.",
    ]


def test_a_big_file_is_cut_and_the_message_s_total_is_bounded(repo: Path) -> None:
    for name in ("big1.txt", "big2.txt", "big3.txt", "big4.txt"):
        (repo / name).write_text("x" * (MAX_FILE_BYTES + 10), encoding="utf-8")

    got = _attach("@big1.txt @big2.txt @big3.txt @big4.txt", repo)

    assert got.used == MAX_TOTAL_BYTES
    assert got.context().count("[cut: the first 65,536 of its 65,546 bytes are attached]") == 3
    assert got.problems[-1] == "@big4.txt: cut, the first 8,192 of its 65,546 bytes are attached."


def test_a_listing_is_bounded(repo: Path) -> None:
    paths = tuple(f"many/f{i:04}.txt" for i in range(MAX_LISTING_ENTRIES + 5))
    (repo / "many").mkdir()

    context = attach("@many/", repo, SecretFiles(), Candidates(paths), images=False).context()

    assert "f0199.txt" in context and "f0200.txt" not in context
    assert "[… 5 more entries not listed]" in context


def test_an_image_is_attached_when_the_model_takes_images_and_refused_otherwise(repo: Path) -> None:
    (repo / "shot.png").write_bytes(PNG)

    taken = _attach("what is wrong in @shot.png?", repo, images=True)
    refused = _attach("what is wrong in @shot.png?", repo)

    assert [(i.media_type, base64.b64decode(i.data), i.name) for i in taken.images] == [
        ("image/png", PNG, "shot.png")]
    assert taken.shown == ["shot.png (image, 32 B)"] and taken.context() == ""
    assert refused.images == [] and refused.problems == [
        "@shot.png: not attached, the model in use does not take images."]


def test_an_image_outside_the_repository_is_attached_by_its_full_path(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "screen shot.png").write_bytes(PNG)

    got = _attach(f'@"{tmp_path}/screen shot.png"', repo, images=True)

    assert len(got.images) == 1 and not got.problems


def test_an_image_that_is_not_what_its_name_says_or_too_big_is_refused(repo: Path) -> None:
    (repo / "fake.png").write_bytes(b"GIF89a" + b"\0" * 10)
    with (repo / "huge.jpg").open("wb") as handle:
        handle.truncate(MAX_IMAGE_BYTES + 1)

    got = _attach("@fake.png @huge.jpg", repo, images=True)

    assert got.images == []
    assert got.problems == ["@fake.png: its contents are not a png image; not attached.",
                            "@huge.jpg: 5.0 MB is more than the 5.0 MB an image may be; not attached."]


@pytest.mark.parametrize(("provider", "model", "setting", "takes"), [
    ("anthropic", "claude-sonnet-4-5", None, True),
    ("anthropic", "claude-3-5-haiku-latest", None, True),
    ("anthropic", "claude-2.1", None, False),
    ("openai-compatible", "gpt-4o-mini", None, True),
    ("openai-compatible", "gpt-5", None, True),
    ("openai-compatible", "o3-mini", None, False),
    ("openai-compatible", "llava:13b", None, True),
    ("openai-compatible", "qwen2.5-vl-7b", None, True),
    ("openai-compatible", "gemma3:4b", None, True),
    ("openai-compatible", "qwen2.5-coder:7b", None, False),
    ("openai-compatible", "qwen2.5-coder:7b", True, True),
    ("anthropic", "claude-sonnet-4-5", False, False),
    ("scripted", "scripted", None, False),
])
def test_which_models_take_images(provider: str, model: str, setting: bool | None, takes: bool) -> None:
    assert takes_images(provider, model, setting) is takes
