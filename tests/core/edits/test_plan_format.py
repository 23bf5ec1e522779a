"""The EDIT plan parser: structure, byte-exact fences and every named error."""

from __future__ import annotations

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, PlanParseError, parse_plan
from tests.core.edits.helpers import DECLARATION, block, plan_text

SPEC_EXAMPLE = """### EDIT 1

- file: `src/upload.py`
- where: `Uploader.send (~88)` \u2014 wrap the request in the retry helper

```old
    response = self._client.put(url, data)
```

```new
    response = self._retry(lambda: self._client.put(url, data), attempts=3)
```

Prose explaining the change.

```json
{ "will_modify": ["Uploader.send"], "will_add": ["Uploader._retry"], "will_remove": [] }
```
"""


def errors_of(text: str) -> list[E.EditError]:
    with pytest.raises(PlanParseError) as caught:
        parse_plan(text)
    return caught.value.errors


def only_error(text: str) -> E.EditError:
    errs = errors_of(text)
    assert len(errs) == 1, errs
    return errs[0]


def test_spec_example_parses_into_its_parts():
    plan = parse_plan(SPEC_EXAMPLE)
    (b,) = plan.blocks
    assert (b.number, b.file, b.entry, b.line) == (1, "src/upload.py", DEFAULT_ENTRY_ID, 1)
    assert b.where == "`Uploader.send (~88)` \u2014 wrap the request in the retry helper"
    assert b.hint_line == 88
    assert b.old == "    response = self._client.put(url, data)\n"
    assert b.new == "    response = self._retry(lambda: self._client.put(url, data), attempts=3)\n"
    assert b.prose == "Prose explaining the change."
    assert plan.declarations.will_modify == ("Uploader.send",)
    assert plan.declarations.will_add == ("Uploader._retry",)
    assert plan.declarations.present


def test_fence_bytes_are_exact_trailing_space_tab_and_non_ascii():
    old = "\tx = 1   \n  y\t=\t'h\u00e9llo \u4e16\u754c'  \n\n"
    plan = parse_plan(plan_text(block(1, "a.py", old, "z\n")))
    assert plan.blocks[0].old == old


def test_crlf_plan_keeps_crlf_inside_fences():
    text = "### EDIT 1\r\n- file: a.py\r\n\r\n```old\r\nx = 1\r\n```\r\n\r\n```new\r\nx = 2\r\n```\r\n"
    b = parse_plan(text).blocks[0]
    assert (b.old, b.new) == ("x = 1\r\n", "x = 2\r\n")


def test_fence_holding_backticks_uses_a_longer_fence():
    old = "doc = '''\n```python\nprint(1)\n```\n'''\n"
    b = parse_plan(plan_text(block(1, "a.py", old, "x\n"))).blocks[0]
    assert b.old == old


def test_tilde_fences_are_fences_too():
    text = "### EDIT 1\n- file: a\n\n~~~old\n```\n~~~\n\n~~~new\nb\n~~~\n"
    b = parse_plan(text).blocks[0]
    assert (b.old, b.new) == ("```\n", "b\n")


def test_empty_old_means_create():
    b = parse_plan(plan_text(block(1, "n.py", "", "print()\n"))).blocks[0]
    assert b.creates and b.old == ""


def test_bare_file_and_entry_values_and_extra_fences_are_prose():
    text = ("### EDIT 1\n\n- file: src/a.py\n- entry: first\n\n"
            "```old\na\n```\n\n```new\nb\n```\n\nSee:\n\n```python\nexample()\n```\n")
    b = parse_plan(text).blocks[0]
    assert (b.file, b.entry) == ("src/a.py", "first")
    assert b.hint_line is None


def test_entries_group_blocks_in_order():
    plan = parse_plan(plan_text(block(1, "a", "x\n", "y\n", entry="one"), block(2, "b", "x\n", "y\n", entry="one"),
                                block(5, "c", "x\n", "y\n", entry="two")))
    assert plan.entry_ids == ("one", "two")
    assert [b.number for b in plan.entries[0].blocks] == [1, 2]


def test_missing_declaration_is_allowed_and_empty():
    plan = parse_plan(block(1, "a", "x\n", "y\n"))
    assert not plan.declarations.present and plan.declarations.to_dict() == {
        "will_modify": [], "will_add": [], "will_remove": []}


def test_json_fence_inside_an_earlier_block_is_prose():
    first = block(1, "a", "x\n", "y\n") + '```json\n{"not": "a declaration"}\n```\n\n'
    plan = parse_plan(plan_text(first, block(2, "b", "x\n", "y\n")))
    assert plan.declarations.present


