"""Starting one process inside the sandbox: the only way ljtui starts a command for a model.

A :class:`Confinement` is the sandbox in use plus the rules of one
command. :meth:`Confinement.popen` is :class:`subprocess.Popen` with the
backend wrapped around the program:

* Landlock: the ruleset is built here and its descriptor passed to the
  launcher (:mod:`ljtui.core.confine.launch`), which enters the domain and
  execs the program — same process id, so process groups and signals work
  as for a plain child;
* bubblewrap: ``bwrap … -- PROGRAM`` (:mod:`ljtui.core.confine.bwrap`);
* none: the program itself, with the user's full rights.

Every backend gets the session's private temp dir as ``TMPDIR`` (and
``TMP``, ``TEMP``), the one temp place it may write.
"""

from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ljtui.core.confine import landlock
from ljtui.core.confine.bwrap import bwrap_argv
from ljtui.core.confine.rules import Rules
from ljtui.core.confine.backend import BUBBLEWRAP, LANDLOCK, SandboxStatus

TEMP_VARS: tuple[str, ...] = ("TMPDIR", "TMP", "TEMP")
"""Variables that point programs at a temp dir."""


@dataclass(frozen=True)
class Confinement:
    """How one command is started.

    Attributes:
        status: the sandbox in use.
        rules: what the command may do.
        tmp_dir: the session's private temp dir (also among ``rules``' places when confined).
    """

    status: SandboxStatus
    rules: Rules
    tmp_dir: Path

    @property
    def confined(self) -> bool:
        """Whether the command runs in a sandbox."""
        return self.status.confined

    def describe(self) -> str:
        """What the dialog shows: ``sandbox landlock · writes: …; network: off``, or the unsandboxed warning."""
        if not self.confined:
            return "unsandboxed: this command runs with your full rights (no sandbox on this system)"
        return f"sandbox {self.status.backend} · {self.rules.describe()}"

    def popen(self, argv: list[str], *, cwd: Path, env: Mapping[str, str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """Start ``argv`` in ``cwd`` with ``env`` inside the sandbox (``kwargs`` go to :class:`subprocess.Popen`).

        Raises:
            OSError: the program (or the sandbox's own program) could not start.
            LandlockUnavailable: the Landlock ruleset could not be built; nothing was started.
        """
        with self.command(argv, cwd=cwd, env=env) as (wrapped, environment, fds):
            return subprocess.Popen(wrapped, cwd=cwd, env=environment, pass_fds=fds, **kwargs)

    @contextmanager
    def command(self, argv: list[str], *, cwd: Path,
                env: Mapping[str, str]) -> Iterator[tuple[list[str], dict[str, str], tuple[int, ...]]]:
        """The command line, environment and descriptors that start ``argv`` in ``cwd`` inside the sandbox, for
        a caller that starts the process itself (an asynchronous one); start it inside the ``with``: the
        descriptors close when it ends.

        Raises:
            LandlockUnavailable: the Landlock ruleset could not be built.
        """
        env = {**env, **{var: str(self.tmp_dir) for var in TEMP_VARS}}
        backend = self.status.backend
        if backend == LANDLOCK:
            fd = landlock.ruleset_fd(self.rules)
            try:
                yield landlock.launcher_argv(fd, argv), env, (fd,)
            finally:
                os.close(fd)
        elif backend == BUBBLEWRAP:
            assert self.status.bwrap is not None
            yield bwrap_argv(self.status.bwrap, self.rules, cwd, argv), env, ()
        else:
            yield list(argv), env, ()
