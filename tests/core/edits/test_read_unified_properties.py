"""Property tests: whatever the text, the unified-diff reader raises only its own error, and its plans hold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ljtui.core.edits.plan import EDIT, PlanParseError
from ljtui.core.edits.read_unified import parse_unified
from tests.core.edits.read_unified_expect import PATCHES

EXAMPLES = 300
FIXTURES = sorted(p.read_bytes().decode("utf-8", "surrogateescape") for p in PATCHES.iterdir()
                  if p.suffix in (".diff", ".patch"))
PIECES = ["diff --git a/x b/x", "--- a/x", "+++ b/x", "--- /dev/null", "+++ /dev/null", "@@ -1 +1 @@",
          "@@ -0,0 +1,2 @@", "@@ -1,2 +1 @@ f", "@@ -x", " ctx", "-old", "+new", "", "\r",
          "\\ No newline at end of file", "new file mode 100755", "deleted file mode 100644", "rename from x",
          "rename to y", "old mode 100644", "new mode 100755", "-- ", "Binary files a/x and b/x differ",
          f"From {'0' * 40} Mon Sep 17 00:00:00 2001",
          "Subject: [PATCH] s", '"a/\\303\\251"', "\t2024-01-01 00:00:00 +0000"]


@st.composite
def diff_like(draw) -> str:
    """A fixture with a few of its lines deleted, cut, extended or inserted."""
    lines = draw(st.sampled_from(FIXTURES)).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            del lines[at]
        elif choice == 1:
            lines.insert(at, draw(st.one_of(st.sampled_from(PIECES), st.text(max_size=6))))
        elif choice == 2:
            lines[at] = lines[at][:draw(st.integers(0, len(lines[at])))]
        else:
            lines[at] += draw(st.sampled_from(PIECES))
    return "\n".join(lines)


pieces = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=30).map("\n".join)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(diff_like(), pieces), st.sampled_from([None, 0, 1, 2]))
def test_reader_raises_only_its_own_error_and_its_plans_hold(text, strip):
    try:
        plan = parse_unified(text, strip=strip)
    except PlanParseError as exc:
        assert exc.errors and all(err.message for err in exc.errors)
        return
    assert [b.number for b in plan.blocks] == list(range(1, len(plan.blocks) + 1))
    entries: list[str] = []
    for block in plan.blocks:
        if not entries or entries[-1] != block.entry:
            assert block.entry not in entries, "an entry's blocks are not contiguous"
            entries.append(block.entry)
        assert block.file and "\0" not in block.file
        assert block.source is not None and block.source.line == block.line >= 1
        if block.action == EDIT:
            assert block.anchor is not None
            assert block.old or (block.anchor.at_start and block.anchor.at_end)
