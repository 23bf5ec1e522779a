"""Ids for files a user reads and types: playbooks and gates (PB-2).

An id is ASCII kebab-case built from the runs of ASCII letters and digits
in the title ("为 DSH 开发…Host 插件" → ``dsh-host``). A title with no
ASCII letter or digit gets ``<prefix>-`` and 8 hex characters of a hash of
its text. The full title, in any script, stays in the file's ``title``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Collection

MAX_ID_CHARS = 48
"""Longest id built from a title (cut at a word boundary where one is near)."""
HASH_CHARS = 8
_RUN = re.compile(r"[A-Za-z0-9]+")
ID_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""What a valid id looks like: a file name on every system, safe in a path."""


def title_id(title: str, prefix: str) -> str:
    """The id for ``title``: its ASCII words in kebab-case, or ``prefix-`` and a content hash."""
    words = [w.lower() for w in _RUN.findall(title)]
    if not words:
        digest = hashlib.sha256(title.encode("utf-8", "surrogatepass")).hexdigest()
        return f"{prefix}-{digest[:HASH_CHARS]}"
    built = ""
    for word in words:
        candidate = f"{built}-{word}" if built else word
        if len(candidate) > MAX_ID_CHARS:
            break
        built = candidate
    return built or words[0][:MAX_ID_CHARS]


def unique_id(base: str, taken: Collection[str]) -> str:
    """``base``, or ``base-2``, ``base-3`` … the first one not in ``taken``."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def is_valid_id(value: object) -> bool:
    """Whether ``value`` is an id ljtui could have built (and is safe as a file name)."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS + 8 and ID_PATTERN.fullmatch(value) is not None
