"""The user's own slash commands: Markdown prompt files in the config dir and, when trusted, the repository's
``.agent/commands`` and ``.claude/commands``; real files in a temp config dir and a real git repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.trust import TrustStore
from ljtui.core.user_commands import (
    MAX_COMMAND_FILE_BYTES, MAX_DEPTH, REPOSITORY, USER, expand_typed, load_commands,
)
from ljtui.core.user_commands_text import expand

REVIEW = """---
description: Review a pull request
argument-hint: [pr-number] [priority]
allowed-tools: Bash(git diff:*)
---
Review PR #$1 with priority $2.

Everything typed: $ARGUMENTS
"""


@pytest.fixture
def commands(isolated_env: Path) -> Path:
    """The user's commands folder (in the temp config dir the tests use)."""
    folder = isolated_env / "ljtui" / "commands"
    folder.mkdir()
    return folder


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def trust(repo: Path) -> None:
    TrustStore.for_env().trust(repo, 1.0)


def test_a_user_command_has_its_front_matter_and_expands_its_arguments(commands: Path) -> None:
    write(commands / "review.md", REVIEW)
    found = load_commands(None)
    assert found.warnings == [] and found.notes == []
    command = found.get("/review")
    assert command is not None and command.source == USER
    assert command.description == "Review a pull request"
    assert command.argument_hint == "[pr-number] [priority]", "Claude Code's unquoted hint is read as written"
    assert command.usage == "/review [pr-number] [priority]"
    assert command.where == str(commands / "review.md")
    assert command.message('42 "very high"') == ('Review PR #42 with priority very high.\n\n'
                                                 'Everything typed: 42 "very high"')


def test_placeholders_are_filled_once_and_missing_words_are_empty() -> None:
    assert expand("Fix $1 then $2 ($ARGUMENTS)", "$ARGUMENTS") == "Fix $ARGUMENTS then  ($ARGUMENTS)"
    assert expand("A $3.", "one two") == "A ."
    assert expand("No placeholder here.", "") == "No placeholder here."
    assert expand("No placeholder here.", "  some words ") == "No placeholder here.\n\nARGUMENTS: some words"
    assert expand("$1 and $2", "'it''s' \"unbalanced") == "'it''s' and \"unbalanced", "bad quotes: split at spaces"


def test_without_front_matter_the_first_line_describes_the_command(commands: Path) -> None:
    write(commands / "explain.md", "\n# Explain the code\n\nExplain $ARGUMENTS simply.\n")
    command = load_commands(None).get("explain")
    assert command is not None
    assert command.description == "Explain the code" and command.argument_hint == ""
    assert command.body == "# Explain the code\n\nExplain $ARGUMENTS simply."


def test_subfolders_give_namespaced_names_and_names_are_lowercased(commands: Path) -> None:
    write(commands / "frontend" / "component.md", "Make a component called $1.")
    write(commands / "Deploy.md", "Deploy it.")
    write(commands / "notes.txt", "not a command")
    write(commands / ".hidden.md", "not a command")
    found = load_commands(None)
    assert found.names == ("deploy", "frontend:component")
    assert found.warnings == []
    hit = expand_typed("/frontend:component Button", found)
    assert hit is not None and hit[1] == "Make a component called Button."
    assert expand_typed("//frontend:component", found) is None
    assert expand_typed("/unknown x", found) is None


def test_folders_deeper_than_the_limit_are_not_read(commands: Path) -> None:
    deep = commands.joinpath(*(f"d{n}" for n in range(MAX_DEPTH + 1)))
    write(deep / "too-deep.md", "deep")
    write(commands.joinpath(*(f"d{n}" for n in range(MAX_DEPTH))) / "ok.md", "fine")
    found = load_commands(None)
    assert found.names == ("d0:d1:d2:ok",)
    assert found.warnings == [f"commands folder {commands}/d0/d1/d2/d3 is more than {MAX_DEPTH} folders down; "
                              f"not read"]


@pytest.mark.parametrize(("name", "content", "problem"), [
    ("big.md", "x" * (MAX_COMMAND_FILE_BYTES + 1), f"larger than {MAX_COMMAND_FILE_BYTES} bytes"),
    ("latin.md", b"caf\xe9", "not UTF-8 text"),
    ("empty.md", "---\ndescription: nothing\n---\n\n", "has no prompt"),
    ("open.md", "---\ndescription: never closed\nbody\n", "front matter is not closed by a --- line"),
    ("alias.md", "---\ndescription: &a x\nargument-hint: *a\n---\nbody\n",
     "front matter uses a YAML alias (*name), which skill files may not"),
    ("list.md", "---\n- a\n- b\n---\nbody\n", "front matter is not a mapping (description, argument-hint)"),
    ("typed.md", "---\ndescription: {a: 1}\n---\nbody\n", "description must be text, not dict"),
    ("long.md", "---\ndescription: " + "d" * 400 + "\n---\nbody\n", "description is longer than 300 characters"),
    ("control.md", "Say \x1b[31mred\x1b[0m", "prompt contains control characters"),
    ("bad name.md", "fine text", "name 'bad name' is not letters, digits, '-' and '_' (at most 64, starting with a "
                                 "letter or digit)"),
])
def test_a_malformed_file_is_skipped_with_a_warning_naming_it(commands: Path, name: str, content: str | bytes,
                                                              problem: str) -> None:
    write(commands / name, content)
    write(commands / "good.md", "Still works.")
    found = load_commands(None)
    assert found.names == ("good",), "the other commands stay"
    assert found.warnings == [f"user command {commands / name}: {problem}; skipped"]


