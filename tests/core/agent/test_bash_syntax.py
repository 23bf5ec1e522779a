"""The bash reader: words, structure, redirections, nested scripts and brace expansion, as bash reads them."""

from __future__ import annotations

import pytest

from ljtui.core.agent.bash_syntax import (COMMAND, PARAMETER, PROCESS, BraceLimitExceeded, Compound, Script,
                                          SimpleCommand, Subshell, Word, expand_braces, literal_word, parse, parser,
                                          simple_commands_of, unreadable_in)
from ljtui.core.agent.bash_words import unescape


def only(command: str) -> SimpleCommand:
    """The one simple command of ``command``."""
    script = parse(command)
    assert script.problem is None, script.problem
    [chain] = script.chains
    [pipeline] = chain.pipelines
    [found] = pipeline.commands
    assert isinstance(found, SimpleCommand)
    return found


def values(command: str) -> list[str | None]:
    return [w.value for w in only(command).words]


def inner_texts(word: Word) -> list[str]:
    """The source text of every simple command the substitutions of ``word`` run."""
    return [c.text for s in word.scripts for c in simple_commands_of(s)]


def braces(pattern: str) -> list[str]:
    return [unescape(p) for p in expand_braces(pattern)]


# words

@pytest.mark.parametrize(("command", "expected"), [
    ("echo 'a b' \"c d\" e", ["echo", "a b", "c d", "e"]),
    ("echo 'a'\"b\"c", ["echo", "abc"]),
    ("r\\m -\\rf", ["rm", "-rf"]),
    ("echo $'\\x72m\\tx'", ["echo", "rm\tx"]),
    ('echo $"translated"', ["echo", "translated"]),
    ("echo a\\\nb", ["echo", "ab"]),
    ('echo "a\\$b \\"q\\" \\\\ \\x"', ["echo", 'a$b "q" \\ \\x']),
    ("echo '$HOME' \"*\"", ["echo", "$HOME", "*"]),
])
def test_a_literal_word_has_its_value_after_quote_removal(command: str, expected: list[str]) -> None:
    assert values(command) == expected


def test_a_word_with_an_expansion_has_no_value_but_keeps_its_text() -> None:
    command = only('rm -rf "$DIR/build" ~/x $(pwd) <(ls) $((1 + 2))')
    dir_word, tilde, substitution, process, arithmetic = command.words[2:]
    assert dir_word.value is None and dir_word.approx == "$DIR/build"
    assert [e.kind for e in dir_word.expansions] == [PARAMETER]
    assert tilde.value == "~/x"
    assert substitution.value is None and substitution.expansions[0].kind == COMMAND
    assert process.expansions[0].kind == PROCESS
    assert arithmetic.value is None


def test_globs_and_braces_are_seen_only_when_unquoted() -> None:
    plain, quoted, brace, quoted_brace = only("ls *.py '*.py' {a,b} '{a,b}'").words[1:]
    assert plain.globbed and not quoted.globbed
    assert brace.braced and not quoted_brace.braced
    assert [w.value for w in brace.expand()] == ["a", "b"]
    assert quoted_brace.expand() == (quoted_brace,)


def test_brace_expansion_keeps_the_expansions_of_each_alternative() -> None:
    [word] = only("echo {a,$X}$(id)").words[1:]
    first, second = word.expand()
    assert first.value is None and first.approx == "a$(id)"
    assert [e.kind for e in first.expansions] == [COMMAND]
    assert second.approx == "$X$(id)"
    assert [e.kind for e in second.expansions] == [PARAMETER, COMMAND]


# structure

def test_lists_pipelines_and_background_jobs() -> None:
    script = parse("a && b || c; d | e |& f & g\nh")
    first, second, third, fourth = script.chains
    assert first.operators == ("&&", "||") and len(first.pipelines) == 3
    assert [len(p.commands) for p in second.pipelines] == [3]
    assert second.background and not third.background
    assert [c.text for c in simple_commands_of(Script((fourth,)))] == ["h"]


def test_negation_covers_the_whole_pipeline() -> None:
    [chain] = parse("! a | b").chains
    assert chain.pipelines[0].negated and len(chain.pipelines[0].commands) == 2


@pytest.mark.parametrize(("command", "kind"), [
    ("if a; then b; elif c; then d; else e; fi", "if"),
    ("while a; do b; done", "while"),
    ("until a; do b; done", "until"),
    ("for f in a b; do c; done", "for"),
    ("for ((i = 0; i < 3; i++)); do c; done", "for"),
    ("select x in a; do b; done", "select"),
    ("case $x in a) b;; *) c;; esac", "case"),
    ("{ a; b; }", "group"),
    ("((x++))", "arithmetic"),
    ("[[ -f x ]]", "test"),
    ("f() { a; }", "function"),
])
def test_compound_commands_have_a_kind_and_bodies(command: str, kind: str) -> None:
    [chain] = parse(command).chains
    [found] = chain.pipelines[0].commands
    assert isinstance(found, Compound) and found.kind == kind


