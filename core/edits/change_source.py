"""Where a change to review comes from: a file, standard input, or git's diff of two commits.

Each gives the change's text, or a sentence saying why there is none; the
text is read as bytes and decoded by :func:`~ljtui.core.edits.read_change.decode_change`,
so a diff of a file that is not UTF-8 keeps its bytes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import BinaryIO

from ljtui.core.edits.read_change import decode_change
from ljtui.core.git import GitRefused, run_git
from ljtui.core.review.requests import ChangeText, ReviewRequest

MAX_CHANGE_BYTES = 20 * 1024 * 1024
"""A change larger than this is not read."""
GIT_DIFF_TIMEOUT_S = 60.0
GIT_DIFF_OPTIONS = ("diff", "--no-color", "--find-renames", "--unified=3", "--src-prefix=a/", "--dst-prefix=b/",
                    "--submodule=short", "--no-relative")
"""One diff format whatever the user's settings: a/ and b/ prefixes, three lines of context, renames found."""


def read_stream(stream: BinaryIO, origin: str = "standard input") -> ChangeText:
    """Read a change from ``stream`` (standard input), at most :data:`MAX_CHANGE_BYTES`."""
    try:
        data = stream.read(MAX_CHANGE_BYTES + 1)
    except OSError as exc:
        return ChangeText(None, origin, f"cannot read {origin}: {exc.strerror or exc}")
    if len(data) > MAX_CHANGE_BYTES:
        return ChangeText(None, origin, f"cannot read {origin}: larger than {MAX_CHANGE_BYTES} bytes")
    if not data.strip():
        return ChangeText(None, origin, f"{origin} is empty: nothing to review (is the diff empty?)")
    return ChangeText(decode_change(data), origin)


def git_change(root: Path, spec: str) -> ChangeText:
    """git's diff of ``spec`` in the repository at ``root``; the repository's diff programs are never run
    (:func:`run_git`).

    ``A..B`` is the change from ``A`` to ``B`` (``A...B``: from where ``B`` left ``A``), to review in a working
    tree at ``A``; one commit or branch ``X`` is the change that makes the working tree match ``X``
    (``git diff -R X``).
    """
    ranged = ".." in spec
    origin = f"git diff {spec}" if ranged else f"git diff -R {spec}"
    if not spec.strip() or spec.startswith("-") or any(c in spec for c in "\0\n\r"):
        return ChangeText(None, origin, f"--git {spec!r}: give a commit range (A..B) or one commit, "
                                        "not an option or an empty name")
    try:
        direction = [] if ranged else ["-R"]
        done = run_git([*GIT_DIFF_OPTIONS, *direction, "--end-of-options", spec, "--"], root,
                       timeout=GIT_DIFF_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError, GitRefused) as exc:
        return ChangeText(None, origin, f"cannot run {origin}: {exc}")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return ChangeText(None, origin, f"{origin} failed: {said[0] if said else f'exit {done.returncode}'}")
    if len(done.stdout) > MAX_CHANGE_BYTES:
        return ChangeText(None, origin, f"{origin} is larger than {MAX_CHANGE_BYTES} bytes")
    if not done.stdout.strip():
        same = "the two sides are the same" if ranged else "the working tree already matches it"
        return ChangeText(None, origin, f"{origin} is empty: {same}")
    return ChangeText(decode_change(done.stdout), origin)


OPEN_USAGE = "/open FILE | /open --git A..B | /open --format diff|aider|codex|edit FILE"


def parse_open(args: str) -> ReviewRequest:
    """The request ``/open ARGS`` makes: ``FILE``, ``--git SPEC``, each with an optional ``--format NAME``.

    Raises:
        ValueError: the arguments name nothing to open, or an unknown format; the message says what to type.
    """
    import shlex

    from ljtui.core.edits.read_change import FORMATS

    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise ValueError(f"cannot read the arguments ({exc}); usage: {OPEN_USAGE}") from None
    fmt = git = path = None
    while words:
        word = words.pop(0)
        if word in ("--format", "--git") and not words:
            raise ValueError(f"{word} needs a value; usage: {OPEN_USAGE}")
        if word == "--format":
            fmt = words.pop(0)
            if fmt not in FORMATS:
                raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
        elif word == "--git":
            git = words.pop(0)
        elif path is None and git is None:
            path = word
        else:
            raise ValueError(f"{word!r}: open one change at a time; usage: {OPEN_USAGE}")
    if (path is None) == (git is None):
        raise ValueError(f"name one change to open; usage: {OPEN_USAGE}")
    return ReviewRequest(path=Path(path) if path is not None else None, git=git, fmt=fmt)
