"""Catastrophic-regex detection and RE2 compilation (PLN-5)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ljtui.core.regex_guard import PatternRefused, compile_pattern, has_nested_unbounded_quantifier

CATASTROPHIC = [
    "(a+)+", "(.*)*", r"(\d+){2,}", "(a*)+", "(?:a+)+", "((a+)b)*", "(a|b+)+", "(a+)*?", "(a{2,})+",
    r"^(\w+\s?)*$", "(x+x+)+y",
]
SAFE = [
    "a+", "(a)+", "(a+)?", "(a+){2,5}", "(a{2})+", "[+*]", r"\+", r"(\+)+", r"(\*)*", "[(]a+[)]+",
    "[]a+]+", r"(\Qa+\E)+", "(?i)abc", r"def \w+\(", "a{3}", "x{,3}", r"([a-z]+\.)?py",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_nested_unbounded_quantifiers_are_flagged(pattern: str) -> None:
    assert has_nested_unbounded_quantifier(pattern)


@pytest.mark.parametrize("pattern", SAFE)
def test_classes_escapes_and_bounded_repeats_pass(pattern: str) -> None:
    assert not has_nested_unbounded_quantifier(pattern)


@given(st.text(alphabet="ab+*?{},0123456789[]\\.|^$"))
def test_without_groups_nothing_is_flagged(src: str) -> None:
    assert not has_nested_unbounded_quantifier(src)


@given(st.text())
def test_any_text_is_classified_without_error(src: str) -> None:
    assert has_nested_unbounded_quantifier(src) in (True, False)


def test_catastrophic_pattern_is_refused_before_running() -> None:
    started = time.perf_counter()
    with pytest.raises(PatternRefused, match="unbounded quantifier"):
        compile_pattern("(a+)+$")
    assert time.perf_counter() - started < 0.05


@pytest.mark.parametrize(("pattern", "hint"), [
    (r"(a)\1", "backreferences"),
    ("(?=x)y", "lookahead"),
    ("(?<=x)y", "lookbehind"),
    ("(?!x)y", "negative lookahead"),
    (r"end\Z", r"use \z"),
    ("[abc", "missing ]"),
])
def test_patterns_re2_cannot_run_get_a_clear_error(pattern: str, hint: str) -> None:
    with pytest.raises(PatternRefused) as info:
        compile_pattern(pattern)
    message = str(info.value)
    assert hint in message
    assert "b'" not in message  # RE2's bytes message is decoded


def test_re2_compile_errors_are_not_logged(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PatternRefused):
        compile_pattern("(?<=x)")
    assert capfd.readouterr().err == ""


def test_empty_pattern_is_refused() -> None:
    with pytest.raises(PatternRefused, match="empty"):
        compile_pattern("")


def test_compiled_pattern_matches_per_line() -> None:
    regex = compile_pattern("^def ")
    assert [m.start() for m in regex.finditer(b"x\ndef a\n def b\ndef c")] == [2, 15]
