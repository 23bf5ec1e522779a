"""``@path`` in a message: the files, folder listings and images it attaches, bounded, and what was refused.

A mention is ``@`` at the start of the text or after a space or an opening
bracket, then a path without spaces, or one in double quotes
(``@"my notes.md"``); trailing punctuation that is not part of an existing
path is left out (``see @a.py.``). A path is relative to the repository root.

* A file inside the repository is attached as a ``<file path=…>`` block, at
  most :data:`MAX_FILE_BYTES` of it, and :data:`MAX_TOTAL_BYTES` for all of a
  message's files; a cut says so in the block and in the conversation.
* A folder (``@src/``) attaches the listing of its entries as git sees them
  (at most :data:`MAX_LISTING_ENTRIES`).
* An image (png, jpeg, gif, webp) becomes an image block
  (:mod:`ljtui.core.mentions_images`); an image may also be named by an
  absolute or ``~`` path outside the repository (a pasted screenshot).
* Secret files, ljtui's state (``.agent/``), binary files, other paths
  outside the repository and missing ones are refused, each with a notice;
  the message is still sent, its text unchanged.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.mentions import Candidates, list_candidates, offered
from ljtui.core.mentions_images import is_image_name, read_image
from ljtui.core.providers.base import ImageBlock
from ljtui.core.secret_files import SecretFiles

MAX_FILE_BYTES = 64 * 1024
MAX_TOTAL_BYTES = 200 * 1024
MAX_LISTING_ENTRIES = 200
MAX_MENTIONS = 32
"""Mentions looked at in one message; more are refused with a notice."""
BINARY_PROBE = 8192
"""Bytes at the start of a file searched for a NUL (a binary file is not attached)."""
MENTION = re.compile(r'(?<![^\s(\[{])@(?:"([^"\n]+)"|([^\s"]+))')
TRAILING = ".,;:!?)]}'"
"""Punctuation at a mention's end that belongs to the sentence when the path without it exists."""
CONTEXT_HEAD = "[Attached by the user with @: the contents below are the files' text, not the user's words]"


@dataclass
class Attached:
    """What a message's mentions attach: text for the model, images, and lines for the conversation."""

    blocks: list[str] = field(default_factory=list)
    images: list[ImageBlock] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    """What was attached (``src/a.py (1.2 KB)``), for one notice."""
    problems: list[str] = field(default_factory=list)
    """Each mention refused or cut, one sentence each."""
    used: int = 0
    """Bytes of file text attached so far."""

    def context(self) -> str:
        """The text appended to the message (empty when nothing was attached)."""
        return "\n\n".join([CONTEXT_HEAD, *self.blocks]) if self.blocks else ""


def mentions(text: str) -> list[str]:
    """The paths ``text`` mentions, in order, each once (trailing punctuation still on)."""
    found = []
    for match in MENTION.finditer(text):
        path = match.group(1) or match.group(2)
        if path and path not in found:
            found.append(path)
    return found


def image_mentions(text: str) -> list[str]:
    """The mentioned paths whose names are images (nothing is read)."""
    return [m for m in (p.rstrip(TRAILING) for p in mentions(text)) if is_image_name(m)]


def attach(text: str, root: Path, secrets: SecretFiles, candidates: Candidates | None, *,
           images: bool) -> Attached:
    """Read what ``text`` mentions (disk work: call from a thread).

    Args:
        root: the repository root.
        secrets: which files are secret.
        candidates: the files git offers, for folder listings (``None``: listed on the first folder).
        images: whether the model takes images (refused with a notice when not).
    """
    out = Attached()
    real_root = Path(os.path.realpath(root))
    paths = mentions(text)
    if len(paths) > MAX_MENTIONS:
        out.problems.append(f"Only the first {MAX_MENTIONS} of {len(paths)} @ mentions were looked at.")
    for raw in paths[:MAX_MENTIONS]:
        path, shown = _resolved(raw, root)
        real = Path(os.path.realpath(path))
        rel = _inside(real, real_root)
        if is_image_name(shown):
            _image(out, real, shown, rel, secrets, images)
        elif rel is None:
            out.problems.append(f"@{shown}: not attached, it is outside the repository.")
        elif rel and not offered(rel, secrets):
            out.problems.append(_refused(rel, secrets))
        elif real.is_dir():
            candidates = candidates or list_candidates(root, secrets)
            _folder(out, rel, candidates)
        elif real.is_file():
            _file(out, real, rel)
        else:
            out.problems.append(f"@{shown}: not attached, there is no such file in the repository.")
    return out


