"""How long web_fetch takes to turn a page at the body bound (2 MB) into text.

For several kinds of generated HTML, each cut to ``MAX_BODY_BYTES``, times
the conversion ``web_fetch`` uses (``html_to_text``, html-to-markdown) and
the standard library's HTML parser reading the same page for its text
(``plain_text``, the fallback for pages nested too deeply), best of a few
runs each, in this run. It also measures how long the event loop's thread
can go without running while a conversion runs in a worker thread (the
converter releases the GIL).

    python bench/web_text.py [--runs 3]

Prints, per kind, both times and ``conversion vs stdlib parser: X``, then
``worst of all / time bound: Y`` (target: well under 1, since the call's
time bound, ``agent.web_timeout``, 20 s by default, covers conversion too)
and the longest stall of the main thread (target: tens of milliseconds).
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Callable

from ljtui.core.agent.web_http import DEFAULT_TIMEOUT, MAX_BODY_BYTES
from ljtui.core.agent.web_text import html_to_text, plain_text

DEFAULT_RUNS = 3
TICK = 0.005
"""Seconds the main thread sleeps between checks while a conversion runs."""
KINDS: dict[str, str] = {
    "prose": "<p>Some <b>bold</b> text with a <a href='/doc'>link</a> and more words to read.</p>\n",
    "dense": "<div><p>para <b>bold</b> <a href='/x'>link</a></p></div>\n",
    "table": "<tr><td>a</td><td>b</td><td>c</td></tr>\n",
    "code": "<pre><code>def f(x):\n    return x * 2\n</code></pre>\n",
    "list": "<li>item <code>x</code></li>\n",
}
"""Each kind is its snippet repeated to the body bound, inside ``<html><body>`` (tables in ``<table>``)."""


def page(kind: str) -> bytes:
    snippet = KINDS[kind]
    body = snippet * (MAX_BODY_BYTES // len(snippet) + 1)
    if kind == "table":
        body = "<table>" + body
    return ("<html><head><title>bench</title></head><body>" + body).encode()[:MAX_BODY_BYTES]


def best(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main_thread_stall(data: bytes) -> float:
    """The longest gap between the main thread's ticks while a worker converts ``data``."""
    done = threading.Event()
    worker = threading.Thread(target=lambda: (html_to_text(data, None, "https://example.org/"), done.set()))
    worst = 0.0
    last = time.perf_counter()
    worker.start()
    while not done.is_set():
        time.sleep(TICK)
        now = time.perf_counter()
        worst = max(worst, now - last)
        last = now
    worker.join()
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    args = parser.parse_args()
    worst = 0.0
    for kind in KINDS:
        data = page(kind)
        text = data.decode()
        convert = best(args.runs, lambda data=data: html_to_text(data, None, "https://example.org/"))
        stdlib = best(args.runs, lambda text=text: plain_text(text))
        worst = max(worst, convert)
        print(f"{kind:6s} {len(data):,} bytes: html_to_text {convert:.3f} s, stdlib parser {stdlib:.3f} s, "
              f"conversion vs stdlib parser: {convert / stdlib:.2f}")
    print(f"worst of all / time bound: {worst / DEFAULT_TIMEOUT:.3f} ({worst:.3f} s of {DEFAULT_TIMEOUT:g} s)")
    print(f"longest main-thread stall during a conversion: {main_thread_stall(page('dense')) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
