"""A chunked apply reports how far it is: steps counted up front, ``done`` rising to ``total``, and an end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ljtui.core.approval import AllowAll
from ljtui.core.clock import FixedClock
from ljtui.core.edits.progress import Step, StepEvents
from ljtui.core.edits.service import ApplyOptions, EditService
from ljtui.core.ports import ListSink
from ljtui.core.review.events import ApplyFinished, ApplyProgressed
from tests.core.edits.helpers import block, plan_text

FILES = 12


def many_files(root: Path) -> str:
    """``FILES`` files in ``root``, and a plan changing each (one entry per file)."""
    blocks = []
    for i in range(FILES):
        (root / f"m{i}.py").write_text(f"value = {i}\n")
        blocks.append(block(i + 1, f"m{i}.py", f"value = {i}\n", f"value = {i + 1}\n", entry=f"e{i}"))
    return plan_text(*blocks)


def apply_file(root: Path, sink: ListSink, clock: FixedClock, options: ApplyOptions) -> str:
    plan = root.parent / "plan.md"
    plan.write_text(many_files(root))
    return asyncio.run(EditService(root, sink, AllowAll().decide, clock).apply_file(plan, options)).result.status


def counted(events: list[object]) -> list[ApplyProgressed]:
    return [e for e in events if isinstance(e, ApplyProgressed) and e.total]


@pytest.mark.parametrize("partial", [False, True])
def test_a_chunked_apply_of_many_files_counts_up_to_its_total(tmp_path: Path, partial: bool) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    sink, clock = ListSink(), FixedClock(100.0)
    assert apply_file(root, sink, clock, ApplyOptions(partial=partial, chunk_size=2)) == "done"
    steps = counted(sink.events)
    chunks = FILES // 2
    total = chunks + (chunks if partial else 1) + 1
    assert {s.total for s in steps} == {total}
    running = [s for s in steps if not s.ended]
    assert [s.done for s in running] == sorted(s.done for s in running), "counts only rise"
    assert len({s.done for s in running}) == len(running), "each step moves on"
    assert running[0].done == 0 and running[-1].done == total
    assert [s.line for s in running[:chunks]] == [f"validating chunk {n}/{chunks} (2 entries)"
                                                  for n in range(1, chunks + 1)]
    assert steps[-1].ended and steps[-1].done == total, "the end follows the last step"
    assert isinstance(sink.events[-1], ApplyFinished)
    assert all(s.started == 100.0 for s in steps), "stamped with the engine clock"


def test_no_progress_is_shown_while_the_user_decides_and_the_clock_starts_again(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    sink, clock = ListSink(), FixedClock(100.0)
    plan = tmp_path / "plan.md"
    plan.write_text(many_files(root))

    async def ask(request):  # type: ignore[no-untyped-def]
        assert counted(sink.events)[-1].ended, "the validation's progress ended before the question"
        clock.advance(30)
        return await AllowAll().decide(request)

    outcome = asyncio.run(EditService(root, sink, ask, clock).apply_file(plan, ApplyOptions(chunk_size=3)))
    assert outcome.result.status == "done"
    writes = [s for s in counted(sink.events) if s.line.startswith("writing")]
    assert [s.started for s in writes] == [130.0]


def test_an_apply_that_fails_still_says_it_ended() -> None:
    sink = ListSink()
    with pytest.raises(OSError):
        with StepEvents(sink.emit, FixedClock(5.0)) as steps:
            steps(Step("validating chunk 1/2 (3 entries)", 0, 4))
            raise OSError("disk gone")
    first, last = sink.events
    assert isinstance(last, ApplyProgressed) and last.ended and (last.done, last.total, last.started) == (0, 4, 5.0)
    assert not first.ended  # type: ignore[attr-defined]


def test_a_line_that_is_no_step_carries_no_count() -> None:
    sink = ListSink()
    with StepEvents(sink.emit, FixedClock()) as steps:
        steps.line("re-validated against the current files")
    assert sink.events == [ApplyProgressed("re-validated against the current files")], "no end without a step"
