"""Property tests: the parser only raises its own error and reads names exactly; anchors match byte-exactly;
apply then undo is exact."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ljtui.core.edits.anchors import replace_once
from ljtui.core.edits.apply import apply_plan
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditBlock, EditPlan, PlanParseError, parse_plan
from ljtui.core.edits.recovery import undo_last
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import id_factory

PARSER_EXAMPLES = 150
ANCHOR_EXAMPLES = 400
APPLY_EXAMPLES = 25
MARKER = "@@anchor@@"

FRAGMENTS = ["### EDIT 1", "### EDIT 2", "## EDIT x", "### EDIT", "- file: `a.py`", "- file: b", "- where: `f (~3)`",
             "- entry: e", "```old", "```new", "```json", "````old", "~~~new", "```", "````", "~~~", "  ```old",
             '{"will_modify": [], "will_add": [], "will_remove": []}', "{", "> ```new", "x = 1", "", "\t", "\r"]

plan_like = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map(
    lambda parts: "\n".join(parts))


@settings(max_examples=PARSER_EXAMPLES, deadline=None)
@given(st.one_of(st.text(), plan_like))
def test_parser_raises_only_its_own_error(text):
    try:
        plan = parse_plan(text)
    except PlanParseError as exc:
        assert exc.errors and all(err.message for err in exc.errors)
    else:
        assert plan.blocks
        assert all(b.file for b in plan.blocks)


def line_starts_at(data: bytes, i: int) -> bool:
    return i == 0 or data[i - 1:i] == b"\n" or (data[i - 1:i] == b"\r" and data[i:i + 1] != b"\n")


def hits(data: bytes, needle: bytes, anchored: bool) -> list[int]:
    """Every offset where ``needle`` starts, by brute force, under the start-of-line rule when ``anchored``."""
    return [i for i in range(len(data) - len(needle) + 1)
            if data[i:i + len(needle)] == needle and (not anchored or line_starts_at(data, i))]


def to_style(text: str, style: str) -> bytes:
    normal = text.encode().replace(b"\r\n", b"\n")
    return normal.replace(b"\n", b"\r\n") if style == "CRLF" else normal


def without_final_break(text: str) -> str:
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text[-1:] in ("\r", "\n") else text


small_text = st.text(alphabet="ab \t\n\r", max_size=24)


@settings(max_examples=ANCHOR_EXAMPLES, deadline=None)
@given(data=small_text, old=st.text(alphabet="ab \t\n\r", min_size=1, max_size=6), new=st.text(alphabet="xy\n\r",
                                                                                                  max_size=6))
def test_replacement_is_byte_exact_and_counts_by_the_start_of_line_rule(data, old, new):
    raw = data.encode()
    anchored = old[0] in " \t\r\n" or old[-1] in "\r\n"
    exact = hits(raw, old.encode(), anchored)
    outcome = replace_once(raw, old, new)
    if exact:
        assert outcome.converted_to is None and outcome.count == len(exact)
        if len(exact) == 1:
            at = exact[0]
            assert outcome.result == raw[:at] + new.encode() + raw[at + len(old.encode()):]
        else:
            assert outcome.result is None
    elif outcome.at_end:
        assert old[-1] in "\r\n" and raw and raw[-1:] not in (b"\r", b"\n") and outcome.count == 1
        for style in ("LF", "CRLF"):
            assert not hits(raw, to_style(old, style), anchored)
        stem, new_stem = without_final_break(old), without_final_break(new)
        tail = to_style(stem, outcome.converted_to) if outcome.converted_to else stem.encode()
        at = len(raw) - len(tail)
        assert raw.endswith(tail) and line_starts_at(raw, at)
        fresh = to_style(new_stem, outcome.converted_to) if outcome.converted_to else new_stem.encode()
        assert outcome.result == raw[:at] + fresh
    elif outcome.converted_to is None:
        assert (outcome.result, outcome.count) == (None, 0)
    else:
        converted = hits(raw, to_style(old, outcome.converted_to), anchored)
        assert outcome.count == len(converted) >= 1
        if outcome.converted_to == "CRLF":
            assert raw.count(b"\n") == raw.count(b"\r\n") > 0
        else:
            assert b"\r\n" not in raw and b"\n" in raw
        if len(converted) == 1:
            at, size = converted[0], len(to_style(old, outcome.converted_to))
            assert outcome.result == raw[:at] + to_style(new, outcome.converted_to) + raw[at + size:]


text_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="@\r\n")
body = st.lists(st.text(text_chars, max_size=20), max_size=6).map(lambda ls: "\n".join(ls))
line_break = st.sampled_from(["\n", "\r\n"])


@settings(max_examples=APPLY_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=body, suffix=body, new=body, created=body, eol=line_break, final=st.booleans(),
       mode=st.sampled_from([0o644, 0o600, 0o755]))
def test_apply_then_undo_restores_bytes_exactly(prefix, suffix, new, created, eol, final, mode):
    original = (prefix + "\n" + MARKER + "\n" + suffix).replace("\n", eol)
    original_bytes = (original + (eol if final else "")).encode()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        target = root / "dir" / "f.txt"
        target.parent.mkdir()
        target.write_bytes(original_bytes)
        os.chmod(target, mode)
        plan = EditPlan((
            EditBlock(1, "dir/f.txt", None, DEFAULT_ENTRY_ID, MARKER + "\n", new + "\n"),
            EditBlock(2, "made/new.txt", None, DEFAULT_ENTRY_ID, "", created + "\n"),
        ))
        report = apply_plan(plan, root, clock=FixedClock(), new_id=id_factory(), run_checks=False)
        assert report.result.status == "done", report.result
        written = original_bytes.replace(MARKER.encode() + eol.encode(), (new + "\n").replace("\n", eol).encode())
        assert target.read_bytes() == written
        assert len(report.result.notes) == (1 if eol == "\r\n" else 0)
        assert (root / "made" / "new.txt").read_bytes() == (created + "\n").encode()
        assert undo_last(root, clock=FixedClock(), new_id=id_factory()).ok
        assert target.read_bytes() == original_bytes
        assert stat.S_IMODE(os.stat(target).st_mode) == mode
        assert not (root / "made").exists()


def code_span(name: str) -> str:
    """``name`` as one Markdown code span: a fence longer than any backtick run inside, padded when needed."""
    runs = [len(run) for run in "".join(c if c == "`" else " " for c in name).split()]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if name.startswith("`") or name.endswith("`") else ""
    return f"{fence}{pad}{name}{pad}{fence}"


name_chars = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029\x85")
names = st.text(name_chars, min_size=1, max_size=20).filter(lambda n: n == n.strip())


@settings(max_examples=PARSER_EXAMPLES, deadline=None)
@given(file=names, entry=names)
def test_a_name_in_one_code_span_is_read_back_exactly(file, entry):
    text = f"### EDIT 1\n\n- file: {code_span(file)}\n- entry: {code_span(entry)}\n\n```old\nx\n```\n\n```new\ny\n```\n"
    (b,) = parse_plan(text).blocks
    assert (b.file, b.entry) == (file, entry)


@settings(max_examples=PARSER_EXAMPLES, deadline=None)
@given(first=names, second=names, glue=st.sampled_from([" ", " or ", ", ", " and then "]))
def test_two_names_are_never_read_as_one(first, second, glue):
    text = f"### EDIT 1\n\n- file: {code_span(first)}{glue}{code_span(second)}\n\n```old\nx\n```\n\n```new\ny\n```\n"
    try:
        parse_plan(text)
    except PlanParseError as exc:
        assert [e.kind for e in exc.errors] == ["MalformedField"]
    else:
        raise AssertionError("two code spans were accepted as one file")
