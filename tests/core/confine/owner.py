"""A stand-in for ljtui that starts one command through ``Confinement.popen`` and then waits for ever, to be killed.

    python owner.py BACKEND PID_NAMESPACE ROOT COMMAND [BWRAP]

``BACKEND`` is ``landlock``, ``bubblewrap`` (the program ``BWRAP``) or ``none``; ``PID_NAMESPACE`` is ``1`` or ``0``.
It prints the command's first line of output, then sleeps.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from ljtui.core.confine import landlock
from ljtui.core.confine.rules import Place, Rules
from ljtui.core.confine.spawn import Confinement
from ljtui.core.confine.status import BUBBLEWRAP, LANDLOCK, NONE, SandboxStatus


def status_of(backend: str, bwrap: str | None) -> SandboxStatus:
    if backend == LANDLOCK:
        return SandboxStatus(LANDLOCK, "owner", landlock.abi_version())
    if backend == BUBBLEWRAP:
        return SandboxStatus(BUBBLEWRAP, "owner", bwrap=bwrap)
    return SandboxStatus(NONE, "owner")


def main(backend: str, pid_namespace: str, root: str, command: str, bwrap: str | None = None) -> None:
    here = Path(root)
    confinement = Confinement(status_of(backend, bwrap), Rules((Place(here, "here"),)), here,
                              pid_namespace=pid_namespace == "1")
    proc = confinement.popen(["/bin/bash", "-c", command], cwd=here, env={"PATH": "/usr/bin:/bin"},
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True)
    assert proc.stdout is not None
    print(proc.stdout.readline().decode().strip(), flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main(*sys.argv[1:6])
