"""Starting one process inside the sandbox: the only way ljtui starts a command for a model.

A :class:`Confinement` is the sandbox in use plus the rules of one
command. :meth:`Confinement.popen` is :class:`subprocess.Popen` with the
backend wrapped around the program, and nothing the program starts
outlives it, its stop, or ljtui:

* Landlock: the ruleset is built here and its descriptor passed to the
  launcher (:mod:`ljtui.core.confine.launch`), which holds the program and
  everything it starts in a pid namespace (a subreaper where the kernel
  allows none) and runs it in the Landlock domain;
* bubblewrap: ``bwrap … -- PROGRAM`` (:mod:`ljtui.core.confine.bwrap`),
  whose own init holds the program's processes in its pid namespace;
* none: the launcher as a subreaper only: the program runs with the
  user's full rights, in the user's pid namespace (set-uid programs work,
  and it sees and may signal the user's other processes); on a system
  other than Linux, the program itself.

The process started is the launcher (or ``bwrap``): it is what the caller
waits for and signals, it exits as the program does, and it stops what is
left (SIGTERM, then SIGKILL after the ``grace`` given) when the program
exits or it gets SIGTERM. The launcher also watches ljtui's lifeline, a
pipe whose write end only ljtui holds: when ljtui ends, even killed, the
pipe closes and every launcher stops its command. bubblewrap's
``--die-with-parent`` does the same for its sandbox.

Every backend gets the session's private temp dir as ``TMPDIR`` (and
``TMP``, ``TEMP``), the one temp place it may write.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ljtui.core.confine import landlock, launch
from ljtui.core.confine.backend import BUBBLEWRAP, LANDLOCK, SandboxStatus
from ljtui.core.confine.bwrap import bwrap_argv
from ljtui.core.confine.rules import Rules

TEMP_VARS: tuple[str, ...] = ("TMPDIR", "TMP", "TEMP")
"""Variables that point programs at a temp dir."""
LAUNCHER = Path(launch.__file__)
"""The launcher (:mod:`ljtui.core.confine.launch`)."""
LAUNCHER_CODE = ("import sys, posix; sys.path.append({folder!r}); import launch; "
                 "posix._exit(launch.main(sys.argv))")
"""How the interpreter is told to run the launcher: imported, so its compiled form is used (compiling it as a
script costs each command a few milliseconds), and left without the interpreter's shutdown (it has nothing to
flush); ``-I`` keeps the command's folder out of the search path, and the launcher's folder is searched last."""
STOP_GRACE_SECONDS = 2.0
"""Default time a command's leftover processes have between SIGTERM and SIGKILL."""
GRACE_MARGIN_SECONDS = 0.1
"""How much sooner than the caller the launcher sends SIGKILL, so it has stopped everything before the caller
kills it (which matters for the subreaper: a killed subreaper cannot stop orphans any more)."""


