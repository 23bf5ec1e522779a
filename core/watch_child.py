"""The watcher's own process: ``python -P -m ljtui.core.watch_child ROOT LIMIT``.

Setting up ``watchfiles`` registers every folder with the kernel while it
holds the interpreter (a third of a second for 2,500 folders), so it runs
here, never in the process that draws the screen. It writes one JSON object
per line on stdout: ``{"keys": [...]}`` for a batch of changed
repo-relative paths (ljtui's own journal and the staging trees left out),
or ``{"error": "..."}`` once when it cannot go on; it ends when its stdin
closes (its parent is gone or stopped it).
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

DEBOUNCE_MS = 150
"""How long changes are gathered into one batch."""
WAKE_MS = 300
"""How often the watcher wakes, so stopping it is prompt."""


def main(argv: list[str]) -> int:
    from ljtui.core.watch import changed_keys, folders_over

    root, limit = Path(argv[0]), int(argv[1])
    halt = threading.Event()

    def parent_gone() -> None:
        sys.stdin.buffer.read()  # returns at EOF: the parent closed our stdin or exited
        halt.set()

    threading.Thread(target=parent_gone, daemon=True).start()

    def say(message: dict[str, object]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    try:
        if folders_over(root, limit):
            raise OSError(f"this folder holds more than {limit:,} folders")
        from watchfiles import watch

        for changes in watch(root, stop_event=halt, debounce=DEBOUNCE_MS, rust_timeout=WAKE_MS):
            keys = changed_keys(changes, root)
            if keys:
                say({"keys": sorted(keys)})
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    except Exception as exc:  # the parent says it to the user
        try:
            say({"error": f"{type(exc).__name__}: {exc}"})
        except BrokenPipeError:
            pass
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
