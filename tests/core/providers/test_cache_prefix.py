"""The conversation's requests stay byte-stable prefixes of each other (bench/cache_prefix.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).parents[3] / "bench" / "cache_prefix.py"


def _bench():
    spec = importlib.util.spec_from_file_location("cache_prefix_bench", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_three_tool_using_turns_keep_a_stable_prefix(tmp_path: Path) -> None:
    bench = _bench()
    requests = await bench.converse(3, tmp_path)
    bodies = [r.json for r in requests]
    assert len(bodies) == 6
    ours, worst = bench.stability([bench.cache_order(b) for b in bodies])
    assert ours * 100 >= bench.TARGET_PERCENT and worst > 0.99
    reference, _ = bench.stability([bench.cache_order(b, reorder_tools=i) for i, b in enumerate(bodies)])
    assert reference < 0.5, "the measure must catch a reordered tool list"