@pytest.mark.parametrize(("text", "kind", "number", "message"), [
    ("just prose\n", E.NoBlocks, None, "the plan has no `### EDIT N` block"),
    ("### EDIT one\n", E.MalformedHeading, None, "heading 'EDIT one' (line 1) has no block number"),
    ("### EDIT 1 warmer greeting\n", E.MalformedHeading, None,
     "heading 'EDIT 1 warmer greeting' (line 1) needs ':' between its number and its title (### EDIT 1: title)"),
    (block(2, "a", "x\n", "y\n") + block(2, "b", "x\n", "y\n"), E.NonAscendingNumber, 2,
     "EDIT 2 follows EDIT 2; numbers must strictly ascend"),
    ("### EDIT 1\n\n```old\nx\n```\n\n```new\ny\n```\n", E.MissingFile, 1, "no `- file:` line"),
    ("### EDIT 1\n- file: a\n- file: b\n\n```old\nx\n```\n\n```new\ny\n```\n", E.DuplicateField, 1,
     "`file` is given twice"),
    ("### EDIT 1\n- file: a\n\n```new\ny\n```\n\n```old\nx\n```\n", E.FenceOrder, 1, "```new fence on line 4 comes before any ```old"),
    ("### EDIT 1\n- file: a\n\n```old\nx\n```\n", E.MissingNew, 1, "no ```new fence"),
    ("### EDIT 1\n- file: a\n\n```old\nx\n```\n\n```old\nx\n```\n\n```new\ny\n```\n", E.DuplicateFence, 1,
     "second ```old fence on line 8"),
    ("### EDIT 1\n- file: a\n\n```old\nx\n```\n\n```new\ny\n", E.UnclosedFence, 1,
     "the ```new fence opened on line 8 is never closed"),
    ("### EDIT 1\n- file: a\n\n  ```old\n  x\n  ```\n\n```new\ny\n```\n", E.IndentedFence, 1,
     "```old fence on line 4 must start at column 0, outside lists and quotes"),
    ("```old\nx\n```\n\n" + block(1, "a", "x\n", "y\n"), E.OrphanFence, None,
     "```old fence on line 1 is outside any EDIT block"),
    (block(1, "a", "x\n", "y\n", entry="e1") + block(2, "a", "x\n", "y\n", entry="e2")
     + block(3, "a", "x\n", "y\n", entry="e1"), E.EntrySplit, 3,
     "entry 'e1' resumes after other entries; keep its blocks together"),
    (block(1, "a", "x\n", "y\n") + "```json\n{nope\n```\n", E.MalformedDeclaration, 1,
     "declaration is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    (block(1, "a", "x\n", "y\n") + "```json\n[]\n```\n", E.MalformedDeclaration, 1,
     "declaration must be a JSON object"),
    (block(1, "a", "x\n", "y\n") + '```json\n{"will_modify": [], "will_add": []}\n```\n', E.MalformedDeclaration, 1,
     "declaration lacks `will_remove`"),
    (block(1, "a", "x\n", "y\n") + '```json\n{"will_modify": [1], "will_add": [], "will_remove": []}\n```\n',
     E.MalformedDeclaration, 1, "`will_modify` must be a list of strings"),
    (block(1, "a", "x\n", "y\n") + '```json\n{"will_modify": [], "will_add": [], "will_remove": [], "x": 1}\n```\n',
     E.MalformedDeclaration, 1, "declaration has unknown keys: x"),
    (block(1, "a", "x\n", "y\n") + DECLARATION + DECLARATION, E.DuplicateDeclaration, 1,
     "2 ```json blocks follow the last EDIT block"),
])
def test_each_error_kind_has_its_message(text, kind, number, message):
    err = only_error(text)
    assert type(err) is kind
    assert (err.block, err.message) == (number, message)
    assert err.kind == kind.__name__


def test_missing_old_and_new_are_named():
    errs = errors_of("### EDIT 1\n- file: a\n\nno fences at all\n")
    assert [(type(e), e.message) for e in errs] == [(E.MissingOld, "no ```old fence"),
                                                     (E.MissingNew, "no ```new fence")]


def test_unclosed_old_fence_at_end_is_refused_not_guessed():
    errs = errors_of("### EDIT 1\n- file: a\n\n```old\nx = 1\n")
    assert errs[0].message == "the ```old fence opened on line 4 is never closed"


def test_all_errors_are_reported_together_in_block_order():
    text = block(1, "a", "x\n", "y\n") + "### EDIT 1\n\n```old\nx\n```\n"
    kinds = [e.kind for e in errors_of(text)]
    assert kinds == ["NonAscendingNumber", "MissingFile", "MissingNew"]


def test_parse_error_str_names_kind_and_block():
    with pytest.raises(PlanParseError, match=r"MissingNew: block 1: no ```new fence"):
        parse_plan("### EDIT 1\n- file: a\n\n```old\nx\n```\n")


def test_huge_block_number_is_a_malformed_heading():
    assert only_error("### EDIT 12345678901234567890\n").kind == "MalformedHeading"


def test_compact_block_without_blank_lines_and_closed_heading():
    text = "### EDIT 1 ###\n- file: `a.py`\n- where: f\n```old\nx\n```\n```new\ny\n```\n"
    (b,) = parse_plan(text).blocks
    assert (b.file, b.where, b.old, b.new) == ("a.py", "f", "x\n", "y\n")