def test_every_body_of_an_if_is_kept() -> None:
    [chain] = parse("if a; then b; elif c; then d; else e; fi").chains
    found = chain.pipelines[0].commands[0]
    assert isinstance(found, Compound)
    texts = [c.text for body in found.bodies for c in simple_commands_of(body)]
    assert texts == ["a", "b", "c", "d", "e"]


def test_a_subshell_has_its_own_script() -> None:
    [chain] = parse("(cd /tmp && ls) > out").chains
    found = chain.pipelines[0].commands[0]
    assert isinstance(found, Subshell)
    assert [c.text for c in simple_commands_of(found.body)] == ["cd /tmp", "ls"]
    assert [r.target.value for r in found.redirects if r.target] == ["out"]


def test_for_values_and_case_subjects_are_words() -> None:
    [chain] = parse("for f in a $(b); do c; done").chains
    loop = chain.pipelines[0].commands[0]
    assert isinstance(loop, Compound)
    assert [w.value for w in loop.words] == ["a", None]
    assert inner_texts(loop.words[1]) == ["b"]


def test_assignments_come_before_the_command_name() -> None:
    command = only("LD_PRELOAD=./x.so A=$(id) pytest -q")
    assert [(a.name, a.value.value) for a in command.assignments] == [("LD_PRELOAD", "./x.so"), ("A", None)]
    assert values("LD_PRELOAD=./x.so A=$(id) pytest -q") == ["pytest", "-q"]
    bare = only("x=1")
    assert bare.words == () and bare.assignments[0].name == "x"


# redirections

def test_redirections_know_duplicates_from_writes() -> None:
    redirects = only("cmd 2>&1 >&2 >out &>all 2>>log <in >&file >&-").redirects
    table = [(r.operator, r.descriptor, r.target.value if r.target else None, r.writes, r.duplicates)
             for r in redirects]
    assert table == [(">&", 2, "1", False, True), (">&", 1, "2", False, True), (">", 1, "out", True, False),
                     ("&>", 1, "all", True, False), (">>", 2, "log", True, False), ("<", 0, "in", False, False),
                     (">&", 1, "file", True, False), (">&-", 1, None, False, True)]


def test_a_redirection_after_a_pipeline_belongs_to_its_last_command() -> None:
    [chain] = parse("a | b > f").chains
    first, last = chain.pipelines[0].commands
    assert first.redirects == () and [r.target.value for r in last.redirects if r.target] == ["f"]


def test_a_word_after_a_redirection_target_is_an_argument() -> None:
    command = only("cmd > f extra")
    assert [w.value for w in command.words] == ["cmd", "extra"]


def test_a_here_document_keeps_its_body_and_whether_it_is_quoted() -> None:
    quoted = only("cat <<'EOF'\n$(rm -rf x) `id`\nEOF").redirects[0].heredoc
    assert quoted is not None and quoted.quoted and quoted.body == "$(rm -rf x) `id`\n" and quoted.words == ()
    plain = only("cat <<EOF\n$(rm -rf x) `id`\nEOF").redirects[0].heredoc
    assert plain is not None and not plain.quoted
    assert [t for w in plain.words for t in inner_texts(w)] == ["rm -rf x", "id"]
    stripped = only("cat <<-EOF\n\tone\n\tEOF").redirects[0].heredoc
    assert stripped is not None and stripped.body == "one\n"


def test_what_follows_a_here_document_marker_continues_the_line() -> None:
    [chain] = parse("cat <<EOF | bash && echo ok\nrm -rf x\nEOF").chains
    assert chain.operators == ("&&",)
    first, second = chain.pipelines
    assert [c.words[0].value for c in first.commands if isinstance(c, SimpleCommand)] == ["cat", "bash"]
    assert first.commands[0].redirects[0].heredoc is not None
    assert [w.value for c in second.commands if isinstance(c, SimpleCommand) for w in c.words] == ["echo", "ok"]


def test_a_dash_before_a_here_document_is_an_argument() -> None:
    assert values("python3 - <<'EOF'\nprint(1)\nEOF") == ["python3", "-"]


def test_here_document_markers_in_quotes_or_comments_start_nothing() -> None:
    script = parse('echo "<<EOF" # <<X\nrm -r victim')
    assert [c.text for c in simple_commands_of(script)] == ['echo "<<EOF"', "rm -r victim"]


# nested scripts

