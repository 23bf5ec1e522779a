"""A playbook file (PB-1): written in PB-1's shape, read back as untrusted input, each problem naming its field."""

from __future__ import annotations

import pytest

from ljtui.core.playbooks.model import PlaybookError, parse_playbook, render_playbook
from tests.core.playbooks.helpers import playbook_text

SEED_FILE = """\
---
id: "windows-sandbox-build"
title: "Windows 沙箱里跑构建"
status: "active"
scope: "project"
tags: ["windows", "sandbox", "build"]
when_to_use: "需要在沙箱内执行 pnpm/node 构建时"
created: 2026-01-01T00:00:00.000Z
updated: "2026-01-02T00:00:00.000Z"
source_session: "abc123"
stats:
  uses: 3
  ok: 2
  fail: 1
  lastUsed_typo_is_refused: null
---
"""


def test_a_file_round_trips_and_keeps_its_body_byte_for_byte() -> None:
    text = playbook_text("dsh-host", "为 DSH 开发…Host 插件", tags=["dsh"], when="开发插件时",
                         sop=["写代码", "npm test\n   （在插件目录）"], body="\t- 重装不会重新 import\n")
    playbook, notes = parse_playbook(text, "dsh-host")
    assert notes == ()
    assert (playbook.title, playbook.status, playbook.tags, playbook.stats.ok) == ("为 DSH 开发…Host 插件", "active",
                                                                                   ("dsh",), 0)
    assert playbook.sop_steps() == ("写代码", "npm test （在插件目录）")
    assert set(playbook.sections) >= {"When to use", "SOP", "Pitfalls"}
    again, _ = parse_playbook(render_playbook(playbook), "dsh-host")
    assert again == playbook and render_playbook(again) == render_playbook(playbook)


def test_the_seeds_chinese_headings_are_read_as_the_sections() -> None:
    text = playbook_text("x", "x", sop=()).split("# x\n")[0] + "# x\n\n## 何时使用\n\n构建时\n\n## SOP\n\n1. 装\n\n## 坑\n\n- 慢\n"
    playbook, _ = parse_playbook(text, "x")
    assert playbook.sections["When to use"] == "构建时" and playbook.sections["Pitfalls"] == "- 慢"
    assert playbook.sop_steps() == ("装",)


def test_an_unquoted_yaml_time_is_accepted_and_an_unknown_stats_key_is_refused() -> None:
    with pytest.raises(PlaybookError) as caught:
        parse_playbook(SEED_FILE, "windows-sandbox-build")
    assert caught.value.field == "stats" and "lastUsed_typo_is_refused" in caught.value.problem
    fixed, _ = parse_playbook(SEED_FILE.replace("  lastUsed_typo_is_refused: null\n", ""), "windows-sandbox-build")
    assert fixed.created == "2026-01-01T00:00:00.000Z" and fixed.source_session == "abc123"


BAD_FIELDS = [
    ('status: "active"', 'status: "golden"', "status"),
    ('id: "x"', 'id: "../x"', "id"),
    ('id: "x"', 'id: "y"', "id"),
    ('title: "x"', "title: 12", "title"),
    ('title: "x"', 'title: "a\\u001b[31mred"', "title"),
    ("tags: []", "tags: \"build\"", "tags"),
    ("tags: []", f"tags: {['t'] * 17}", "tags"),
    ('scope: "project"', 'scope: "global"', "scope"),
    ('created: "2026-01-01T00:00:00.000Z"', 'created: "yesterday"', "created"),
    ("source_session: null", 'source_session: "../../etc"', "source_session"),
    ("  ok: 0", "  ok: -1", "stats.ok"),
    ("  fail: 0", "  fail: true", "stats.fail"),
    ("  last_outcome: null", '  last_outcome: "meh"', "stats.last_outcome"),
    ("stats:\n", "stats: 3\nx:\n", "stats"),
    ("---\nid", "---\nbase: &a [1]\nother: *a\nid", "front matter"),
    ("1. Do the thing", "\n".join(f"- step {n}" for n in range(21)), "SOP"),
    ("## Pitfalls", "## Pitfalls\n\x1b]0;pwned\x07", "body"),
]


@pytest.mark.parametrize(("old", "new", "field"), BAD_FIELDS, ids=[f"{f}-{i}" for i, (_, _, f) in enumerate(BAD_FIELDS)])
def test_every_bad_field_is_an_error_naming_the_field(old: str, new: str, field: str) -> None:
    text = playbook_text("x", "x")
    assert old in text
    with pytest.raises(PlaybookError) as caught:
        parse_playbook(text.replace(old, new, 1), "x")
    assert caught.value.field == field


def test_a_file_without_front_matter_is_an_error_not_a_crash() -> None:
    for text in ("", "# just markdown\n", "---\nid: x\n", "---\n- a list\n---\n"):
        with pytest.raises(PlaybookError) as caught:
            parse_playbook(text, "x")
        assert caught.value.field == "front matter"
