from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ljtui.core.edits.apply import ApplyReport
from ljtui.core.edits.plan_format import EditBlock, parse_plan
from ljtui.core.review.render import fence_for, render_plan
from ljtui.core.review.session import ApplyRefused, Refreshed, Review, undo

APP = "def greet(name):\n    return 'hello ' + name\n\n\ndef bye():\n    return 'bye'\n"

PLAN = """### EDIT 1

- file: `app.py`
- where: `greet (~1)` — add a greeting word

```old
    return 'hello ' + name
```

```new
    return 'hello, dear ' + name
```

### EDIT 2

- file: `app.py`
- where: `greet (~2)` — builds on EDIT 1

```old
    return 'hello, dear ' + name
```

```new
    return 'hello, dearest ' + name
```

### EDIT 3

- file: `app.py`
- where: `bye (~6)`

```old
    return 'bye'
```

```new
    return 'goodbye'
```

### EDIT 4

- file: `notes/new.txt`

```old
```

```new
a new file
```
"""


def diff(review: Review, number: int) -> str:
    """Block ``number``'s diff as text."""
    return "\n".join(review.diff_lines(number)[0])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    return tmp_path


def test_all_blocks_start_accepted_with_context_diffs(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    assert [rb.state for rb in review.blocks] == ["accepted"] * 4
    first = diff(review, 1)
    assert "--- a/app.py" in first and "-    return 'hello ' + name" in first
    assert " def greet(name):" in first
    assert "+    return 'hello, dearest ' + name" in diff(review, 2)
    assert "+++ b/notes/new.txt" in diff(review, 4)


def test_rejecting_a_block_rejects_the_blocks_that_need_it(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    notes = review.toggle(1)
    assert notes == ["EDIT 2 rejected too: it changes text that EDIT 1 writes"]
    assert [rb.state for rb in review.blocks] == ["rejected", "rejected", "accepted", "accepted"]
    assert review.block(2).error.kind == "AnchorNotFound"
    assert "-    return 'bye'" in diff(review, 3)


def test_accepting_a_block_pulls_in_what_it_needs(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    review.set_all(False)
    notes = review.toggle(2)
    assert notes == ["EDIT 1 accepted too: EDIT 2 changes text they write"]
    assert [rb.state for rb in review.blocks] == ["accepted", "accepted", "rejected", "rejected"]


def test_apply_writes_exactly_the_accepted_blocks_then_undo_restores(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    review.toggle(3)
    report = review.apply()
    assert isinstance(report, ApplyReport) and report.result.status == "done"
    assert (repo / "app.py").read_text(encoding="utf-8") == APP.replace("'hello '", "'hello, dearest '")
    assert (repo / "notes" / "new.txt").read_bytes() == b"a new file\n"
    assert sorted(report.result.files) == ["app.py", "notes/new.txt"]
    outcome = undo(repo)
    assert outcome.ok, outcome.error
    assert (repo / "app.py").read_text(encoding="utf-8") == APP
    assert not (repo / "notes" / "new.txt").exists()


def test_a_changed_target_turns_its_blocks_stale_and_apply_refuses(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    (repo / "app.py").write_text(APP + "\n# edited by hand\n", encoding="utf-8")
    assert review.refresh({"app.py"}).stale == (1, 2, 3)
    assert [rb.state for rb in review.blocks] == ["stale", "stale", "stale", "accepted"]
    refused = review.apply()
    assert isinstance(refused, ApplyRefused) and refused.message.startswith("stale: app.py changed on disk")
    assert refused.blocks == (1, 2, 3)
    assert (repo / "app.py").read_text(encoding="utf-8").endswith("# edited by hand\n")
    assert review.toggle(1) == ["EDIT 1: app.py changed on disk; its blocks now use the new content"]
    assert [rb.state for rb in review.blocks] == ["accepted"] * 4
    report = review.apply()
    assert isinstance(report, ApplyReport) and report.result.status == "done"
    assert (repo / "app.py").read_text(encoding="utf-8").endswith("# edited by hand\n")


def test_apply_checks_staleness_even_without_a_watcher(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    (repo / "app.py").write_text(APP.replace("bye", "ciao"), encoding="utf-8")
    refused = review.apply()
    assert isinstance(refused, ApplyRefused) and "stale" in refused.message
    assert review.block(3).state == "stale"  # the one word, while its error says it no longer applies
    assert review.block(3).error.kind == "AnchorNotFound"


def test_failed_blocks_and_empty_selection_refuse_to_apply(repo: Path) -> None:
    review = Review.from_text(PLAN.replace("return 'bye'", "return 'nope'"), repo)
    assert review.block(3).state == "failed"
    refused = review.apply()
    assert isinstance(refused, ApplyRefused)
    assert "EDIT 3: AnchorNotFound" in refused.message and refused.blocks == (3,)
    review.set_all(False)
    assert review.apply().message.startswith("no block is accepted")
    assert (repo / "app.py").read_text(encoding="utf-8") == APP


def test_export_round_trips_the_accepted_blocks(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    review.toggle(4)
    again = parse_plan(review.export_text())
    assert [b.number for b in again.blocks] == [1, 2, 3]
    assert again.blocks == tuple(rb.block for rb in review.blocks[:3])


def test_fences_outgrow_backticks_in_the_body() -> None:
    assert fence_for("plain") == "```"
    assert fence_for("has ``` inside") == "````"
    assert fence_for("````` five") == "``````"


texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(old=texts, new=texts, prose=st.sampled_from(["", "Why: clarity."]))
def test_render_then_parse_is_identity(old: str, new: str, prose: str) -> None:
    old = old + "\n" if old else ""
    new = new + "\n"
    block = EditBlock(1, "src/x.py", "`f (~3)`", "plan", old, new, prose, 1)
    [parsed] = parse_plan(render_plan([block])).blocks
    assert (parsed.old, parsed.new, parsed.file, parsed.prose) == (old, new, block.file, prose)


def test_pictures_carry_no_diffs_and_a_diff_is_computed_for_one_block(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    [view] = [v for v in review.snapshot() if v.number == 2]
    assert not hasattr(view, "diff")
    lines, note = review.diff_lines(2)
    assert note is None and "-    return 'hello, dear ' + name" in lines
    review.toggle(2)
    lines, note = review.diff_lines(2)
    assert note is None and "-    return 'hello, dear ' + name" in lines  # tried against EDIT 1's result
    review.set_all(False)
    assert review.diff_lines(2) == ([], "no diff: this block does not apply to the current files")


def test_a_plan_is_checked_in_steps_and_a_diff_checks_up_to_its_block(repo: Path) -> None:
    review = Review(parse_plan(PLAN), repo, check_now=False)
    assert [v.state for v in review.snapshot()] == ["checking"] * 4 and review.checked == 0
    assert review.check(1) is False and [rb.state for rb in review.blocks] == ["accepted"] + ["checking"] * 3
    assert "+    return 'goodbye'" in review.diff_lines(3)[0]
    assert review.checked == 3 and review.block(4).state == "checking"
    assert review.check() is True and [rb.state for rb in review.blocks] == ["accepted"] * 4


def test_a_toggle_in_a_long_chain_revalidates_once_with_the_same_notes(repo: Path) -> None:
    chain = "".join(f"### EDIT {n}\n\n- file: `app.py`\n\n```old\nstep {n - 1}\n```\n\n```new\nstep {n}\n```\n\n"
                    for n in range(1, 41))
    (repo / "app.py").write_text("step 0\n", encoding="utf-8")
    review = Review.from_text(chain, repo)
    notes = review.toggle(1)
    assert len(notes) == 39 and notes[0] == "EDIT 2 rejected too: it changes text that EDIT 1 writes"
    assert {rb.state for rb in review.blocks} == {"rejected"}
    assert review.toggle(40) == [f"EDIT {', '.join(map(str, range(1, 40)))} accepted too: "
                                 "EDIT 40 changes text they write"]
    assert {rb.state for rb in review.blocks} == {"accepted"}


FAILING = PLAN + """
### EDIT 5

- file: `app.py`

```old
    return 'byee'
```

```new
    return 'ciao'
```

### EDIT 6

- file: `notes/new.txt`

```old
def greet(name):
    return 'hello, dearest ' + nam
```

```new
nothing
```
"""


def test_errors_kept_from_one_check_to_the_next_are_those_a_fresh_check_finds(repo: Path) -> None:
    review = Review.from_text(FAILING, repo)
    steps = [lambda: review.toggle(1), lambda: review.toggle(5), lambda: review.set_all(False),
             lambda: review.set_all(True), lambda: review.toggle(2), lambda: review.toggle(1)]
    for step in steps:
        step()
        fresh = Review.from_text(FAILING, repo)
        for mine, theirs in zip(review.blocks, fresh.blocks):
            theirs.accepted = mine.accepted
        fresh.revalidate()
        assert [(rb.state, rb.error) for rb in review.blocks] == [(rb.state, rb.error) for rb in fresh.blocks]
    assert review.block(5).error.candidates and review.block(6).error.candidates


def test_deleting_and_recreating_a_target_is_seen_each_time_with_one_word(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    original = (repo / "app.py").read_bytes()
    (repo / "app.py").unlink()
    found = review.refresh({"app.py"})
    assert found.stale == (1, 2, 3) and found.changed == ("app.py",)
    assert [rb.state for rb in review.blocks[:3]] == ["stale"] * 3  # stale, though it no longer applies
    assert all(rb.error is not None for rb in review.blocks[:3])
    (repo / "app.py").write_bytes(b"something else\n")
    found = review.refresh({"app.py"})
    assert found.stale == () and found.restored == () and found.changed == ("app.py",)
    assert review.blocks[0].error is not None and "not found" not in review.blocks[0].error.message
    (repo / "app.py").write_bytes(original)  # back exactly as reviewed
    found = review.refresh({"app.py"})
    assert found.restored == (1, 2, 3) and [rb.state for rb in review.blocks] == ["accepted"] * 4
    assert review.refresh({"app.py"}) == Refreshed()  # nothing moved since the last look