def test_a_builtin_command_keeps_its_name(commands: Path) -> None:
    write(commands / "help.md", "Not the help.")
    write(commands / "plan.md", "Not the plan.")
    found = load_commands(None, reserved={"help", "plan"})
    assert found.names == ()
    assert found.notes == [f"user command {commands / 'help.md'} is not used: /help is a built-in command",
                           f"user command {commands / 'plan.md'} is not used: /plan is a built-in command"]


def test_two_files_of_one_name_keep_the_first(commands: Path) -> None:
    write(commands / "fix.md", "first")
    write(commands / "FIX.md", "second")
    found = load_commands(None)
    assert found.get("fix").body == "second"  # type: ignore[union-attr]
    assert found.warnings == [f"user command {commands / 'fix.md'}: /fix is already {commands / 'FIX.md'}; skipped"]


def test_an_untrusted_repository_s_commands_are_ignored_with_one_notice(commands: Path, git_repo: Path) -> None:
    write(git_repo / ".claude" / "commands" / "a.md", "from the repository")
    write(git_repo / ".claude" / "commands" / "ns" / "b.md", "from the repository")
    write(git_repo / ".agent" / "commands" / "c.md", "from the repository")
    found = load_commands(git_repo)
    assert found.names == ()
    assert found.warnings == [
        "1 repository command(s) in .agent/commands are ignored because this repository is not trusted; "
        "`ljtui trust` enables them",
        "2 repository command(s) in .claude/commands are ignored because this repository is not trusted; "
        "`ljtui trust` enables them"]


def test_a_trusted_repository_s_commands_are_read_and_the_user_s_win(commands: Path, git_repo: Path) -> None:
    write(commands / "review.md", "mine")
    write(git_repo / ".claude" / "commands" / "review.md", "the repository's")
    write(git_repo / ".claude" / "commands" / "frontend" / "component.md", REVIEW)
    write(git_repo / ".claude" / "commands" / "ship.md", "from .claude")
    write(git_repo / ".agent" / "commands" / "ship.md", "from .agent")
    trust(git_repo)
    found = load_commands(git_repo)
    assert found.names == ("frontend:component", "review", "ship")
    assert found.get("review").body == "mine"  # type: ignore[union-attr]
    assert found.get("ship").body == "from .agent"  # type: ignore[union-attr]
    component = found.get("frontend:component")
    assert component is not None and component.source == REPOSITORY
    assert component.where == ".claude/commands/frontend/component.md"
    assert found.notes == [
        f"repository command .claude/commands/review.md is not used: /review from {commands / 'review.md'} wins",
        "repository command .claude/commands/ship.md is not used: /ship from .agent/commands/ship.md wins"]


def test_links_in_the_repository_are_refused(commands: Path, git_repo: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside" / "secret.md", "read through a link")
    write(git_repo / ".claude" / "commands" / "ok.md", "fine")
    os.symlink(outside, git_repo / ".claude" / "commands" / "linked.md")
    os.symlink(outside.parent, git_repo / ".claude" / "commands" / "folder")
    (git_repo / ".agent").mkdir()
    os.symlink(outside.parent, git_repo / ".agent" / "commands")
    trust(git_repo)
    found = load_commands(git_repo)
    assert found.names == ("ok",)
    assert found.warnings == [
        "repository commands in .agent/commands refused: .agent/commands is a symbolic link, and ljtui reads "
        "repository commands only from real folders",
        "repository command .claude/commands/folder refused: it is a symbolic link, and ljtui reads repository "
        "commands only from real files and folders",
        "repository command .claude/commands/linked.md refused: it is a symbolic link, and ljtui reads repository "
        "commands only from real files and folders"]


def test_a_shell_line_is_text_and_is_marked(commands: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    write(commands / "status.md", f"Status:\n!`touch {marker}`\n")
    command = load_commands(None).get("status")
    assert command is not None and command.runs_nothing
    assert command.message("") == f"Status:\n!`touch {marker}`"
    assert not marker.exists()


def test_no_folder_no_commands_and_no_warning(git_repo: Path) -> None:
    found = load_commands(git_repo)
    assert found.names == () and found.warnings == [] and found.notes == []
