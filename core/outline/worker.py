"""A worker process of a large outline build: reads a batch of files and writes back their entries.

Run as ``python -P -m ljtui.core.outline.worker``: the batch ``(root,
[(path, language, known entry or None), …])`` arrives pickled on standard
input, the list of :class:`~ljtui.core.outline.parse.Entry` leaves pickled
on standard output. Only the parent that started it writes to its input.
"""

from __future__ import annotations

import pickle
import sys

from ljtui.core.outline.parse import read_batch


def main() -> int:
    """Read one batch from stdin, write what was read to stdout."""
    root, items = pickle.load(sys.stdin.buffer)
    pickle.dump(read_batch(root, items), sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
