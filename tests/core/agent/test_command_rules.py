"""Allow-lists match simple commands of a plain line, never the text of the whole line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.agent.command_rules import (Allowed, NotAllowed, NotPlain, PlainCommand, allowed_by, check_line,
                                            plain_line, simple_commands)

GLOBS = ("pytest*", "git status")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def entries(result: Allowed | NotAllowed) -> list[tuple[str, str | None]]:
    assert isinstance(result, Allowed), result
    return [(m.command.canonical, m.entry) for m in result.matches]


@pytest.mark.parametrize(("command", "expected"), [
    ("pytest -q tests/", [("pytest -q tests/", "pytest*")]),
    ("pytest -q && git status", [("pytest -q", "pytest*"), ("git status", "git status")]),
    ("pytest 'tests/a b.py'", [("pytest 'tests/a b.py'", "pytest*")]),
    ("pytest 'a;b'", [("pytest 'a;b'", "pytest*")]),
    ("pytest 2>&1", [("pytest", "pytest*")]),
    ("pytest 2>/dev/null", [("pytest", "pytest*")]),
    ("pytest >/dev/null 2>&1", [("pytest", "pytest*")]),
    ("pytest tests/*.py", [("pytest 'tests/*.py'", "pytest*")]),
    ("pytest {a,b}.py", [("pytest a.py b.py", "pytest*")]),
    ("pytest\ngit status", [("pytest", "pytest*"), ("git status", "git status")]),
    ("pytest -x || git  status", [("pytest -x", "pytest*"), ("git status", "git status")]),
    ("pytest  # why", [("pytest", "pytest*")]),
])
def test_a_plain_line_whose_every_command_matches_runs(repo: Path, command: str,
                                                       expected: list[tuple[str, str]]) -> None:
    assert entries(allowed_by(command, GLOBS, repo)) == expected


@pytest.mark.parametrize(("command", "why"), [
    ("pytest --version; rm x", "`rm x` matches no allowed command"),
    ("pytest | tail -n 5", "`tail -n 5` matches no allowed command"),
    ("git status -s", "`git status -s` matches no allowed command"),
    ("pytest > out.txt", "a redirection to out.txt"),
    ("pytest >> log.txt", "a redirection to log.txt"),
    ("pytest < in.txt", "a redirection from in.txt"),
    ("pytest &", "a background job (&)"),
    ("LD_PRELOAD=./x.so pytest", "an assignment (LD_PRELOAD=./x.so)"),
    ("$(pytest)", "a command substitution ($(pytest))"),
    ("`pytest`", "a command substitution (`pytest`)"),
    ("pytest $(echo x)", "a command substitution ($(echo x))"),
    ("pytest $HOME", "a variable expansion ($HOME)"),
    ("pytest $((1 + 2))", "an arithmetic expansion ($((1 + 2)))"),
    ("pytest <(ls)", "a process substitution (<(ls))"),
    ("(pytest)", "a subshell ( … )"),
    ("{ pytest; }", "a { } group"),
    ("pytest <<< x", "a here-string"),
    ("pytest <<EOF\nx\nEOF", "a here-document"),
    ("for f in a; do pytest; done", "a for loop"),
    ("if true; then pytest; fi", "an if statement"),
    ("while pytest; do :; done", "a while loop"),
    ("[[ -f x ]] && pytest", "a test [[ ]]"),
    ("f() { pytest; }", "a function definition"),
    ("! pytest", "a negation (!)"),
    ("py*test", "a command name with glob or brace characters (py*test)"),
    ("rm -rf x", "recursive delete (rm -r)"),
])
def test_anything_else_is_asked_and_says_why(repo: Path, command: str, why: str) -> None:
    result = allowed_by(command, (*GLOBS, "rm -rf*", "tail*x"), repo)
    assert isinstance(result, NotAllowed) and not result
    assert result.why == why


def test_a_brace_expanded_command_name_is_not_plain(repo: Path) -> None:
    assert not allowed_by("{pytest,rm} x", ("*",), repo)
    assert isinstance(simple_commands("{pytest,rm} x"), NotPlain)


def test_a_dangerous_line_is_never_allowed_even_when_it_matches(repo: Path) -> None:
    result = allowed_by("rm -rf x", ("rm*",), repo)
    assert isinstance(result, NotAllowed) and not result.plain
    assert not allowed_by("pytest && git push --force", ("*",), repo)


@pytest.mark.parametrize("command", ["", "   ", "# only a comment", "echo 'unclosed", "if then"])
def test_empty_or_unreadable_text_is_not_allowed(repo: Path, command: str) -> None:
    assert not allowed_by(command, ("*",), repo)
    assert not plain_line(command, repo)


def test_simple_commands_lists_the_words_after_quote_removal() -> None:
    assert simple_commands("pytest -q 'a b' && git status | head") == (
        PlainCommand(("pytest", "-q", "a b")), PlainCommand(("git", "status")), PlainCommand(("head",)))
    assert simple_commands("pytest > out.txt") == NotPlain("a redirection to out.txt")


def test_a_session_grant_covers_plain_harmless_lines_only(repo: Path) -> None:
    allowed = plain_line("make -j4 && ls | wc -l", repo)
    assert isinstance(allowed, Allowed) and [m.entry for m in allowed.matches] == [None, None, None]
    assert not plain_line("make > build.log", repo)
    assert not plain_line("rm -rf build", repo)


def test_check_line_gives_what_a_permission_needs(repo: Path) -> None:
    assert check_line("pytest -q && git status", GLOBS, repo) == check_line("pytest -q && git status", GLOBS, repo)
    listed = check_line("pytest -q && git status", GLOBS, repo)
    assert (listed.plain, listed.listed, listed.why) == (True, ("pytest*", "git status"), "")
    unlisted = check_line("pytest; rm x", GLOBS, repo)
    assert (unlisted.plain, unlisted.listed) == (True, None) and "rm x" in unlisted.why
    not_plain = check_line("pytest > out.txt", GLOBS, repo)
    assert (not_plain.plain, not_plain.listed, not_plain.why) == (False, None, "a redirection to out.txt")
    assert check_line("pytest", (), repo).listed is None
