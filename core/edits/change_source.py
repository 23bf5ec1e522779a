"""Where a change to review comes from: a file, standard input, or git's diff of two commits.

Each gives the change's text, or a sentence saying why there is none; the
text is read as bytes and decoded by :func:`~ljtui.core.edits.read_change.decode_change`,
so a diff of a file that is not UTF-8 keeps its bytes. Every read is bounded
(:data:`MAX_CHANGE_BYTES`) and none waits: a file is read only when it is a
regular file, so a FIFO, a device or a folder named as a change is refused
at once, by what it is, in ``ljtui apply``, ``ljtui review`` and ``/open`` alike.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import BinaryIO, Callable

from ljtui.core.edits.read_change import decode_change, undecodable
from ljtui.core.git import GitRefused, run_git
from ljtui.core.review.requests import ChangeText, ReviewRequest
from ljtui.core.statedir import read_at_most

MAX_CHANGE_BYTES = 20 * 1024 * 1024
"""A change larger than this is not read."""
GIT_DIFF_TIMEOUT_S = 60.0
GIT_DIFF_OPTIONS = ("diff", "--no-color", "--find-renames", "--unified=3", "--src-prefix=a/", "--dst-prefix=b/",
                    "--submodule=short", "--no-relative")
"""One diff format whatever the user's settings: a/ and b/ prefixes, three lines of context, renames found."""


def change_for(root: Path, request: ReviewRequest, *, big: int = MAX_CHANGE_BYTES,
               on_big: Callable[[str, int], None] | None = None) -> ChangeText:
    """The change ``request`` names, read: a file (``~`` expanded, relative to ``root``), git's diff, or the
    change it carries; ``on_big(shown, size)`` is told before a file larger than ``big`` bytes is read."""
    if request.change is not None:
        return request.change
    if request.git is not None:
        return git_change(root, request.git)
    if request.path is None:
        return ChangeText(None, "", "nothing to open: name a file, standard input or a git range")
    path = request.path.expanduser()
    path = path if path.is_absolute() else root / path
    absolute, base = path.absolute(), root.absolute()
    shown = absolute.relative_to(base).as_posix() if absolute.is_relative_to(base) else str(path)
    told = (lambda size: on_big(shown, size)) if on_big is not None else None
    return read_change_file(path, shown, request.fmt, big=big, on_big=told)


def read_change_file(path: Path, shown: str, fmt: str | None = None, *, big: int = MAX_CHANGE_BYTES,
                     on_big: Callable[[int], None] | None = None) -> ChangeText:
    """Read the change in ``path`` (named ``shown`` in messages); ``on_big(size)`` is told first when it is larger
    than ``big`` bytes. Refused, never waited for: anything but a regular file (a FIFO, a device, a folder),
    larger than :data:`MAX_CHANGE_BYTES` (also when it grows while read), or an EDIT plan (``fmt``, or as its text
    shows) that is not UTF-8."""
    opened = open_change_file(path, shown)
    if isinstance(opened, str):
        return ChangeText(None, shown, opened)
    fd, size = opened
    try:
        if size > big and on_big is not None:
            on_big(size)
        data = read_at_most(fd, MAX_CHANGE_BYTES + 1)
    except OSError as exc:
        return ChangeText(None, shown, f"cannot open {shown}: {exc.strerror or exc}")
    finally:
        os.close(fd)
    if len(data) > MAX_CHANGE_BYTES:
        return ChangeText(None, shown, f"cannot open {shown}: larger than {MAX_CHANGE_BYTES} bytes")
    text = decode_change(data)
    if undecodable(text, fmt):
        return ChangeText(None, shown, f"cannot open {shown}: not UTF-8 text")
    return ChangeText(text, shown)


def check_change_file(path: Path, shown: str) -> str | None:
    """Why :func:`read_change_file` would refuse ``path`` before reading a byte of it (``None``: it would read it)."""
    opened = open_change_file(path, shown)
    if isinstance(opened, str):
        return opened
    os.close(opened[0])
    return None


def open_change_file(path: Path, shown: str) -> tuple[int, int] | str:
    """``path`` opened for reading with its size, or why it is not read (named ``shown``).

    Only a regular file is opened: anything else is refused from its ``stat`` before it is opened (and the open
    never waits, so a FIFO swapped in is not waited on); the file opened is checked again, so one swapped in
    between is refused too.
    """
    try:
        st = os.stat(path)
        refused = _not_readable(st, shown)
        if refused is not None:
            return refused
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return f"cannot open {shown}: no such file"
    except NotADirectoryError:
        return f"cannot open {shown}: a folder on its path is a file"
    except OSError as exc:
        return f"cannot open {shown}: {exc.strerror or exc}"
    try:
        now = os.fstat(fd)
        refused = _not_readable(now, shown)
    except BaseException:
        os.close(fd)
        raise
    if refused is not None:
        os.close(fd)
        return refused
    return fd, now.st_size


def _not_readable(st: os.stat_result, shown: str) -> str | None:
    """Why a change is never read from a file with this ``stat`` (``None``: it is a regular file within bounds)."""
    if stat.S_ISDIR(st.st_mode):
        return f"cannot open {shown}: it is a directory"
    if not stat.S_ISREG(st.st_mode):
        return f"cannot open {shown}: it is {_kind(st.st_mode)}, not a regular file"
    if st.st_size > MAX_CHANGE_BYTES:
        return f"cannot open {shown}: larger than {MAX_CHANGE_BYTES} bytes"
    return None


def _kind(mode: int) -> str:
    """What a file that is not a regular file or a folder is, in words."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def read_stream(stream: BinaryIO, origin: str = "standard input") -> ChangeText:
    """Read a change from ``stream`` (standard input) until its end, or refuse it past :data:`MAX_CHANGE_BYTES`
    (a device that never ends is read that far, no further)."""
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
