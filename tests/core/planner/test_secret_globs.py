"""The secret-file rule as ripgrep globs: they match every file the rule calls secret, whatever its case or
pattern, checked with the real ``rg`` and with drawn names and patterns."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ljtui.core.planner import grep_rg
from ljtui.core.planner.grep_scan import matcher
from ljtui.core.secret_files import DOTTED_CAPITAL_I, KELVIN_SIGN, SecretFiles
from tests.core.planner.grep_trees import rg_files


def test_the_rule_as_globs_matches_exactly_the_secret_files(names: Path) -> None:
    policy = SecretFiles()
    listed = rg_files(names, "--glob", grep_rg.one_glob(policy.globs()))
    everything = rg_files(names)
    assert listed == {rel for rel in everything if policy.is_secret(rel)}
    assert len(listed) == 47


def test_unusual_patterns_become_globs_that_miss_no_secret_file(tmp_path: Path) -> None:
    patterns = ("se?ret[0-9].txt", "[!a]b.cfg", "a[b.ini", "ünï*.conf", "x{y,z}.env", "!bang", "#hash",
                "k.k.k.k.k", "toki*", "sp ace.txt")
    secret = ["secret1.txt", "SE_RET9.TXT", "SEéRET1.txt", "xb.cfg", "a[b.ini", "ÜNÏcode.conf", "x{y,z}.env",
              "!bang", "#hash", f"k.{KELVIN_SIGN}.k.K.k", f"tok{DOTTED_CAPITAL_I}n.txt",
              f"TO{KELVIN_SIGN}{DOTTED_CAPITAL_I}N", "sp ace.txt"]
    for name in [*secret, "secret.txt", "ab.cfg", "nope.conf"]:
        (tmp_path / name).write_text("x\n")
    policy = SecretFiles(patterns)
    assert all(policy.is_secret(name) for name in secret)
    listed = rg_files(tmp_path, "--glob", grep_rg.one_glob(policy.globs()))
    assert set(secret) <= listed


NAME_CHARS = f"abikKxy.-_ é{KELVIN_SIGN}{DOTTED_CAPITAL_I}[]!"
"""Characters of the names drawn below: letters with odd lower cases, fnmatch's special characters."""


@st.composite
def name_and_pattern(draw: st.DrawFn) -> tuple[str, str]:
    """A file name and a pattern written from it: some characters in another case, some replaced by ``?``
    or ``*``, some bracketed; the pattern may or may not match the name."""
    name = draw(st.text(NAME_CHARS, min_size=1, max_size=8))
    pattern = ""
    for char in name:
        pattern += draw(st.sampled_from([char, char.upper(), char.lower(), "?", "*", f"[{char}]", f"[!{char}]"]))
    return name, pattern


@settings(max_examples=300, deadline=None)
@given(name_and_pattern())
def test_the_glob_form_matches_every_name_its_pattern_matches(drawn: tuple[str, str]) -> None:
    name, pattern = drawn
    policy = SecretFiles((pattern,))
    if policy.is_secret(name):
        assert matcher(policy.globs()).paths.match(os.fsencode(name)), (pattern, policy.globs())
