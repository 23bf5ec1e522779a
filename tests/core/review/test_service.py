"""The review façade: every change an event in order, every write asked first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.review.notes import MAX_DIFF_LINE_CHARS
from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.events import Notice
from ljtui.core.ports import FixedClock, ListSink
from ljtui.core.review import events as R
from ljtui.core.review.service import APPLY_CANCELLED, EXPORT_CANCELLED, ReviewService

APP = "def greet(name):\n    return 'hello ' + name\n"
PLAN = """### EDIT 1

- file: `app.py`

```old
    return 'hello ' + name
```

```new
    return 'hi ' + name
```

### EDIT 2

- file: `notes.txt`

```old
```

```new
created
```
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(APP, encoding="utf-8")
    return root


def service(repo: Path, approver: ScriptedApprover) -> tuple[ReviewService, ListSink]:
    sink = ListSink()
    return ReviewService(repo, sink, approver.decide, FixedClock()), sink


def of(sink: ListSink, kind: type) -> list:
    return [e for e in sink.events if isinstance(e, kind)]


async def test_apply_asks_with_core_written_lines_then_writes_and_closes(repo: Path) -> None:
    approver = ScriptedApprover({"apply": ["yes"]})
    svc, sink = service(repo, approver)
    assert svc.open_text(PLAN, "plan.md")
    await svc.apply()
    [asked] = approver.asked
    assert asked.lines[0] == "Write 2 file(s) with 2 block(s):" and "  app.py   EDIT 1" in asked.lines
    [finished] = of(sink, R.ApplyFinished)
    assert finished.status == "done" and finished.blocks == 2
    assert (repo / "app.py").read_text() == "def greet(name):\n    return 'hi ' + name\n"
    assert of(sink, R.ReviewChanged)[-1].blocks is None and not svc.active
    closed = sink.events.index(of(sink, R.ReviewChanged)[-1])
    assert closed < sink.events.index(finished)  # a view leaves the review before the result shows


async def test_declined_apply_writes_nothing_and_says_so(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover())
    svc.open_text(PLAN, "plan.md")
    await svc.apply()
    assert (repo / "app.py").read_text() == APP and not (repo / "notes.txt").exists()
    assert of(sink, Notice)[-1].message == APPLY_CANCELLED and svc.active


async def test_a_choice_changed_after_asking_is_refused(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover({"apply": ["yes"]}))
    svc.open_text(PLAN, "plan.md")
    original = svc._ask

    async def ask_then_toggle(request):  # the user rejects EDIT 2 while the dialog is up
        svc.toggle(2)
        return await original(request)

    svc._ask = ask_then_toggle
    await svc.apply()
    [refused] = of(sink, R.ApplyRefused)
    assert "changed while the dialog was open" in refused.message and (repo / "app.py").read_text() == APP


def test_changes_are_numbered_in_order(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover())
    svc.open_text(PLAN, "plan.md")
    svc.toggle(1)
    svc.toggle(1)
    svc.set_all(False)
    seqs = [e.seq for e in sink.events if isinstance(e, (R.PlanOpened, R.ReviewChanged))]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4
    assert [b.state for b in of(sink, R.ReviewChanged)[-1].blocks] == ["rejected", "rejected"]


def test_unknown_block_and_no_review_are_notices(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover())
    svc.toggle(1)
    svc.open_text(PLAN, "plan.md")
    svc.toggle(99)
    assert [n.message for n in of(sink, Notice)][0].startswith("No plan is under review")
    assert "no EDIT 99" in of(sink, Notice)[1].message


def test_open_file_failures_are_events(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover())
    assert not svc.open_file(Path("missing.md"))
    (repo / "bad.md").write_bytes(b"\xff\xfe not utf-8")
    assert not svc.open_file(Path("bad.md"))
    assert not svc.open_file(Path("."))
    messages = [e.message for e in of(sink, R.PlanOpenFailed)]
    assert messages == ["cannot open missing.md: no such file", "cannot open bad.md: not UTF-8 text",
                        "cannot open .: it is a directory"]


async def test_undo_asks_with_the_files_and_restores(repo: Path) -> None:
    approver = ScriptedApprover({"apply": ["yes"], "undo": ["yes"]})
    svc, sink = service(repo, approver)
    svc.open_text(PLAN, "plan.md")
    await svc.apply()
    await svc.undo()
    assert approver.asked[-1].kind == "undo" and "  restore app.py" in approver.asked[-1].lines
    assert "  delete notes.txt (created by the apply)" in approver.asked[-1].lines
    [undone] = of(sink, R.UndoFinished)
    assert undone.error is None and (repo / "app.py").read_text() == APP and not (repo / "notes.txt").exists()