@pytest.mark.parametrize("command", [
    "echo $(rm -rf x)",
    "echo `rm -rf x`",
    'echo "a $(rm -rf x) b"',
    'echo "`rm -rf x`"',
    "cat < $(rm -rf x)",
    'cat <<< "$(rm -rf x)"',
    "X=$(rm -rf x) true",
    "diff <(rm -rf x) >(rm -rf x)",
    "echo ${v:-$(rm -rf x)}",
    "cat <<EOF\n$(rm -rf x)\nEOF",
    "cat <<EOF\n`rm -rf x`\nEOF",
    "for f in $(rm -rf x); do :; done",
    "[[ $(rm -rf x) ]]",
])
def test_substitutions_are_found_wherever_they_are(command: str) -> None:
    texts = [c.text for c in simple_commands_of(parse(command))]
    assert "rm -rf x" in texts, texts


def test_nested_backquotes_are_read_after_bash_removes_their_backslashes() -> None:
    texts = [c.text for c in simple_commands_of(parse("echo `ls \\`rm -rf x\\``"))]
    assert "rm -rf x" in texts


def test_a_quoted_here_document_body_runs_nothing() -> None:
    texts = [c.text for c in simple_commands_of(parse("cat <<'EOF'\n$(rm -rf x)\nEOF"))]
    assert texts == ["cat"]


# what cannot be read

@pytest.mark.parametrize("command", ["echo 'unclosed", "echo $(", "if then", "cat <<EOF\nno end",
                                     "cmd 3<>file", "{pytest,rm} x"])
def test_text_the_grammar_cannot_read_has_a_problem_and_no_commands(command: str) -> None:
    script = parse(command)
    assert script.problem and script.chains == ()
    assert unreadable_in(script) == script.problem


def test_a_problem_in_a_nested_backquote_is_found() -> None:
    script = parse("echo `a \\`b`")  # inside: a `b, an unclosed backquote
    assert script.problem is None and unreadable_in(script)


def test_very_deep_nesting_is_a_problem_not_a_crash() -> None:
    command = "echo " + "$(" * 400 + "x" + ")" * 400
    assert parse(command).problem


def test_the_parser_is_built_once() -> None:
    assert parser() is parser()


# brace expansion

@pytest.mark.parametrize(("pattern", "expected"), [
    ("{a,b}", ["a", "b"]),
    ("a{b,c}d", ["abd", "acd"]),
    ("x{a,{b,c}}", ["xa", "xb", "xc"]),
    ("{a,b}{1..2}", ["a1", "a2", "b1", "b2"]),
    ("a{,b}", ["a", "ab"]),
    ("{,}", ["", ""]),
    ("{}", ["{}"]),
    ("{x}", ["{x}"]),
    ("{a{b,c}}", ["{ab}", "{ac}"]),
    ("{{a,b}", ["{a", "{b"]),
    ("{a,b}}", ["a}", "b}"]),
    ("a{b}c{d,e}", ["a{b}cd", "a{b}ce"]),
    ("{1..3}", ["1", "2", "3"]),
    ("{3..1}", ["3", "2", "1"]),
    ("{01..03}", ["01", "02", "03"]),
    ("{-2..2}", ["-2", "-1", "0", "1", "2"]),
    ("{1..10..3}", ["1", "4", "7", "10"]),
    ("{-05..05..5}", ["-05", "000", "005"]),
    ("{1..3..0}", ["1", "2", "3"]),
    ("{a..e..2}", ["a", "c", "e"]),
    ("{e..c}", ["e", "d", "c"]),
    ("{a..3}", ["{a..3}"]),
    ("{a..}", ["{a..}"]),
    ("{x,y\\,z}", ["x", "y,z"]),
    ("\\{a,b}", ["{a,b}"]),
    ("{a,b\\}", ["{a,b}"]),
])
def test_brace_expansion_follows_bash(pattern: str, expected: list[str]) -> None:
    assert braces(pattern) == expected


def test_quoted_characters_never_expand() -> None:
    assert [w.value for w in literal_word("{a,b}").expand()] == ["{a,b}"]
    assert [w.value for w in only("echo {a','b} {1'..'3}").words[1].expand()] == ["{a,b}"]
    assert [w.value for w in only("echo {1'..'3}").words[1].expand()] == ["{1..3}"]


def test_a_huge_brace_expansion_is_refused() -> None:
    with pytest.raises(BraceLimitExceeded):
        expand_braces("{1..100000}")
    with pytest.raises(BraceLimitExceeded):
        expand_braces("{a,b}" * 12)


def test_lines_are_read_alike_from_many_threads_at_once() -> None:
    """Tasks running side by side check their commands in worker threads at the same time."""
    from concurrent.futures import ThreadPoolExecutor

    from ljtui.core.agent.bash_syntax import parse

    lines = [f"echo {i} && rm -r build{i}; cat <<'EOF'\nline {i}\nEOF" for i in range(200)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        scripts = list(pool.map(parse, lines))
    assert all(s.problem is None and s.text == line for s, line in zip(scripts, lines))
    assert [len(s.chains) for s in scripts] == [len(parse(line).chains) for line in lines]
