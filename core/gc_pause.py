"""Pausing Python's cyclic garbage collector around a burst of allocation that makes no cycles.

Parsing builds many small objects (tokens, syntax nodes) and no reference
cycles; each collection the allocation triggers walks every object alive,
so a parse of a large input spends a quarter of its time or more in the
collector. Reference counting still frees everything as usual.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Run the body with the cyclic collector off; turn it back on if it was on before.

    Overlapping pauses (two threads) leave it on at the end: the first pause
    saw it on and turns it on when it ends (the other pause then runs the
    rest of its body with the collector on, which is only slower).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