async def test_export_writes_only_blocks_that_apply_inside_the_repo(repo: Path) -> None:
    approver = ScriptedApprover({"export": [Decision("yes", "out/plan.md")]})
    svc, sink = service(repo, approver)
    svc.open_text(PLAN, "plan.md")
    (repo / "notes.txt").write_text("now exists\n")
    svc.refresh()
    await svc.export()
    [written] = of(sink, R.ExportWritten)
    assert written.path == "out/plan.md" and written.count == 1
    text = (repo / "out" / "plan.md").read_text()
    assert "app.py" in text and "notes.txt" not in text


@pytest.mark.parametrize("typed", ["../outside.md", "/etc/ljtui-export.md", ".git/x.md", ".agent/journal/x.md",
                                   "sub\\x.md"])
async def test_export_refuses_paths_outside_the_repo_or_in_state(repo: Path, typed: str) -> None:
    svc, sink = service(repo, ScriptedApprover({"export": [Decision("yes", typed)]}))
    svc.open_text(PLAN, "plan.md")
    await svc.export()
    [failed] = of(sink, R.ExportFailed)
    assert failed.path == typed and failed.message
    assert not of(sink, R.ExportWritten)


async def test_export_through_a_symlinked_folder_out_of_the_repo_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "link")
    svc, sink = service(repo, ScriptedApprover({"export": [Decision("yes", "link/plan.md")]}))
    svc.open_text(PLAN, "plan.md")
    await svc.export()
    assert of(sink, R.ExportFailed) and list(outside.iterdir()) == []


async def test_export_asks_before_overwriting(repo: Path) -> None:
    (repo / "plan-out.md").write_text("keep me\n")
    approver = ScriptedApprover({"export": [Decision("yes", "plan-out.md")]})
    svc, sink = service(repo, approver)
    svc.open_text(PLAN, "plan.md")
    await svc.export()
    assert approver.asked[-1].kind == "overwrite"
    assert (repo / "plan-out.md").read_text() == "keep me\n" and of(sink, Notice)[-1].message == EXPORT_CANCELLED


async def test_export_with_nothing_that_applies_writes_nothing(repo: Path) -> None:
    approver = ScriptedApprover({"export": [Decision("yes", "x.md")]})
    svc, sink = service(repo, approver)
    svc.open_text(PLAN, "plan.md")
    svc.set_all(False)
    await svc.export()
    assert approver.asked == [] and "nothing to export" in of(sink, R.ExportFailed)[0].message


async def test_export_into_a_symlinked_agent_folder_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, repo / ".agent")
    svc, sink = service(repo, ScriptedApprover({"export": [Decision("yes", ".agent/plans/p.md")]}))
    svc.open_text(PLAN, "plan.md")
    await svc.export()
    [failed] = of(sink, R.ExportFailed)
    assert "is a symbolic link" in failed.message and list(outside.iterdir()) == []


