"""Every entry below a folder with its bytes and mode: what the layer tests compare.

Standard library only, so the tests can also run it inside a layer as a
plain script (``python -I -S tree_view.py ROOT [SKIP...]``): it then prints
the same listing as JSON, which is what a command in the layer sees.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Iterable

Listing = dict[str, list]
"""``{relative path: [kind, content, mode]}``: kind ``file`` (content: the bytes in hex), ``link`` (content: the
target), ``dir`` or ``other`` (content: the raw ``st_mode``)."""


def listing(root: str | os.PathLike[str], skip: Iterable[str] = ()) -> Listing:
    """Every entry below ``root``, without following links; ``skip``: top-level names left out."""
    root = os.fspath(root)
    skipped = set(skip)
    out: Listing = {}
    for folder, subfolders, files in os.walk(root):
        base = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if base == "." else base + "/"
        if not prefix:
            subfolders[:] = [n for n in subfolders if n not in skipped]
            files = [n for n in files if n not in skipped]
        for name in sorted([*subfolders, *files]):
            path = os.path.join(folder, name)
            st = os.lstat(path)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out[prefix + name] = ["link", os.readlink(path), 0]
            elif stat.S_ISDIR(st.st_mode):
                out[prefix + name] = ["dir", "", mode]
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    out[prefix + name] = ["file", f.read().hex(), mode]
            else:
                out[prefix + name] = ["other", str(st.st_mode), mode]
    return out


if __name__ == "__main__":
    json.dump(listing(sys.argv[1], sys.argv[2:]), sys.stdout)
