"""The write turn of a repository inside one process: in order, bounded, cancellable."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from ljtui.core.edits.write_queue import WriteQueueTimeout, async_turn, queue_for, turn


async def wait_until_waiting(root: Path, count: int) -> None:
    for _ in range(500):
        if queue_for(root).waiting == count:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"{count} waiters never queued")


async def take_turn(root: Path, name: str, got: list[str]) -> None:
    """Wait for ``root``'s turn, then say so in ``got``."""
    async with async_turn(root):
        got.append(name)


async def test_coroutines_and_threads_get_the_turn_in_arrival_order(tmp_path: Path) -> None:
    order: list[str] = []
    first = queue_for(tmp_path)
    assert first.acquire(1)

    async def coroutine(name: str) -> None:
        async with async_turn(tmp_path):
            order.append(name)

    def thread(name: str) -> None:
        with turn(tmp_path):
            order.append(name)

    waiting = []
    for n, name in enumerate(["c1", "t1", "c2", "t2", "c3"]):
        if name.startswith("c"):
            waiting.append(asyncio.ensure_future(coroutine(name)))
        else:
            waiting.append(asyncio.ensure_future(asyncio.to_thread(thread, name)))
        await wait_until_waiting(tmp_path, n + 1)
    first.release()
    await asyncio.gather(*waiting)
    assert order == ["c1", "t1", "c2", "t2", "c3"]
    assert queue_for(tmp_path).acquire(0), "the turn is free again"
    queue_for(tmp_path).release()


async def test_one_path_one_queue_whatever_its_spelling(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert queue_for(tmp_path / "sub" / "..") is queue_for(tmp_path)


async def test_a_wait_past_the_bound_is_a_timeout_and_leaves_the_queue(tmp_path: Path) -> None:
    holder = queue_for(tmp_path)
    assert holder.acquire(1)
    try:
        with pytest.raises(WriteQueueTimeout, match="waited 0.05 s for this session's other writes"):
            async with async_turn(tmp_path, bound=0.05):
                pass
        with pytest.raises(WriteQueueTimeout):
            with turn(tmp_path, bound=0.05):
                pass
        assert holder.waiting == 0
    finally:
        holder.release()


async def test_a_cancelled_waiter_leaves_the_queue_and_the_next_one_gets_the_turn(tmp_path: Path) -> None:
    holder = queue_for(tmp_path)
    assert holder.acquire(1)
    got: list[str] = []

    cancelled = asyncio.ensure_future(take_turn(tmp_path, "cancelled", got))
    await wait_until_waiting(tmp_path, 1)
    after = asyncio.ensure_future(take_turn(tmp_path, "after", got))
    await wait_until_waiting(tmp_path, 2)
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    assert holder.waiting == 1
    holder.release()
    await after
    assert got == ["after"]


async def test_a_waiter_cancelled_just_as_it_is_given_the_turn_passes_it_on(tmp_path: Path) -> None:
    holder = queue_for(tmp_path)
    assert holder.acquire(1)
    got: list[str] = []

    first = asyncio.ensure_future(take_turn(tmp_path, "first", got))
    await wait_until_waiting(tmp_path, 1)
    second = asyncio.ensure_future(take_turn(tmp_path, "second", got))
    await wait_until_waiting(tmp_path, 2)
    released = threading.Thread(target=holder.release)
    released.start()
    released.join()
    first.cancel()  # granted in the queue, its wake-up not yet run
    await asyncio.gather(first, return_exceptions=True)
    await asyncio.wait_for(second, 5)
    assert got in (["second"], ["first", "second"])