def _resolved(raw: str, root: Path) -> tuple[Path, str]:
    """The path a mention names, and how to show it: trailing punctuation dropped unless it is part of it."""
    for candidate in (raw, raw.rstrip(TRAILING)):
        path = Path(os.path.expanduser(candidate))
        path = path if path.is_absolute() else root / path
        if os.path.lexists(path):
            return path, candidate
    shown = raw.rstrip(TRAILING) or raw
    path = Path(os.path.expanduser(shown))
    return (path if path.is_absolute() else root / path), shown


def _inside(real: Path, root: Path) -> str | None:
    """``real`` relative to ``root`` (``/``-separated, ``""`` for the root itself), or ``None`` outside it."""
    if real == root:
        return ""
    if root not in real.parents:
        return None
    return real.relative_to(root).as_posix()


def _refused(rel: str, secrets: SecretFiles) -> str:
    rule = secrets.rule_for(rel)
    if rule is not None:
        return (f"@{rel}: not attached, it looks like a secret file (it matches {rule!r}); the user can allow "
                "it with security.allow_secret_files in their own config file.")
    return f"@{rel}: not attached, it is ljtui's or git's own state."


def _file(out: Attached, real: Path, rel: str) -> None:
    left = MAX_TOTAL_BYTES - out.used
    if left <= 0:
        out.problems.append(f"@{rel}: not attached, the {_kb(MAX_TOTAL_BYTES)} one message may attach are used.")
        return
    limit = min(MAX_FILE_BYTES, left)
    try:
        size = real.stat().st_size
        with real.open("rb") as handle:
            data = handle.read(limit)
    except OSError as exc:
        out.problems.append(f"@{rel}: not attached, it cannot be read ({exc.strerror or type(exc).__name__}).")
        return
    if b"\0" in data[:BINARY_PROBE]:
        out.problems.append(f"@{rel}: not attached, it is a binary file.")
        return
    out.used += len(data)
    text = data.decode("utf-8", "replace")
    body = text if text.endswith("\n") else text + "\n"
    if size > len(data):
        cut = f"the first {len(data):,} of its {size:,} bytes are attached"
        body += f"[cut: {cut}]\n"
        out.problems.append(f"@{rel}: cut, {cut}.")
    out.blocks.append(f'<file path="{rel}">\n{body}</file>')
    out.shown.append(f"{rel} ({_kb(min(size, len(data)))})")


def _folder(out: Attached, rel: str, candidates: Candidates) -> None:
    prefix = f"{rel}/" if rel else ""
    entries: dict[str, int] = {}
    for path in candidates.paths:
        if path.endswith("/") or not path.startswith(prefix):
            continue
        rest = path[len(prefix):]
        head, slash, _ = rest.partition("/")
        name = head + slash
        entries[name] = entries.get(name, 0) + 1
    names = sorted(entries, key=lambda n: (not n.endswith("/"), n))
    lines = [f"{n} ({entries[n]} files)" if n.endswith("/") else n for n in names[:MAX_LISTING_ENTRIES]]
    if len(names) > MAX_LISTING_ENTRIES:
        lines.append(f"[… {len(names) - MAX_LISTING_ENTRIES} more entries not listed]")
    if candidates.cut:
        lines.append("[the repository's listing was cut: it is very large]")
    shown = prefix or "./"
    out.blocks.append(f'<folder path="{shown}">\n' + ("\n".join(lines) or "(no files git shows)") + "\n</folder>")
    out.shown.append(f"{shown} (listing, {len(names)} {'entry' if len(names) == 1 else 'entries'})")


def _image(out: Attached, real: Path, shown: str, rel: str | None, secrets: SecretFiles, images: bool) -> None:
    if not images:
        out.problems.append(f"@{shown}: not attached, the model in use does not take images.")
        return
    if (rel is not None and not offered(rel, secrets)) or secrets.is_secret(real.name):
        out.problems.append(_refused(rel or real.name, secrets))
        return
    read = read_image(real, shown)
    if read.block is None:
        out.problems.append(f"@{read.problem}; not attached.")
        return
    out.images.append(read.block)
    out.shown.append(f"{shown} (image, {_kb(read.size)})")


def _kb(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / (1024 * 1024):.1f} MB"