async def test_undo_names_an_unsafe_state_folder_instead_of_nothing_to_undo(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    (outside / "journal").mkdir(parents=True)
    os.symlink(outside, repo / ".agent")
    approver = ScriptedApprover({"undo": ["yes"]})
    svc, sink = service(repo, approver)
    await svc.undo()
    [undone] = of(sink, R.UndoFinished)
    assert approver.asked == [] and ".agent is a symbolic link" in undone.error


def _chain_plan(count: int) -> str:
    return "".join(f"### EDIT {n}\n\n- file: `notes/n{n}.txt`\n\n```old\n```\n\n```new\nnote {n}\n```\n\n"
                   for n in range(1, count + 1))


def test_a_big_plan_is_shown_first_then_checked_in_steps(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.review import service as S

    monkeypatch.setattr(S, "FIRST_CHECK_BLOCKS", 3)
    monkeypatch.setattr(S, "CHECK_STEP_BLOCKS", 4)
    svc, sink = service(repo, ScriptedApprover())
    assert svc.open_text(_chain_plan(12), "big.md")
    [opened] = of(sink, R.PlanOpened)
    assert len(opened.blocks) == 12 and opened.checking == 9
    assert [b.state for b in opened.blocks[:4]] == ["accepted", "accepted", "accepted", "checking"]
    assert [e.checking for e in of(sink, R.ReviewChanged)] == [5, 1, 0]
    seqs = [e.seq for e in sink.events if isinstance(e, (R.PlanOpened, R.ReviewChanged))]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_a_choice_made_while_a_plan_is_checked_finishes_the_check_first(repo: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from ljtui.core.review import service as S

    monkeypatch.setattr(S, "FIRST_CHECK_BLOCKS", 2)
    monkeypatch.setattr(S, "CHECK_STEP_BLOCKS", 2)
    opened = threading.Event()

    class Sink(ListSink):
        def emit(self, event) -> None:
            super().emit(event)
            if isinstance(event, R.PlanOpened):
                opened.set()

    sink = Sink()
    svc = ReviewService(repo, sink, ScriptedApprover().decide, FixedClock())
    worker = threading.Thread(target=svc.open_text, args=(_chain_plan(40), "big.md"))
    worker.start()
    assert opened.wait(10)
    svc.toggle(1)
    worker.join(10)
    last = [e for e in sink.events if isinstance(e, (R.PlanOpened, R.ReviewChanged))][-1]
    assert last.checking == 0 and [b.state for b in last.blocks] == ["rejected"] + ["accepted"] * 39
    seqs = [e.seq for e in sink.events if isinstance(e, (R.PlanOpened, R.ReviewChanged))]
    assert seqs == sorted(seqs)


def test_a_diff_comes_in_pages_with_long_lines_cut(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.review import service as S

    monkeypatch.setattr(S, "DIFF_PAGE_LINES", 4)
    long_line = "x" * (MAX_DIFF_LINE_CHARS + 25)
    plan = ("### EDIT 1\n\n- file: `big.txt`\n\n```old\n```\n\n```new\n"
            + "".join(f"line {i}\n" for i in range(9)) + long_line + "\n```\n")
    svc, sink = service(repo, ScriptedApprover())
    svc.open_text(plan, "plan.md")
    first = svc.diff(1)
    assert first.lines == ("--- /dev/null", "+++ b/big.txt", "@@ -0,0 +1,10 @@", "+line 0")
    assert (first.start, first.total, first.above, first.below) == (0, 13, 0, 9)
    last = svc.diff(1, 12)
    assert last.lines == (f"+{'x' * (MAX_DIFF_LINE_CHARS - 1)} … (26 more characters)",)
    assert last.previous == 8 and last.below == 0
    assert svc.diff(99) is None


def test_a_diff_follows_the_choices(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover())
    svc.open_text(PLAN, "plan.md")
    before = svc.diff(1)
    assert "+    return 'hi ' + name" in before.lines
    svc.set_all(False)
    after = svc.diff(1)
    assert after.version > before.version and "+    return 'hi ' + name" in after.lines
    (repo / "app.py").write_text("changed\n")
    svc.refresh({"app.py"})
    stale = svc.diff(1)
    assert stale.lines == () and stale.note == "no diff: this block does not apply to the current files"


def test_a_big_plan_file_is_announced_before_it_is_parsed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.review import service as S

    monkeypatch.setattr(S, "BIG_PLAN_BYTES", 100)
    (repo / "big.md").write_text(_chain_plan(5), encoding="utf-8")
    svc, sink = service(repo, ScriptedApprover())
    assert svc.open_file("big.md")
    first, second = sink.events[:2]
    assert isinstance(first, Notice) and first.message == f"Reading big.md ({round(len(_chain_plan(5)) / 1024)} KB)…"
    assert isinstance(second, R.PlanOpened)


async def test_after_an_apply_the_outline_of_the_declared_files_is_refreshed_and_broken_promises_shown(
        repo: Path) -> None:
    from ljtui.core.outline import build_index

    build_index(repo)  # the outline as it was before the apply
    declared = PLAN + '\n```json\n{"will_modify": ["greet"], "will_add": ["farewell"], "will_remove": []}\n```\n'
    svc, sink = service(repo, ScriptedApprover({"apply": ["yes"]}))
    svc.open_text(declared, "plan.md")
    await svc.apply()
    assert of(sink, R.ApplyFinished)[0].status == "done"
    [notice] = [n for n in of(sink, Notice) if "farewell" in n.message]
    assert notice.level == "warning"
    assert "greet" in build_index(repo).files["app.py"].symbols[0].qualname


async def test_a_plan_without_declarations_applies_without_an_outline_notice(repo: Path) -> None:
    svc, sink = service(repo, ScriptedApprover({"apply": ["yes"]}))
    svc.open_text(PLAN, "plan.md")
    await svc.apply()
    assert of(sink, R.ApplyFinished)[0].status == "done" and not of(sink, Notice)
    assert not (repo / ".agent" / "cache").exists()
