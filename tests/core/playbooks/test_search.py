"""Search (PB-5) on a fixture library in English, Chinese and Japanese: the seed's weights, proven first."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.playbooks.search import HIT_BODY, keywords, nudge, search
from ljtui.core.playbooks.store import PlaybookStore
from tests.core.playbooks.helpers import repo_playbooks, write_fixture_library


@pytest.fixture
def library(git_repo: Path) -> list:
    write_fixture_library(repo_playbooks(git_repo))
    return PlaybookStore(git_repo).load(for_model=False).playbooks


def ranked(library: list, text: str, tags: tuple[str, ...] = ()) -> list[tuple[str, float]]:
    return [(hit.playbook.id, hit.score) for hit in search(library, text, tags)]


def test_keywords_are_words_and_cjk_bigrams() -> None:
    assert keywords("Fix the BUILD, a build again") == ("fix", "the", "build", "again")
    assert keywords("沙箱构建") == ("沙箱", "箱构", "构建")
    assert keywords("在 Windows 沙箱里") == ("在", "windows", "沙箱", "箱里")
    assert keywords("リリース手順") == ("リリ", "リー", "ース", "ス手", "手順")
    assert keywords("배포 스크립트") == ("배포", "스크", "크립", "립트")


def test_an_english_query_scores_title_tags_when_and_body_and_the_proven_one_wins_a_tie(library: list) -> None:
    # python-build-cache and flaky-build-fix both hit title 5 + tags 4 + when 3 + body 1 = 13; 3 ok vs 3 fail.
    assert ranked(library, "build") == [("python-build-cache", 13.375), ("flaky-build-fix", 12.625),
                                        ("windows-sandbox-build", 5.125), ("release-python-package", 1.0)]


def test_tags_score_six_exact_and_four_partial_case_insensitively(library: list) -> None:
    assert ranked(library, "", ("Python",)) == [("python-build-cache", 6.375), ("release-python-package", 6.0)]
    assert ranked(library, "", ("pyth",)) == [("python-build-cache", 4.375), ("release-python-package", 4.0)]
    assert ranked(library, "python release", ("release",)) == [
        ("release-python-package", 26.0), ("python-build-cache", 10.375), ("japanese-release", 10.0)]


def test_a_chinese_query_matches_without_spaces(library: list) -> None:
    # 沙箱 and 构建 hit the title (5 each), when_to_use (3 each) and the body (1 each); 2 ok, 1 fail.
    assert ranked(library, "沙箱构建") == [("windows-sandbox-build", 18.125)]
    assert ranked(library, "数据库回滚") == [("pb-1a2b3c4d", 29.0)]
    assert ranked(library, "热装插件")[0][0] == "dsh-host"


def test_a_japanese_query_matches_too(library: list) -> None:
    assert ranked(library, "リリース ビルド") == [("japanese-release", 35.0)]


def test_the_record_nudges_less_than_one_body_hit_and_never_makes_a_match(library: list) -> None:
    assert 0 < nudge(10**6, 0) < HIT_BODY and -HIT_BODY < nudge(0, 10**6) < 0 and nudge(0, 0) == 0
    assert ranked(library, "kubernetes") == []
    assert search(library, "build", limit=1)[0].playbook.id == "python-build-cache"
