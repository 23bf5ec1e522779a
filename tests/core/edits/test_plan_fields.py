"""``- file:`` and ``- entry:`` values: exactly one name, or a named error saying what to write."""

from __future__ import annotations

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan_format import PlanParseError, parse_plan
from tests.core.edits.helpers import DECLARATION

FENCES = "\n```old\nx\n```\n\n```new\ny\n```\n\n"


def with_file(value: str, number: int = 4) -> str:
    return f"### EDIT {number}\n\n- file: {value}\n" + FENCES + DECLARATION


def with_entry(value: str) -> str:
    return "### EDIT 2\n\n- file: `a.py`\n- entry: " + value + "\n" + FENCES + DECLARATION


def only_error(text: str) -> E.EditError:
    with pytest.raises(PlanParseError) as caught:
        parse_plan(text)
    (err,) = caught.value.errors
    return err


@pytest.mark.parametrize(("value", "name"), [
    ("`src/my file.py`", "src/my file.py"),
    ("src/app.py", "src/app.py"),
    ("`src/app.py`   ", "src/app.py"),
    ("`` a`b.py ``", "a`b.py"),
    ("`caf\u00e9/\u4e16.txt`", "caf\u00e9/\u4e16.txt"),
])
def test_one_code_span_or_one_bare_word_is_the_name(value, name):
    (b,) = parse_plan(with_file(value)).blocks
    assert b.file == name


@pytest.mark.parametrize(("value", "message"), [
    ("src/my file.py",
     "`- file:` value 'src/my file.py' is more than one word; if it is one name, write it alone in backticks "
     "(- file: `src/my file.py`); if text follows the name, remove it (notes belong in `- where:` or the prose)"),
    ("``", "`- file:` names nothing: `` is an empty code span; write - file: `path/to/file.py`"),
    ("` `", "`- file:` names nothing: its code span is empty; write - file: `path/to/file.py`"),
    ("", "`- file:` has no value; write - file: `path/to/file.py`"),
    ("`a.txt` or `b.txt`",
     "`- file:` gives 2 names ('a.txt' and 'b.txt'); a block has one file: write - file: `path/to/file.py`"),
    ("`a.py` \u2014 the module",
     "`- file:` value '`a.py` \u2014 the module' is not exactly one code span; write - file: `path/to/file.py`, "
     "with nothing after it (notes belong in `- where:` or the prose)"),
    ("`src/my` file.py",
     "`- file:` value '`src/my` file.py' is not exactly one code span; write - file: `path/to/file.py`, "
     "with nothing after it (notes belong in `- where:` or the prose)"),
    ("a`b", "`- file:` value 'a`b' is not one code span; write - file: `path/to/file.py`, with nothing after it"),
    ("`a.py", "`- file:` value '`a.py' is not exactly one code span; write - file: `path/to/file.py`, "
              "with nothing after it (notes belong in `- where:` or the prose)"),
    ("` a.py`", "`- file:` value ' a.py' begins or ends with a space; write the name without it"),
    ("`src/a\n  b.py`", "`- file:` value '`src/a\\nb.py`' runs onto the next line; "
                        "write - file: `path/to/file.py` on one line"),
])
def test_a_file_value_that_is_not_exactly_one_name_is_malformed(value, message):
    err = only_error(with_file(value))
    assert type(err) is E.MalformedField
    assert (err.block, err.message) == (4, message)


@pytest.mark.parametrize(("value", "message"), [
    ("first second", "`- entry:` value 'first second' is more than one word; if it is one name, write it alone in "
                     "backticks (- entry: `first second`); if text follows the name, remove it (notes belong in "
                     "`- where:` or the prose)"),
    ("``", "`- entry:` names nothing: `` is an empty code span; write - entry: `entry-name`"),
    ("`one` or `two`", "`- entry:` gives 2 names ('one' and 'two'); a block has one entry: write - entry: `entry-name`"),
])
def test_entry_values_follow_the_same_rules(value, message):
    err = only_error(with_entry(value))
    assert type(err) is E.MalformedField
    assert (err.block, err.message) == (2, message)


def test_entry_with_spaces_in_backticks_is_one_name():
    (b,) = parse_plan(with_entry("`first entry`")).blocks
    assert b.entry == "first entry"


def test_where_stays_free_text():
    text = "### EDIT 1\n\n- file: `a.py`\n- where: `f (~3)` and `g`, see below\n" + FENCES
    (b,) = parse_plan(text).blocks
    assert (b.where, b.hint_line) == ("`f (~3)` and `g`, see below", 3)


def test_a_malformed_file_is_reported_once_not_also_as_missing():
    with pytest.raises(PlanParseError) as caught:
        parse_plan(with_file("a b"))
    assert [e.kind for e in caught.value.errors] == ["MalformedField"]
