"""Property tests: the parser only raises its own error; apply then undo is exact."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ljtui.core.edits.apply import apply_plan
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditBlock, EditPlan, PlanParseError, parse_plan
from ljtui.core.edits.recovery import undo_last
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import id_factory

PARSER_EXAMPLES = 150
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
        assert (root / "made" / "new.txt").read_bytes() == (created + "\n").encode()
        assert undo_last(root, clock=FixedClock(), new_id=id_factory()).ok
        assert target.read_bytes() == original_bytes
        assert stat.S_IMODE(os.stat(target).st_mode) == mode
        assert not (root / "made").exists()