class Lifeline:
    """A pipe whose write end only this process holds (never inherited, never written): its read end, given to
    every launcher, reads end of file once this process has ended, however it ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ends: tuple[int, int] | None = None
        self._owner = 0

    def read_end(self) -> int:
        """The read end (made on first use, and again in a forked child, which must not share its parent's)."""
        with self._lock:
            if self._ends is None or self._owner != os.getpid():
                self._ends, self._owner = os.pipe(), os.getpid()
            return self._ends[0]


LIFELINE = Lifeline()
"""This process's lifeline."""


def launcher_argv(argv: list[str], *, landlock_fd: int | None, lifeline_fd: int, grace: float,
                  pid_namespace: bool) -> list[str]:
    """The command line that runs ``argv`` held by the launcher (in the domain of ruleset ``landlock_fd``, if any).

    The launcher needs the standard library only, so it runs on the real interpreter behind a virtual
    environment's link (``-I -S``: no site-packages, no environment variables, no user site, not the current
    folder; ``-B``: nothing written).
    """
    options = ["--lifeline", str(lifeline_fd), "--grace", f"{max(0.0, grace - GRACE_MARGIN_SECONDS):.3f}"]
    if landlock_fd is not None:
        options += ["--landlock", str(landlock_fd)]
    if not pid_namespace:
        options.append("--no-pid-namespace")
    code = LAUNCHER_CODE.format(folder=str(LAUNCHER.parent))
    return [os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", code, *options, "--", *argv]


@dataclass(frozen=True)
class Confinement:
    """How one command is started.

    Attributes:
        status: the sandbox in use.
        rules: what the command may do.
        tmp_dir: the session's private temp dir (also among ``rules``' places when confined).
        pid_namespace: under Landlock, hold the command's processes in a pid namespace where the kernel allows
            one (``False``: always the subreaper).
    """

    status: SandboxStatus
    rules: Rules
    tmp_dir: Path
    pid_namespace: bool = True
    layer: tuple[str, ...] = ()
    """In layered mode: the ``bwrap`` program and the options that mount the repository's layer and the machine's
    view (:meth:`~ljtui.core.layer.service.Layer.command_args`); the command then runs in the layer."""
    layer_root: Path | None = None
    """The repository the layer covers (a writable place inside it is the layer's, never bound from the tree)."""
    hidden: tuple[str, ...] = ()
    """The repository's secret files the command cannot read in the layer (repository-relative)."""

    @property
    def confined(self) -> bool:
        """Whether the command runs in a sandbox."""
        return self.status.confined or bool(self.layer)

    @property
    def layered(self) -> bool:
        """Whether the command runs in the repository's layer."""
        return bool(self.layer)

    def describe(self) -> str:
        """What the dialog shows: ``sandbox landlock · writes: …; network: off``, or the unsandboxed warning."""
        if self.layered:
            return f"in the layer · {self.rules.describe()}"
        if not self.confined:
            return "unsandboxed: this command runs with your full rights (no sandbox on this system)"
        return f"sandbox {self.status.backend} · {self.rules.describe()}"

    def popen(self, argv: list[str], *, cwd: Path, env: Mapping[str, str], grace: float = STOP_GRACE_SECONDS,
              **kwargs: Any) -> subprocess.Popen[bytes]:
        """Start ``argv`` in ``cwd`` with ``env`` inside the sandbox (``kwargs`` go to :class:`subprocess.Popen`).

        ``grace``: the caller's time between the SIGTERM and the SIGKILL it sends when it stops the command; the
        processes left when the program exits get as long.

        Raises:
            OSError: the program (or the sandbox's own program) could not start.
            LandlockUnavailable: the Landlock ruleset could not be built; nothing was started.
        """
        with self.command(argv, cwd=cwd, env=env, grace=grace) as (wrapped, environment, fds):
            return subprocess.Popen(wrapped, cwd=cwd, env=environment, pass_fds=fds, **kwargs)

    @contextmanager
    def command(self, argv: list[str], *, cwd: Path, env: Mapping[str, str],
                grace: float = STOP_GRACE_SECONDS) -> Iterator[tuple[list[str], dict[str, str], tuple[int, ...]]]:
        """The command line, environment and descriptors that start ``argv`` in ``cwd`` inside the sandbox, for
        a caller that starts the process itself (an asynchronous one); start it inside the ``with``: the
        descriptors close when it ends. ``grace`` as for :meth:`popen`.

        Raises:
            LandlockUnavailable: the Landlock ruleset could not be built.
        """
        env = {**env, **{var: str(self.tmp_dir) for var in TEMP_VARS}}
        if self.layer:
            yield layered_argv(self.layer, self.rules, self.layer_root, cwd, argv), env, ()
            return
        backend = self.status.backend
        if backend == BUBBLEWRAP:
            assert self.status.bwrap is not None
            yield bwrap_argv(self.status.bwrap, self.rules, cwd, argv), env, ()
            return
        if backend != LANDLOCK and not sys.platform.startswith("linux"):
            yield list(argv), env, ()  # the launcher holds processes with Linux's means only
            return
        lifeline = LIFELINE.read_end()
        if backend != LANDLOCK:
            yield launcher_argv(argv, landlock_fd=None, lifeline_fd=lifeline, grace=grace,
                                pid_namespace=False), env, (lifeline,)
            return
        fd = landlock.ruleset_fd(self.rules)
        try:
            yield launcher_argv(argv, landlock_fd=fd, lifeline_fd=lifeline, grace=grace,
                                pid_namespace=self.pid_namespace), env, (fd, lifeline)
        finally:
            os.close(fd)


def layered_argv(layer: tuple[str, ...], rules: Rules, repo: Path | None, cwd: Path, argv: list[str]) -> list[str]:
    """The command line that runs ``argv`` in ``cwd`` in the layer: ``layer`` (the program and its mounts), then
    read-write binds of the writable places outside the repository, the network off unless ``rules`` allow it."""
    args = list(layer)
    for path in rules.paths:
        if repo is not None and (path == repo or repo in path.parents):
            continue  # the layer is the repository's only writable form
        if path.exists():
            args += ["--bind", str(path), str(path)]
    if not rules.network:
        args.append("--unshare-net")
    return [*args, "--chdir", str(cwd), "--", *argv]
