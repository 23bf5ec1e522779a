from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ljtui.core.edits.apply import ApplyReport
from ljtui.core.edits.plan_format import EditBlock, parse_plan
from ljtui.core.review.render import fence_for, render_plan
from ljtui.core.review.session import ApplyRefused, Review, undo

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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    return tmp_path


def test_all_blocks_start_accepted_with_context_diffs(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    assert [rb.state for rb in review.blocks] == ["accepted"] * 4
    first = review.block(1).diff
    assert "--- a/app.py" in first and "-    return 'hello ' + name" in first
    assert " def greet(name):" in first
    assert "+    return 'hello, dearest ' + name" in review.block(2).diff
    assert "+++ b/notes/new.txt" in review.block(4).diff


def test_rejecting_a_block_rejects_the_blocks_that_need_it(repo: Path) -> None:
    review = Review.from_text(PLAN, repo)
    notes = review.toggle(1)
    assert notes == ["EDIT 2 rejected too: it changes text that EDIT 1 writes"]
    assert [rb.state for rb in review.blocks] == ["rejected", "rejected", "accepted", "accepted"]
    assert review.block(2).error.kind == "AnchorNotFound"
    assert "-    return 'bye'" in review.block(3).diff


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
    assert review.refresh({"app.py"}) == [1, 2, 3]
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
    assert review.block(3).state == "failed"
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
